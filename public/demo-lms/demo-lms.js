// Demo LMS pages: auto-submitting launch forms, the new-window choice, and leaving a frame on return.
(function () {
  var auto = document.querySelector('form[data-autosubmit]');
  // With platform storage on, the tool's login talks to the storage frame: start it once that frame is loaded.
  var storageFrame = document.querySelector('iframe[data-platform-storage]');
  if (auto && storageFrame) {
    var started = false;
    var start = function () {
      if (started) return;
      started = true;
      auto.submit();
    };
    storageFrame.addEventListener('load', start);
    storageFrame.src = storageFrame.getAttribute('data-src');
    setTimeout(start, 5000);
  } else if (auto) auto.submit();

  var launchForm = document.getElementById('launch-form');
  if (launchForm) {
    var syncTarget = function () {
      var chosen = launchForm.querySelector('input[name="presentation"]:checked');
      launchForm.target = chosen && chosen.value === 'window' ? '_blank' : '_self';
    };
    launchForm.addEventListener('change', syncTarget);
    syncTarget();
  }

  // The tool's return URL is the course page: when it opens inside the embedded frame, take the whole window.
  if (document.body.hasAttribute('data-break-out') && window.top !== window.self) {
    try {
      window.top.location.href = window.location.href;
    } catch {
      // A frame that may not navigate its parent keeps the page where it is.
    }
  }
})();
