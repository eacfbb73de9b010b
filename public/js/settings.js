// The exam settings form: the client of the settings JSON API (src/exams/settings/routes.ts).
// Prerequisites, presets and pattern checks use the data the server renders into #settings-data, taken
// from the Launch API contract; the server validates every save again with the contract itself.
(function () {
  'use strict';

  const form = document.getElementById('settings-form');
  const dataElement = document.getElementById('settings-data');
  if (!form || !dataElement) return;
  const data = JSON.parse(dataElement.textContent || '{}');
  const ltik = document.querySelector('meta[name="ltik"]')?.getAttribute('content') || '';
  const csrfToken = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') || '';

  // ---------------------------------------------------------------------------------------------
  // Sentences: the page's language and its settings:script.* messages as ICU templates
  // (src/exams/settings/script-messages.ts); nothing in English here.

  const locale = data.locale || document.documentElement.lang || 'en';
  const messages = data.messages || {};
  const quotes = data.quotes || ['"', '"'];
  const plurals = new Intl.PluralRules(locale);
  const numbers = new Intl.NumberFormat(locale);
  const lists = new Intl.ListFormat(locale, { style: 'long', type: 'conjunction' });

  /** Fills an ICU template: {name}, and {name, plural, =N {…} one {…} other {…}} with # for the number. */
  function format(template, values) {
    let i = 0;
    const n = template.length;
    const skipSpace = () => { while (i < n && /\s/.test(template[i])) i += 1; };
    function text(count) {
      let out = '';
      while (i < n) {
        const c = template[i];
        if (c === "'") {
          if (template[i + 1] === "'") { out += "'"; i += 2; continue; }
          if ('{}#'.includes(template[i + 1] || 'x')) {
            const end = template.indexOf("'", i + 1);
            out += template.slice(i + 1, end < 0 ? n : end);
            i = end < 0 ? n : end + 1;
            continue;
          }
        }
        if (c === '}') break;
        if (c === '#' && count !== undefined) { out += numbers.format(count); i += 1; continue; }
        if (c === '{') { i += 1; out += argument(); continue; }
        out += c;
        i += 1;
      }
      return out;
    }
    function word() {
      skipSpace();
      let w = '';
      while (i < n && !/[\s,{}]/.test(template[i])) { w += template[i]; i += 1; }
      skipSpace();
      return w;
    }
    function argument() {
      const name = word();
      const value = values[name];
      if (template[i] === '}') {
        i += 1;
        return value === undefined ? '' : typeof value === 'number' ? numbers.format(value) : String(value);
      }
      i += 1; // ','
      word(); // the argument's type: plural is the only one the messages use
      i += 1; // ','
      const count = Number(value);
      const category = plurals.select(count);
      let exact;
      let byCategory;
      let other;
      for (;;) {
        skipSpace();
        if (i >= n || template[i] === '}') { i += 1; break; }
        const selector = word();
        i += 1; // '{'
        const branch = text(count);
        i += 1; // '}'
        if (selector === '=' + count) exact = branch;
        else if (selector === category) byCategory = branch;
        else if (selector === 'other') other = branch;
      }
      return exact !== undefined ? exact : byCategory !== undefined ? byCategory : other || '';
    }
    return text(undefined);
  }
  const say = (key, values) => format(messages[key] || '', values || {});
  const quote = (name) => quotes[0] + name + quotes[1];
  const quotedList = (names) => lists.format(names.map(quote));
  const sentences = (...parts) => parts.filter(Boolean).join(data.sentenceSeparator === undefined ? ' ' : data.sentenceSeparator);

  const idOf = (path) => 'f-' + path.replace(/[^a-zA-Z0-9_]/g, '-');
  const controls = (path) => Array.from(form.querySelectorAll('[name="' + path + '"]'));
  const control = (path) => controls(path)[0];
  const byId = (id) => document.getElementById(id);

  // ---------------------------------------------------------------------------------------------
  // Reading and writing single fields.

  function readValue(path) {
    const list = controls(path);
    const first = list[0];
    if (!first) return undefined;
    if (first.type === 'checkbox') return first.checked;
    if (first.type === 'radio') {
      const checked = list.find((input) => input.checked);
      if (!checked) return undefined;
      return first.dataset.kind === 'choice' ? Number(checked.value) : checked.value;
    }
    return first.value;
  }

  function writeValue(path, value) {
    const list = controls(path);
    const first = list[0];
    if (!first) return;
    if (first.type === 'checkbox') first.checked = value === true;
    else if (first.type === 'radio') list.forEach((input) => { input.checked = input.value === String(value); });
    else first.value = value === undefined || value === null ? '' : String(value);
  }

  /** Whole numbers as numbers; anything else typed is kept as text so the server can say what is wrong. */
  function integerOrText(text) {
    const trimmed = String(text).trim();
    if (trimmed === '') return undefined;
    return /^-?\d+$/.test(trimmed) ? Number(trimmed) : trimmed;
  }

  // The link's validity: minutes in the form, seconds in the document (src/exams/settings/durations.ts). A stored
  // value that is no whole number of minutes is sent back to the second while its minutes stay as shown; anything
  // but whole minutes in range is sent as typed, so the server refuses it and nothing is saved.
  const linkMinutes = data.linkMinutes || { min: 1, max: 300 };
  function expireFromForm() {
    const input = control('expire');
    const typed = String(readValue('expire') || '').trim();
    if (typed === '') return undefined;
    if (input && input.dataset.seconds && typed === input.dataset.shown) return Number(input.dataset.seconds);
    const minutes = /^\d{1,6}$/.test(typed) ? Number(typed) : NaN;
    return minutes >= linkMinutes.min && minutes <= linkMinutes.max ? minutes * 60 : typed;
  }

  /** After a save: what is stored is what the field shows now. */
  function keepExpire(saved) {
    const input = control('expire');
    if (!input) return;
    input.dataset.seconds = typeof saved === 'number' ? String(saved) : '';
    input.dataset.shown = input.value.trim();
    if (typeof saved !== 'number' || saved % 60 === 0) setFieldMessage('expire', 'note', '');
  }

  function textOrUndefined(text) {
    const trimmed = String(text || '').trim();
    return trimmed === '' ? undefined : trimmed;
  }

  // ---------------------------------------------------------------------------------------------
  // The form as a settings document (the reverse of formValues in src/exams/settings/fields.ts).

  const EXAM_SETTINGS_PREFIX = 'exam_settings.';

  function examSettingsFromForm() {
    const out = {};
    form.querySelectorAll('[name^="exam_settings."]').forEach((element) => {
      const member = element.name.slice(EXAM_SETTINGS_PREFIX.length);
      if (member in out) return;
      const kind = element.dataset.kind;
      if (kind === 'lines') {
        out[member] = element.value.split('\n').map((line) => line.trim()).filter(Boolean);
      } else if (kind === 'windows-apps') {
        out[member] = element.value
          .split('\n')
          .map((line) => line.trim())
          .filter(Boolean)
          .map((line) => {
            const [binary = '', product = '', company = ''] = line.split('|').map((part) => part.trim());
            return { binary_name: binary, product_name: product, company_name: company };
          });
      } else {
        out[member] = readValue(element.name);
      }
    });
    return out;
  }

  function documentFromForm() {
    const doc = {
      launch_url: readValue('launch_url').trim(),
      exam_start: readValue('exam_start').trim(),
      exam_take: readValue('exam_take').trim(),
      exam_end: readValue('exam_end').trim(),
      exam_settings: examSettingsFromForm(),
    };
    const weights = {};
    form.querySelectorAll('[name^="behavior_settings.frame_metrics."]').forEach((select) => {
      if (select.value !== '') weights[select.name.split('.').pop()] = Number(select.value);
    });
    const highlights = {};
    let anyHighlight = false;
    form.querySelectorAll('[name^="behavior_settings.exam_metrics."]').forEach((box) => {
      highlights[box.name.split('.').pop()] = box.checked;
      anyHighlight = anyHighlight || box.checked;
    });
    if (Object.keys(weights).length > 0 || anyHighlight) {
      doc.behavior_settings = {};
      if (Object.keys(weights).length > 0) doc.behavior_settings.frame_metrics = weights;
      if (anyHighlight) doc.behavior_settings.exam_metrics = highlights;
    }
    const proctor = {};
    form.querySelectorAll('[name^="proctor_settings."]').forEach((select) => {
      if (select.value !== '') proctor[select.name.split('.').pop()] = select.value === 'true';
    });
    if (Object.keys(proctor).length > 0) doc.proctor_settings = proctor;
    if (byId('f-breaks_enabled').checked) {
      doc.break_settings = {
        number: integerOrText(readValue('break_settings.number')),
        duration: integerOrText(readValue('break_settings.duration')),
        cumulative: readValue('break_settings.cumulative'),
        on_time_exceeded: readValue('break_settings.on_time_exceeded'),
        desk_scan_after_break: readValue('break_settings.desk_scan_after_break'),
      };
    }
    const expire = expireFromForm();
    if (expire !== undefined) doc.expire = expire;
    const preAuth = textOrUndefined(readValue('pre_auth'));
    if (preAuth) doc.pre_auth = preAuth;
    const postAuth = textOrUndefined(readValue('post_auth'));
    if (postAuth) doc.post_auth = postAuth;
    if (readValue('pre_auth_bypass') === true) doc.pre_auth_bypass = true;
    const tool = { redirect: readValue('tool.redirect') || 'lms' };
    const lmsPreset = textOrUndefined(readValue('tool.lms_preset'));
    if (lmsPreset) tool.lms_preset = lmsPreset;
    const quizUrl = textOrUndefined(readValue('tool.quiz_url'));
    if (quizUrl) tool.quiz_url = quizUrl;
    const securityPreset = textOrUndefined(readValue('tool.security_preset'));
    if (securityPreset) tool.security_preset = securityPreset;
    const redirectUrl = textOrUndefined(readValue('tool.redirect_url'));
    if (redirectUrl && tool.redirect === 'url') tool.redirect_url = redirectUrl;
    else if (tool.redirect === 'url') tool.redirect_url = '';
    doc.tool = tool;
    return doc;
  }

  // ---------------------------------------------------------------------------------------------
  // Messages beside fields.

  function fieldTarget(path) {
    // The deepest part of the path that has a control: `exam_settings.allowed_windows_apps.2.binary_name`
    // belongs to the apps text box.
    const parts = path.split('.');
    for (let n = parts.length; n > 0; n -= 1) {
      const candidate = parts.slice(0, n).join('.');
      if (byId(idOf(candidate))) return candidate;
    }
    return undefined;
  }

  function setFieldMessage(path, kind, text) {
    const id = idOf(path);
    const element = byId(id + '-' + kind);
    if (!element) return;
    element.textContent = text || '';
    element.hidden = !text;
    if (kind === 'error') controls(path).concat(byId(id) ? [byId(id)] : []).forEach((input) => {
      if (text) input.setAttribute('aria-invalid', 'true');
      else input.removeAttribute('aria-invalid');
    });
  }

  function clearErrors(kind) {
    form.querySelectorAll('.field-error').forEach((element) => {
      if (kind && element.dataset.source !== kind) return;
      element.textContent = '';
      element.hidden = true;
      delete element.dataset.source;
    });
    form.querySelectorAll('[aria-invalid="true"]').forEach((input) => {
      const error = byId(input.id + '-error') || byId((input.name ? idOf(input.name) : input.id) + '-error');
      if (!error || error.hidden) input.removeAttribute('aria-invalid');
    });
  }

  function showError(path, message, source) {
    const target = fieldTarget(path);
    if (!target) return undefined;
    const element = byId(idOf(target) + '-error');
    if (!element) return undefined;
    const index = /\.(\d+)(\.|$)/.exec(path.slice(target.length));
    const text = index ? say('line', { line: Number(index[1]) + 1, message }) : message;
    element.textContent = element.hidden || !element.textContent ? text : element.textContent + ' ' + text;
    element.hidden = false;
    element.dataset.source = source;
    controls(target).concat(byId(idOf(target)) ? [byId(idOf(target))] : []).forEach((input) => input.setAttribute('aria-invalid', 'true'));
    return idOf(target);
  }

  const summary = byId('error-summary');
  const errorList = byId('error-list');

  function showSummary(items) {
    errorList.textContent = '';
    for (const item of items) {
      const li = document.createElement('li');
      if (item.target) {
        const link = document.createElement('a');
        link.href = '#' + item.target;
        link.textContent = item.text;
        link.addEventListener('click', (event) => {
          event.preventDefault();
          const input = byId(item.target);
          if (input) input.focus();
        });
        li.appendChild(link);
      } else {
        li.textContent = item.text;
      }
      errorList.appendChild(li);
    }
    summary.hidden = items.length === 0;
    if (items.length > 0) summary.focus();
  }

  // ---------------------------------------------------------------------------------------------
  // Prerequisites (data from the contract, see src/exams/settings/prerequisites.ts).

  const requirements = data.requirements || [];
  const labelOf = (member) => {
    const input = byId(idOf(EXAM_SETTINGS_PREFIX + member));
    const group = byId(idOf(EXAM_SETTINGS_PREFIX + member) + '-group');
    const legend = group ? group.querySelector('legend') : null;
    if (legend) return legend.textContent.trim();
    const label = input ? form.querySelector('label[for="' + input.id + '"]') : null;
    return label ? label.textContent.trim() : member;
  };

  function currentSettings() {
    return examSettingsFromForm();
  }

  /**
   * Switches on what the member just chosen needs, and what those need in turn; returns
   * [{ field, because, message }]. A member the instructor turns off is never turned back on: the rule it
   * breaks is shown beside the setting that needs it instead.
   */
  function satisfy(changedMember) {
    const switched = [];
    const settings = currentSettings();
    const queue = [changedMember];
    while (queue.length > 0) {
      const member = queue.shift();
      for (const r of requirements) {
        if (r.field !== member || !r.when.includes(settings[r.field])) continue;
        for (const need of r.needs) {
          if (settings[need.field] === need.value) continue;
          writeValue(EXAM_SETTINGS_PREFIX + need.field, need.value);
          settings[need.field] = need.value;
          switched.push({ field: need.field, because: r.field, message: r.message });
          queue.push(need.field);
        }
      }
    }
    return switched;
  }

  function brokenRequirements() {
    const settings = currentSettings();
    return requirements.filter((r) => r.when.includes(settings[r.field]) &&
      (r.needs.some((n) => settings[n.field] !== n.value) || r.excludes.some((e) => settings[e.field] === e.value)));
  }

  /** Notes beside every field switched on for another, and the rule errors that remain. */
  function refreshPrerequisites(switched) {
    form.querySelectorAll('.note[data-source="prerequisite"]').forEach((note) => {
      note.textContent = '';
      note.hidden = true;
      delete note.dataset.source;
    });
    for (const change of switched) {
      const note = byId(idOf(EXAM_SETTINGS_PREFIX + change.field) + '-note');
      if (!note) continue;
      note.textContent = say('switchedOnBecause', { setting: labelOf(change.because) });
      note.hidden = false;
      note.dataset.source = 'prerequisite';
    }
    clearErrors('prerequisite');
    for (const r of brokenRequirements()) showError(EXAM_SETTINGS_PREFIX + r.field, r.message, 'prerequisite');
    const mobileNote = byId(idOf('exam_settings.mobile') + '-note');
    if (mobileNote && readValue('exam_settings.mobile') === true && !textOrUndefined(readValue('pre_auth'))) {
      mobileNote.textContent = say('mobileNeedsPreAuth');
      mobileNote.hidden = false;
      mobileNote.dataset.source = 'prerequisite';
    }
  }

  let lastSwitched = [];
  function announce(element, text) {
    element.textContent = '';
    window.setTimeout(() => { element.textContent = text; }, 50);
  }

  form.addEventListener('change', (event) => {
    const target = event.target;
    if (!target.name || !target.name.startsWith(EXAM_SETTINGS_PREFIX)) return;
    const switched = satisfy(target.name.slice(EXAM_SETTINGS_PREFIX.length));
    lastSwitched = lastSwitched.filter((c) => readValue(EXAM_SETTINGS_PREFIX + c.field) !== false).concat(switched);
    refreshPrerequisites(lastSwitched);
    if (switched.length > 0) {
      announce(byId('preset-status'), say('alsoSwitchedOn', { settings: quotedList(switched.map((c) => labelOf(c.field))), reason: switched[0].message }));
    }
  });

  // ---------------------------------------------------------------------------------------------
  // Security presets.

  form.querySelectorAll('[data-preset]').forEach((button) => {
    button.addEventListener('click', () => {
      const preset = (data.securityPresets || []).find((p) => p.id === button.dataset.preset);
      if (!preset) return;
      const chosen = Object.assign({}, preset.exam_settings);
      // One list, of the settings whose value this click changes: the count and the names come from it.
      const changed = [];
      for (const [member, value] of Object.entries(chosen)) {
        const path = EXAM_SETTINGS_PREFIX + member;
        const element = control(path);
        if (!element) continue;
        // Allowed-app lists are the instructor's own: presets leave them as they are.
        if (element.dataset.kind === 'lines' || element.dataset.kind === 'windows-apps') continue;
        if (readValue(path) !== value) changed.push(member);
        writeValue(path, value);
      }
      form.querySelectorAll('[name^="behavior_settings.frame_metrics."]').forEach((select) => {
        const metric = select.name.split('.').pop();
        const weight = preset.behavior && preset.behavior.frame_metrics ? preset.behavior.frame_metrics[metric] : undefined;
        select.value = weight === undefined ? '' : String(weight);
      });
      writeValue('tool.security_preset', preset.id);
      // Which settings the preset's choices needed: they come out on in the preset; say so beside them.
      const switched = [];
      for (const r of requirements) {
        if (!r.when.includes(chosen[r.field])) continue;
        for (const need of r.needs) if (!switched.some((s) => s.field === need.field)) switched.push({ field: need.field, because: r.field, message: r.message });
      }
      lastSwitched = switched;
      refreshPrerequisites(switched);
      // Of the changed settings, those the preset did not choose itself but its choices need.
      const needed = switched.filter((c) => changed.includes(c.field) && !(preset.chosen || []).includes(c.field));
      const quoted = (members) => quotedList(members.map(labelOf));
      announce(
        byId('preset-status'),
        sentences(
          say('presetApplied', { preset: quote(preset.label), count: changed.length, settings: quoted(changed) }),
          needed.length > 0 ? say('presetNeeded', { settings: quoted(needed.map((c) => c.field)) }) : '',
          say('presetReview'),
        ),
      );
    });
  });

  // ---------------------------------------------------------------------------------------------
  // Exam pages: preset, derivation and live check.

  const presetSelect = control('tool.lms_preset');
  const quizUrl = control('tool.quiz_url');
  const takePostMessage = byId('f-take_post_message');
  const endPostMessage = byId('f-end_post_message');

  function syncPostMessage() {
    for (const [box, path] of [[takePostMessage, 'exam_take'], [endPostMessage, 'exam_end']]) {
      const input = control(path);
      if (box.checked) {
        if (input.value !== data.postMessage) input.dataset.pattern = input.value;
        input.value = data.postMessage;
        input.readOnly = true;
      } else {
        if (input.value === data.postMessage) input.value = input.dataset.pattern || '';
        input.readOnly = false;
      }
    }
  }

  // The patterns are checked by the server with a linear-time engine: running an instructor's pattern
  // with the browser's own backtracking engine could freeze this tab.
  let pagesCheckRun = 0;
  async function checkPages() {
    const run = ++pagesCheckRun;
    const launch = readValue('launch_url').trim();
    const query = new URLSearchParams({ launch_url: launch });
    for (const path of ['exam_start', 'exam_take', 'exam_end']) query.set(path, readValue(path).trim());
    let result;
    try {
      const response = await fetch(data.checkUrl + '?' + query.toString(), { headers: { Authorization: 'Bearer ' + ltik, Accept: 'application/json' } });
      if (!response.ok) return;
      result = await response.json();
    } catch {
      return; // The save is checked again by the server.
    }
    if (run !== pagesCheckRun) return;
    clearErrors('pages');
    const notes = [];
    for (const path of ['exam_start', 'exam_take', 'exam_end']) {
      if (result.problems && result.problems[path]) showError(path, result.problems[path], 'pages');
    }
    if (launch && !/^https?:\/\/[^/]/i.test(launch)) showError('launch_url', say('fullAddress'), 'pages');
    if (result.startMatchesLaunch === true) notes.push(say('startMatches'));
    if (result.startMatchesLaunch === false) showError('exam_start', say('startDoesNotMatch'), 'pages');
    byId('pages-check').textContent = sentences(...notes);
  }

  function showLmsNote() {
    const preset = (data.lmsPresets || []).find((p) => p.id === presetSelect.value);
    if (!preset) return;
    byId('lms-note').textContent = preset.note;
    byId('lms-example').textContent = preset.example;
  }

  async function derivePages() {
    setFieldMessage('tool.quiz_url', 'error', '');
    const url = quizUrl.value.trim();
    if (!url) {
      setFieldMessage('tool.quiz_url', 'error', say('pasteFirst'));
      return;
    }
    const query = new URLSearchParams({ preset: presetSelect.value, quiz_url: url });
    let result;
    try {
      const response = await fetch(data.deriveUrl + '?' + query.toString(), { headers: { Authorization: 'Bearer ' + ltik, Accept: 'application/json' } });
      result = await response.json();
      if (!response.ok) throw new Error(result.message || say('deriveFailed'));
    } catch (error) {
      setFieldMessage('tool.quiz_url', 'error', error instanceof SyntaxError || !error.message ? say('deriveFailed') : error.message);
      return;
    }
    if (!result.ok) {
      setFieldMessage('tool.quiz_url', 'error', result.message);
      return;
    }
    takePostMessage.checked = result.pages.exam_take === data.postMessage;
    endPostMessage.checked = result.pages.exam_end === data.postMessage;
    syncPostMessage();
    for (const path of ['launch_url', 'exam_start', 'exam_take', 'exam_end']) {
      if (result.pages[path] !== '' || presetSelect.value !== 'custom') writeValue(path, result.pages[path]);
    }
    const preset = (data.lmsPresets || []).find((p) => p.id === presetSelect.value);
    announce(byId('f-tool-quiz_url-note'), say('derived', { preset: preset ? preset.label : '' }));
    checkPages();
  }

  presetSelect.addEventListener('change', () => {
    showLmsNote();
    if (quizUrl.value.trim()) derivePages();
  });
  quizUrl.addEventListener('change', derivePages);
  byId('derive-pages').addEventListener('click', derivePages);
  takePostMessage.addEventListener('change', () => { syncPostMessage(); checkPages(); });
  endPostMessage.addEventListener('change', () => { syncPostMessage(); checkPages(); });
  for (const path of ['launch_url', 'exam_start', 'exam_take', 'exam_end']) control(path).addEventListener('change', checkPages);

  // ---------------------------------------------------------------------------------------------
  // Breaks and redirect.

  const breaksEnabled = byId('f-breaks_enabled');
  breaksEnabled.addEventListener('change', () => {
    byId('break-fields').disabled = !breaksEnabled.checked;
    if (breaksEnabled.checked && !readValue('break_settings.number')) writeValue('break_settings.number', 1);
    if (breaksEnabled.checked && !readValue('break_settings.duration')) writeValue('break_settings.duration', 10);
  });

  // ---------------------------------------------------------------------------------------------
  // Saving.

  // "Recent changes", rebuilt from the save's answer (the same words the server renders).
  function showHistory(entries) {
    const list = byId('history-list');
    list.replaceChildren();
    for (const entry of entries) {
      const item = document.createElement('li');
      const time = document.createElement('time');
      time.dateTime = entry.at;
      time.textContent = entry.when;
      item.append(entry.byline[0], time, entry.byline[1]);
      const changes = document.createElement('ul');
      for (const change of entry.changes) {
        const line = document.createElement('li');
        // Addresses and page patterns read left to right in every language, as the server renders them.
        for (const part of change.parts || [{ text: change.text }]) {
          if (!part.ltr) {
            line.append(part.text);
            continue;
          }
          const value = document.createElement('bdi');
          value.dir = 'ltr';
          value.textContent = part.text;
          line.append(value);
        }
        changes.append(line);
      }
      item.append(changes);
      if (entry.attemptsNote) {
        const note = document.createElement('p');
        note.className = 'help';
        note.dataset.attemptsBefore = String(entry.attemptsBefore);
        note.textContent = entry.attemptsNote;
        item.append(note);
      }
      list.append(item);
    }
    byId('history-empty').hidden = entries.length > 0;
  }

  // The tool-side settings, each under the object of the API it belongs to (its control is named `<object>.<member>`).
  // Times go as typed (wall clock, with their time zone): the server turns them into instants.
  function toolSettingsFromForm() {
    const objects = {};
    for (const control of form.querySelectorAll('[data-tool-setting]')) {
      const [object, member] = control.name.split('.');
      const kind = control.dataset.toolSetting;
      objects[object] = objects[object] || {};
      objects[object][member] = kind === 'checkbox' ? control.checked : kind === 'time' ? control.value || null : control.value;
    }
    return objects;
  }

  const saveStatus = byId('save-status');
  const saveButton = byId('save');
  const actions = byId('actions');

  // The sticky save bar's height, kept as the page's scroll padding: a control Tab reaches is never behind the bar.
  function padForActions() {
    if (actions) document.documentElement.style.scrollPaddingBlockEnd = actions.offsetHeight + 16 + 'px';
  }
  padForActions();
  if (actions && 'ResizeObserver' in window) new ResizeObserver(padForActions).observe(actions);
  // A tall control (a list of apps) is scrolled in by its caret only: lift all of it above the bar, keeping its top in view.
  form.addEventListener('focusin', (event) => {
    const target = event.target;
    if (!actions || actions.contains(target) || !target.getBoundingClientRect) return;
    const box = target.getBoundingClientRect();
    const covered = box.bottom - actions.getBoundingClientRect().top + 8;
    if (covered > 0) window.scrollBy(0, Math.min(covered, box.top - 8));
  });

  // The save's outcome takes the focus unless the error summary did: a keyboard user lands on what happened.
  function focusOutcome() {
    if (!summary.contains(document.activeElement)) saveStatus.focus();
  }

  // Attempts already ran under the stored settings: the server asks once, naming how many; "Save anyway" sends that number.
  let confirmedAttempts;
  function askToConfirm(result) {
    let box = byId('confirm-attempts');
    if (!box) {
      box = document.createElement('div');
      box.id = 'confirm-attempts';
      box.className = 'notice confirm-attempts';
      saveStatus.parentNode.insertBefore(box, saveStatus);
    }
    const question = document.createElement('p');
    question.id = 'confirm-attempts-question';
    question.textContent = result.confirm;
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'button primary';
    button.dataset.confirmAttempts = String(result.attempts);
    button.setAttribute('aria-describedby', question.id);
    button.textContent = result.button;
    button.addEventListener('click', () => {
      confirmedAttempts = result.attempts;
      box.remove();
      form.requestSubmit();
    });
    box.replaceChildren(question, button);
    button.focus();
  }

  let saving = false;
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (saving) return;
    clearErrors();
    checkPages();
    refreshPrerequisites(lastSwitched);
    // Broken prerequisites are already shown beside their settings; the server refuses them with the same
    // rules, together with every other wrong field, so one refused save marks all of them at once.
    const body = { settings: documentFromForm(), status: readValue('status'), ...toolSettingsFromForm() };
    // Marked busy rather than disabled: a disabled button would drop the keyboard focus to the page's body.
    saving = true;
    saveButton.setAttribute('aria-disabled', 'true');
    announce(saveStatus, say('saving'));
    let response;
    let result = {};
    try {
      response = await fetch(data.apiUrl, {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json', Authorization: 'Bearer ' + ltik, 'x-csrf-token': csrfToken, ...(confirmedAttempts ? { 'x-confirm-attempts': String(confirmedAttempts) } : {}) },
        body: JSON.stringify(body),
        credentials: 'same-origin',
      });
      result = await response.json().catch(() => ({}));
    } catch {
      response = undefined;
    } finally {
      saving = false;
      saveButton.removeAttribute('aria-disabled');
    }
    if (response && response.ok) {
      showSummary([]);
      clearErrors();
      const banner = byId('not-configured');
      if (banner) banner.hidden = true;
      if (Array.isArray(result.history)) showHistory(result.history);
      if (result.settings) keepExpire(result.settings.expire);
      const saved = say('saved', { time: new Date().toLocaleTimeString(locale) });
      announce(saveStatus, typeof result.accommodationWarning === 'string' ? saved + ' ' + result.accommodationWarning : saved);
      focusOutcome();
      return;
    }
    confirmedAttempts = undefined;
    if (response && response.status === 409 && result.error === 'confirm_attempts') {
      announce(saveStatus, result.confirm);
      askToConfirm(result);
      return;
    }
    if (response && response.status === 422 && Array.isArray(result.violations)) {
      clearErrors();
      // The server speaks of the document's seconds; the form asks for minutes and says so.
      const inWords = (v) => (v.path === 'expire' ? say('expireMinutes', linkMinutes) : v.message);
      const items = result.violations.map((v) => ({ text: inWords(v), target: showError(v.path, inWords(v), 'server') }));
      showSummary(items);
      announce(saveStatus, say('refused', { count: items.length }));
      focusOutcome();
      return;
    }
    const message = result.message || say('failed');
    showSummary([{ text: message }]);
    announce(saveStatus, say('notSaved'));
    focusOutcome();
  });

  syncPostMessage();
  checkPages();
  refreshPrerequisites([]);
})();
