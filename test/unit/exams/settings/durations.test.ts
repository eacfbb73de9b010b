import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { overrideForm, overrideFromFields } from '../../../../src/exams/accommodations/form.js';
import { describeChange } from '../../../../src/exams/settings/history.js';
import { LINK_MINUTES, minutesText, secondsFromMinutes } from '../../../../src/exams/settings/durations.js';
import type { ExamSettingsDocument } from '../../../../src/exams/settings/document.js';
import { SETTINGS_DOCUMENT_VERSION } from '../../../../src/exams/settings/versions.js';
import { EXAM_SETTINGS_OFF } from '../../../../src/proctoring/contract.js';
import { english } from '../../../../src/proctoring/english.js';
import { translator } from '../../../../src/i18n/index.js';

const DOCUMENT: ExamSettingsDocument = {
  version: SETTINGS_DOCUMENT_VERSION,
  launch_url: 'https://moodle.example.edu/mod/quiz/view.php?id=42',
  exam_start: '^https://moodle\\.example\\.edu/mod/quiz/view\\.php.*',
  exam_take: '^https://moodle\\.example\\.edu/mod/quiz/attempt\\.php.*',
  exam_end: '^https://moodle\\.example\\.edu/mod/quiz/review\\.php.*',
  exam_settings: { ...EXAM_SETTINGS_OFF },
};

describe('a link validity in minutes at the form, in seconds in the document', () => {
  it('takes whole minutes from 1 to 300 (the Launch API\'s 1 to 18000 seconds)', () => {
    assert.deepEqual(LINK_MINUTES, { min: 1, max: 300 });
    assert.deepEqual(secondsFromMinutes('90', undefined), { ok: true, seconds: 5400 });
    assert.deepEqual(secondsFromMinutes(' 300 ', undefined), { ok: true, seconds: 18000 });
    assert.deepEqual(secondsFromMinutes('1', undefined), { ok: true, seconds: 60 });
    assert.deepEqual(secondsFromMinutes('', 7205), { ok: true, seconds: undefined }, 'empty: not set');
  });

  it('refuses what is no whole number of minutes in range, keeping what was typed', () => {
    for (const typed of ['0', '301', '1.5', '-5', 'five', '1e2', '120.08']) assert.deepEqual(secondsFromMinutes(typed, undefined), { ok: false, typed }, typed);
  });

  it('keeps a stored value that is no whole number of minutes to the second while its minutes stay as shown', () => {
    for (const seconds of [7205, 1, 59, 61, 17999, 18000, 3600]) {
      assert.deepEqual(secondsFromMinutes(minutesText(seconds), seconds), { ok: true, seconds }, String(seconds));
    }
    assert.equal(minutesText(7205), '120.08');
    assert.equal(minutesText(7200), '120');
    assert.deepEqual(secondsFromMinutes('121', 7205), { ok: true, seconds: 7260 }, 'changed: whole minutes');
  });

  it('the accommodation editor shows such a value, says it exactly and saves it unchanged', () => {
    const t = translator('en').t;
    const form = overrideForm(DOCUMENT, { expire: 7205 }, t);
    assert.equal(form.expire.value, '120.08');
    assert.equal(form.expire.kept, '7205');
    assert.match(form.expire.note, /7,205 seconds/);
    assert.deepEqual(overrideFromFields({ expire_minutes: form.expire.value, expire_seconds: form.expire.kept }, DOCUMENT), { expire: 7205 });
    assert.deepEqual(overrideFromFields({ expire_minutes: '90', expire_seconds: form.expire.kept }, DOCUMENT), { expire: 5400 });
    assert.deepEqual(overrideFromFields({ expire_minutes: '1.5', expire_seconds: '' }, DOCUMENT), { expire: '1.5' }, 'refused by the rules, as typed');
    assert.equal(overrideForm(DOCUMENT, { expire: 7200 }, t).expire.note, '', 'whole minutes need no note');
  });

  it('the change history tells the validity as a duration', () => {
    assert.equal(describeChange({ path: 'expire', before: 7200, after: 5400 }, english).text, 'Link validity: 2 hours → 1 hour 30 minutes');
  });
});
