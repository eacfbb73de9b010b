// LTI client-side platform storage (1EdTech "LTI Client Side postMessages"): lti.put_data and lti.get_data
// sent to the platform's storage frame, answered by `<subject>.response` messages. Every answer is checked:
// it must come from the platform origin (the origin of the platform's OIDC authorization endpoint), answer
// a message this page sent (message_id) with the expected subject, and arrive before the timeout.
(function (root) {
  'use strict';

  var counter = 0;

  function messageId(win) {
    counter += 1;
    var random = win.crypto && typeof win.crypto.randomUUID === 'function' ? win.crypto.randomUUID() : String(Math.random()).slice(2);
    return 'proctor-' + random + '-' + counter;
  }

  // The window that keeps the data: the named frame of the page that frames the tool, or that page itself.
  function targetWindow(win, target) {
    if (win.parent === win) return null;
    if (target === '_parent') return win.parent;
    try {
      return win.parent.frames[target] || null;
    } catch {
      return null;
    }
  }

  // One request and its answer. Rejects with the platform's error code, 'no_target' or 'timeout'.
  function request(win, options, message) {
    return new Promise(function (resolve, reject) {
      var target = targetWindow(win, options.target);
      if (!target) {
        reject(new Error('no_target'));
        return;
      }
      var id = messageId(win);
      var expected = message.subject + '.response';
      var timer;
      function listener(event) {
        if (event.origin !== options.platformOrigin) return;
        var data = event.data;
        if (!data || typeof data !== 'object' || data.subject !== expected || data.message_id !== id) return;
        win.removeEventListener('message', listener);
        win.clearTimeout(timer);
        if (data.error) reject(new Error(String((data.error && data.error.code) || 'error')));
        else resolve(data);
      }
      win.addEventListener('message', listener);
      timer = win.setTimeout(function () {
        win.removeEventListener('message', listener);
        reject(new Error('timeout'));
      }, options.timeoutMs);
      var sent = { subject: message.subject, message_id: id };
      for (var name in message) if (name !== 'subject') sent[name] = message[name];
      // Addressed to the platform origin only: a frame of any other origin never receives it.
      target.postMessage(sent, options.platformOrigin);
    });
  }

  function putData(win, options, key, value) {
    return request(win, options, { subject: 'lti.put_data', key: key, value: value }).then(function (answer) {
      if (answer.key !== key) throw new Error('wrong_key');
      return answer;
    });
  }

  function getData(win, options, key) {
    return request(win, options, { subject: 'lti.get_data', key: key }).then(function (answer) {
      if (answer.key !== key) throw new Error('wrong_key');
      return typeof answer.value === 'string' ? answer.value : undefined;
    });
  }

  root.ltiPlatformStorage = { targetWindow: targetWindow, request: request, putData: putData, getData: getData };
})(typeof window !== 'undefined' ? window : globalThis);
