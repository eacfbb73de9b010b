// The proctoring URL must open at the top level, never inside the LMS frame.
(function () {
  var link = document.querySelector('[data-top-redirect]');
  if (!link) return;
  try {
    window.top.location.href = link.href;
  } catch {
    // A sandboxed frame without top navigation: the visible link remains.
  }
})();
