// Admin console: copy buttons, colour pickers kept in step with their text fields, logo preview, and
// confirmation of destructive forms. Every page works without this script; it only adds conveniences.
(() => {
  for (const button of document.querySelectorAll('[data-copy]')) {
    button.hidden = false;
    button.addEventListener('click', async () => {
      const source = document.getElementById(button.getAttribute('data-copy'));
      if (!source) return;
      const status = button.parentElement.querySelector('[data-copy-status]');
      try {
        await navigator.clipboard.writeText(source.textContent.trim());
        if (status) status.textContent = status.getAttribute('data-copied');
      } catch {
        const range = document.createRange();
        range.selectNodeContents(source);
        const selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        if (status) status.textContent = status.getAttribute('data-selected');
      }
    });
  }

  for (const picker of document.querySelectorAll('input[type="color"][data-colour-for]')) {
    const text = document.getElementById(picker.getAttribute('data-colour-for'));
    if (!text) continue;
    picker.hidden = false;
    const sync = () => {
      if (/^[0-9a-fA-F]{6}$/.test(text.value)) picker.value = `#${text.value.toLowerCase()}`;
    };
    sync();
    text.addEventListener('input', sync);
    picker.addEventListener('input', () => {
      text.value = picker.value.replace('#', '');
    });
  }

  for (const input of document.querySelectorAll('input[type="file"][data-preview]')) {
    const preview = document.getElementById(input.getAttribute('data-preview'));
    if (!preview) continue;
    input.addEventListener('change', () => {
      const file = input.files && input.files[0];
      if (!file) return;
      preview.src = URL.createObjectURL(file);
      preview.hidden = false;
    });
  }

  for (const form of document.querySelectorAll('form[data-confirm]')) {
    form.addEventListener('submit', (event) => {
      if (!window.confirm(form.getAttribute('data-confirm'))) event.preventDefault();
    });
  }
})();
