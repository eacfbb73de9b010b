// The Demo LMS's client-side storage frame (LTI Client Side postMessages, as Canvas's post_message_forwarding
// frame): lti.capabilities, lti.put_data and lti.get_data, answered with `<subject>.response` to the sender's
// window and origin. Only the tool's origin is answered; what it stores is kept in memory, per origin.
(function () {
  var toolOrigin = document.body.getAttribute('data-tool-origin');
  var MAX_KEY = 2048;
  var MAX_VALUE = 4096;
  var MAX_ENTRIES = 500;
  var stored = Object.create(null);
  var count = 0;

  window.addEventListener('message', function (event) {
    var data = event.data;
    if (!data || typeof data !== 'object' || typeof data.subject !== 'string' || typeof data.message_id !== 'string') return;
    // Messages from any other origin are not answered at all.
    if (event.origin !== toolOrigin || !event.source) return;
    var reply = { subject: data.subject + '.response', message_id: data.message_id };
    var fail = function (code, message) {
      reply.error = { code: code, message: message };
    };
    if (data.subject === 'lti.capabilities') {
      reply.supported_messages = [
        { subject: 'lti.capabilities' },
        { subject: 'lti.put_data', frame: 'post_message_forwarding' },
        { subject: 'lti.get_data', frame: 'post_message_forwarding' },
      ];
    } else if (data.subject === 'lti.put_data') {
      if (typeof data.key !== 'string' || data.key === '' || data.key.length > MAX_KEY) fail('bad_request', 'key missing or too long');
      else if (typeof data.value !== 'string' || data.value.length > MAX_VALUE) fail('bad_request', 'value missing or too long');
      else if (!(data.key in stored) && count >= MAX_ENTRIES) fail('storage_exhaustion', 'too many keys stored');
      else {
        if (!(data.key in stored)) count += 1;
        stored[data.key] = data.value;
        reply.key = data.key;
        reply.value = data.value;
      }
    } else if (data.subject === 'lti.get_data') {
      if (typeof data.key !== 'string' || data.key === '') fail('bad_request', 'key missing');
      else {
        reply.key = data.key;
        if (data.key in stored) reply.value = stored[data.key];
      }
    } else {
      fail('unsupported_subject', 'not supported: ' + data.subject);
    }
    event.source.postMessage(reply, event.origin);
  });
})();
