// Framed login: find out whether this browser keeps cookies for the tool inside the LMS frame.
// If it does, continue here; if not, offer to re-run the login in a new top-level window.
(function () {
  var form = document.getElementById('login-form');
  if (!form) return;
  var name = 'proctor_lti_cookie_check';
  // The tool's own cookies are Partitioned over https: test with the same attributes.
  var secure = location.protocol === 'https:' ? '; SameSite=None; Secure; Partitioned' : '; SameSite=Lax';
  document.cookie = name + '=1; path=/; max-age=60' + secure;
  var kept = document.cookie.indexOf(name + '=1') !== -1;
  document.cookie = name + '=; path=/; max-age=0' + secure;
  if (kept) {
    form.submit();
    return;
  }
  document.getElementById('cookie-blocked').hidden = false;
  document.getElementById('continue-here').hidden = true;
  var newWindow = document.getElementById('open-new-window');
  newWindow.hidden = false;
  newWindow.focus();
})();
