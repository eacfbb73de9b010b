// Back or reload of a staff page: the fields the page was posted (kept by session-page.js in the history entry's
// state or the tab's session storage) are posted to the same address again. Without them (another tab, a bookmark)
// the page says what to do.
(function () {
  var form = document.querySelector('form[data-session-resume]');
  var lost = document.querySelector('[data-session-lost]');
  var state = window.history && window.history.state;
  var fields = state && state.sessionPage;
  if (!fields && form) {
    try {
      fields = JSON.parse(window.sessionStorage.getItem('proctor-lti.page:' + form.getAttribute('action')) || 'null');
    } catch {
      fields = null;
    }
  }
  if (!form || !fields || typeof fields.ltik !== 'string') {
    if (lost) lost.hidden = false;
    return;
  }
  for (var name in fields) {
    if (!Object.prototype.hasOwnProperty.call(fields, name) || typeof fields[name] !== 'string') continue;
    var input = document.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = fields[name];
    form.appendChild(input);
  }
  form.submit();
})();
