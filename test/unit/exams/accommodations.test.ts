import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { applyOverride } from '../../../src/exams/accommodations/override.js';
import { createAccommodationStore, type AccommodationStore } from '../../../src/exams/accommodations/store.js';
import { createSettingsChangeLog } from '../../../src/exams/settings/changes.js';
import type { ExamSettingsDocument } from '../../../src/exams/settings/document.js';
import { SETTINGS_DOCUMENT_VERSION } from '../../../src/exams/settings/versions.js';
import { createExamStore } from '../../../src/exams/store.js';
import { EXAM_SETTINGS_OFF } from '../../../src/proctoring/contract.js';
import { migratedTestDatabase, type TestDatabase } from '../../helpers/db.js';

const QUIZ = 'https://moodle.example.edu/mod/quiz/view.php?id=42';
const DOCUMENT: ExamSettingsDocument = {
  version: SETTINGS_DOCUMENT_VERSION,
  launch_url: QUIZ,
  exam_start: '^https://moodle\\.example\\.edu/mod/quiz/(view|startattempt)\\.php.*',
  exam_take: '^https://moodle\\.example\\.edu/mod/quiz/(attempt|summary|processattempt|startattempt)\\.php.*',
  exam_end: '^https://moodle\\.example\\.edu/mod/quiz/review\\.php.*',
  exam_settings: { ...EXAM_SETTINGS_OFF, record_video: true, verify_video: true, record_audio: true },
  expire: 3600,
};

describe('an accommodation laid over the exam settings', () => {
  it('changes exactly the overridden values', () => {
    const result = applyOverride(DOCUMENT, { exam_settings: { record_audio: false }, expire: 7200 });
    assert.ok(result.ok);
    assert.deepEqual(result.effective.exam_settings, { ...DOCUMENT.exam_settings, record_audio: false });
    assert.equal(result.effective.expire, 7200);
    assert.equal(result.effective.launch_url, DOCUMENT.launch_url);
    assert.deepEqual(result.override, { exam_settings: { record_audio: false }, expire: 7200 });
  });

  it('is refused with the rule message when the result breaks a prerequisite', () => {
    const result = applyOverride(DOCUMENT, { exam_settings: { record_video: false } });
    assert.equal(result.ok, false);
    assert.ok(!result.ok && result.violations.some((v) => v.rule === 'verify_video_requires_record_video'), JSON.stringify(result));
  });

  it('refuses fields that are not exam settings and a non-boolean exemption', () => {
    const result = applyOverride(DOCUMENT, { launch_url: 'https://evil.example', exam_settings: { nope: true }, exempt: 'yes' });
    assert.ok(!result.ok);
    assert.deepEqual(result.violations.map((v) => v.path).sort(), ['exam_settings.nope', 'exempt', 'launch_url']);
  });

  it('refuses values outside the contract (link validity)', () => {
    const result = applyOverride(DOCUMENT, { expire: -5 });
    assert.ok(!result.ok && result.violations.some((v) => v.path === 'expire'));
  });

  it('keeps an exemption', () => {
    const result = applyOverride(DOCUMENT, { exempt: true });
    assert.ok(result.ok);
    assert.deepEqual(result.override, { exempt: true });
  });
});

describe('the accommodations store', () => {
  let db: TestDatabase;
  let store: AccommodationStore;
  before(async () => {
    db = await migratedTestDatabase();
    store = createAccommodationStore(db);
  });
  after(() => db.close());

  let exams = 0;
  async function newExam(): Promise<string> {
    exams += 1;
    const examStore = createExamStore(db);
    const exam = await examStore.ensure({ issuer: 'https://lms.example', clientId: 'c', deploymentId: 'd', contextId: 'course', resourceLinkId: `link-${exams}` }, `Midterm ${exams}`);
    await examStore.saveSettings(exam.id, DOCUMENT);
    return exam.id;
  }

  it('saves, lists, records history and removes an override by pseudonymous id', async () => {
    const examId = await newExam();
    const saved = await store.set(examId, 'student-pseudonym-1', { exam_settings: { record_audio: false } }, { userId: 'teacher' });
    assert.ok(saved.ok);
    assert.deepEqual((await store.list(examId)).map((a) => [a.userId, a.override]), [['student-pseudonym-1', { exam_settings: { record_audio: false } }]]);
    const history = await createSettingsChangeLog(db).recent(examId, 5);
    assert.deepEqual(history[0]?.changes, [{ path: 'accommodations.student-pseudonym-1.exam_settings.record_audio', before: null, after: false }]);
    assert.equal(history[0]?.userId, 'teacher');

    assert.equal(await store.remove(examId, 'student-pseudonym-1', { userId: 'teacher' }), true);
    assert.deepEqual(await store.list(examId), []);
    const afterRemove = await createSettingsChangeLog(db).recent(examId, 5);
    assert.deepEqual(afterRemove[0]?.changes, [{ path: 'accommodations.student-pseudonym-1.exam_settings.record_audio', before: false, after: null }]);
  });

  it('loses nothing when an override is refused', async () => {
    const examId = await newExam();
    assert.ok((await store.set(examId, 's2', { expire: 5400 }, {})).ok);
    const refused = await store.set(examId, 's2', { exam_settings: { record_video: false } }, {});
    assert.equal(refused.ok, false);
    assert.deepEqual(await store.get(examId, 's2'), { expire: 5400 });
  });
});

describe('an accommodation in the change history', () => {
  const id = '9a9ba1e4-aa39-86d5-8445-5c6ebd73691f';
  it('names the student by the name the roster gives when the page is built, and the setting in words', async () => {
    const { describeChange } = await import('../../../src/exams/settings/history.js');
    const names = new Map([[id, 'María José Núñez']]);
    const d = describeChange({ path: `accommodations.${id}.exam_settings.record_audio`, before: null, after: false }, undefined, names);
    assert.equal(`${d.label}: ${d.before} → ${d.after}`, 'Accommodation for María José Núñez — Record audio: not set → off');
    const e = describeChange({ path: `accommodations.${id}.exempt`, before: null, after: true }, undefined, names);
    assert.equal(`${e.label}: ${e.before} → ${e.after}`, 'Accommodation for María José Núñez — Exempt from proctoring: not set → on');
  });

  it('without names, the start of the pseudonymous id stands in', async () => {
    const { describeChange } = await import('../../../src/exams/settings/history.js');
    const d = describeChange({ path: `accommodations.${id}.expire`, before: 600, after: null });
    assert.equal(`${d.label}: ${d.before} → ${d.after}`, 'Accommodation for 9a9ba1e4 — Link validity: 10 minutes → not set');
  });

  it('needs names only for accommodations and other people\'s changes', async () => {
    const { historyNeedsNames } = await import('../../../src/exams/settings/history.js');
    const at = new Date();
    assert.equal(historyNeedsNames([{ at, userId: 'me', source: 'settings', changes: [{ path: 'expire', before: 1, after: 2 }] }], 'me'), false);
    assert.equal(historyNeedsNames([{ at, userId: 'someone', source: 'settings', changes: [] }], 'me'), true);
    assert.equal(historyNeedsNames([{ at, userId: 'me', source: 'settings', changes: [{ path: `accommodations.${id}.exempt`, before: null, after: true }] }], 'me'), true);
  });
});
