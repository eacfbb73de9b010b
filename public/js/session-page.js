// A staff page answered to a POST (the session token travels in form fields, never in a URL). Its history entry is
// replaced by a GET of the page's own address, and the fields are kept for this tab (the entry's state and the tab's
// session storage, never a URL): Back and reload then load that address without asking to send a form again, and
// its page (views/launch/resume.ejs, public/js/session-resume.js) posts the fields once more.
(function () {
  var form = document.querySelector('form[data-session-page]');
  if (!form || !window.history || !window.history.replaceState) return;
  var action = form.getAttribute('action');
  var fields = {};
  for (var i = 0; i < form.elements.length; i += 1) {
    var element = form.elements[i];
    if (element.name) fields[element.name] = element.value;
  }
  try {
    window.sessionStorage.setItem('proctor-lti.page:' + action, JSON.stringify(fields));
  } catch {
    // Storage refused (a framed page where the browser blocks it): the entry's state alone carries the fields.
  }
  try {
    window.history.replaceState({ sessionPage: fields }, '', action);
  } catch {
    // A browser that refuses the state keeps the POST entry: Back asks before sending the form again.
  }
})();
