// An error page answered to a POST (a form the browser would have to send again). Its history entry is replaced by a
// GET of a fixed address that holds the page itself (its content, title and language) in the entry's state, never
// in a URL: reload, Back and Forward load that address, whose script (error-again.js) shows the page again. Nothing
// is posted again, except by the page's own "Try again" button.
(function () {
  var script = document.currentScript;
  var main = document.getElementById('main');
  var address = script && script.getAttribute('data-again');
  if (!main || !address || !window.history || !window.history.replaceState) return;
  var copy = main.cloneNode(true);
  var scripts = copy.querySelectorAll('script');
  for (var i = 0; i < scripts.length; i += 1) scripts[i].parentNode.removeChild(scripts[i]);
  var page = { html: copy.innerHTML, title: document.title, lang: document.documentElement.lang, dir: document.documentElement.dir };
  try {
    window.sessionStorage.setItem('proctor-lti.error-page', JSON.stringify(page));
  } catch {
    // Storage refused (a framed page where the browser blocks it): the entry's state alone carries the page.
  }
  try {
    window.history.replaceState({ errorPage: page }, '', address);
  } catch {
    // A browser that refuses the state keeps the POST entry: reload asks before sending the form again.
  }
})();
