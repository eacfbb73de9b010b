// Reload, Back or Forward to an error page that answered a POST: the page kept in the history entry's state by
// error-page.js (or, where the entry lost it, the tab's session storage) is shown again as it was. Without it (another tab, a bookmark) the page says what to do.
(function () {
  var state = window.history && window.history.state;
  var page = state && state.errorPage;
  if (!page) {
    try {
      page = JSON.parse(window.sessionStorage.getItem('proctor-lti.error-page') || 'null');
    } catch {
      page = null;
    }
  }
  var main = document.getElementById('main');
  if (!main || !page || typeof page.html !== 'string') {
    var lost = document.querySelector('[data-error-lost]');
    if (lost) lost.hidden = false;
    return;
  }
  if (typeof page.lang === 'string' && page.lang) document.documentElement.lang = page.lang;
  if (page.dir === 'rtl' || page.dir === 'ltr') document.documentElement.dir = page.dir;
  if (typeof page.title === 'string' && page.title) document.title = page.title;
  main.innerHTML = page.html;
  main.setAttribute('data-error-restored', '');
})();
