// A framed login with the platform's client-side storage: the login's state and nonce are stored in the
// platform (then the page goes on to its authorization endpoint), and read back on the launch (then the
// id_token is posted again with what was read). When the platform does not answer, the form is sent as
// it is: the login continues on the cookie path, the launch is answered as one without its cookie.
(function () {
  var form = document.getElementById('platform-storage');
  var storage = window.ltiPlatformStorage;
  if (!form || !storage) return;
  var data = form.dataset;
  var options = { target: data.target, platformOrigin: data.platformOrigin, timeoutMs: Number(data.timeoutMs) || 4000 };
  var button = document.getElementById('storage-continue');
  button.hidden = true;

  function fallBack() {
    document.getElementById('storage-working').hidden = true;
    document.getElementById('storage-unavailable').hidden = false;
    form.submit();
  }

  if (data.mode === 'put') {
    Promise.all([
      storage.putData(window, options, data.stateKey, data.state),
      storage.putData(window, options, data.nonceKey, data.nonce),
    ]).then(function () {
      window.location.replace(data.next);
    }, fallBack);
    return;
  }

  Promise.all([storage.getData(window, options, data.stateKey), storage.getData(window, options, data.nonceKey)]).then(function (values) {
    if (values[0] !== data.state || values[1] !== data.nonce) {
      fallBack();
      return;
    }
    form.elements.namedItem('lti_storage').value = 'verified';
    form.elements.namedItem('lti_storage_state').value = values[0];
    form.elements.namedItem('lti_storage_nonce').value = values[1];
    form.submit();
  }, fallBack);
})();
