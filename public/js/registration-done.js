// LTI Dynamic Registration: tell the LMS the registration window may close.
(window.opener || window.parent).postMessage({ subject: 'org.imsglobal.lti.close' }, '*');
