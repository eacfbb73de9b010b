// Deep-linking pages: send the signed response back to the LMS, and focus the error summary of a refused form.
(function () {
  'use strict';
  const form = document.querySelector('form[data-autosubmit]');
  if (form) form.submit();
  const summary = document.querySelector('[data-focus-on-load]');
  if (summary) summary.focus();
})();
