// Posts the LTI session token on to the page the launch opens (never a URL with the token in it).
(function () {
  var form = document.querySelector('form[data-session-continue]');
  if (form) form.submit();
})();
