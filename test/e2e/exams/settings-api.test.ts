import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createExamStore, type Exam, type ExamKey } from '../../../src/exams/store.js';
import { createInstitutionSettingsStore } from '../../../src/institution/settings.js';
import type { ExamSettingsDocument } from '../../../src/exams/settings/document.js';
import { candidateFieldsOf } from '../../helpers/proctoring.js';
import { SETTINGS_DOCUMENT_VERSION } from '../../../src/exams/settings/versions.js';
import { EXAM_SETTINGS_OFF } from '../../../src/proctoring/contract.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { launch, type Agent } from '../../helpers/lti-flow.js';
import { openDemoExamSettings, type SettingsInstructor } from '../../helpers/settings-page.js';

const MOODLE_PAGES = {
  launch_url: 'https://moodle.example.edu/mod/quiz/view.php?id=42',
  exam_start: '^https://moodle\\.example\\.edu/mod/quiz/(view|startattempt)\\.php.*',
  exam_take: '^https://moodle\\.example\\.edu/mod/quiz/(attempt|summary|processattempt|startattempt)\\.php.*',
  exam_end: '^https://moodle\\.example\\.edu/mod/quiz/review\\.php.*',
};

describe('exam settings JSON API', () => {
  let app: TestApp;
  let exam: Exam;
  let key: ExamKey;
  let instructor: SettingsInstructor;

  before(async () => {
    app = await startTestApp();
    ({ exam, key, instructor } = await openDemoExamSettings(app));
  });
  after(async () => {
    await app.close();
  });

  const put = (who: { agent: Agent; ltik: string; csrf?: string }, examId: string, body: unknown) => {
    const request = who.agent.put(`/lti/api/exams/${examId}/settings`).set('Authorization', `Bearer ${who.ltik}`).set('Accept', 'application/json');
    if (who.csrf) request.set('x-csrf-token', who.csrf);
    return request.send(body as object);
  };
  const getSettings = (who: { agent: Agent; ltik: string }, examId: string) =>
    who.agent.get(`/lti/api/exams/${examId}/settings`).set('Authorization', `Bearer ${who.ltik}`);

  it('the settings view shows every group, preset and field with labels', async () => {
    const page = await instructor.agent.post(`/lti/exams/${exam.id}/settings`).type('form').send({ ltik: instructor.ltik });
    assert.equal(page.status, 200);
    for (const text of ['Recording', 'Verification', 'Lockdown', 'Tools and devices', 'Advanced detection', 'Moodle quiz', 'Canvas Classic Quizzes', 'Strict lockdown', 'Breaks', 'Availability for students']) {
      assert.ok(page.text.includes(text), text);
    }
    const fresh = await createExamStore(app.db).ensure({ ...key, resourceLinkId: 'not-configured-yet' }, 'New exam');
    const freshPage = await instructor.agent.post(`/lti/exams/${fresh.id}/settings`).type('form').send({ ltik: instructor.ltik });
    assert.equal(freshPage.status, 200);
    assert.match(freshPage.text, /<option value="moodle" selected>/, 'the Moodle preset is pre-selected for a Moodle launch');
    assert.match(freshPage.text, /not set up yet/);
    assert.equal((page.text.match(/name="exam_settings\./g) ?? []).length >= 30, true);
    assert.doesNotMatch(page.text, /<script>(?!<)/, 'no inline scripts');
    const labels = [...page.text.matchAll(/<(label|legend)\b[^>]*>([\s\S]*?)<\/\1>/g)].map((m) => m[2]!.replace(/<[^>]*>/g, ' '));
    assert.ok(labels.length > 60, 'every control has a label');
    for (const label of labels) assert.doesNotMatch(label, /\b[a-z]+_[a-z_]+\b/, `the label '${label.trim()}' is in words, not an API member name`);
    assert.ok(labels.some((label) => label.includes('Break duration (minutes)')), 'the break duration states its unit');
  });

  it('an impossible combination posted straight to the API is refused with field errors, and nothing changes', async () => {
    const before = await getSettings(instructor, exam.id);
    const document = {
      ...MOODLE_PAGES,
      exam_start: '^https://elsewhere\\.example/.*',
      exam_settings: { ...EXAM_SETTINGS_OFF, full_screen: 3, record_desk: 1, verify_id: 2, mobile: true },
      break_settings: { number: 11, duration: 10 },
    };
    const response = await put(instructor, exam.id, { settings: document, status: 'open' });
    assert.equal(response.status, 422, response.text);
    assert.equal(response.body.error, 'invalid_settings');
    const violations = response.body.violations as Array<{ path: string; rule: string; message: string }>;
    const byPath = (path: string) => violations.filter((v) => v.path === path).map((v) => v.rule);
    assert.ok(byPath('exam_settings.full_screen').includes('full_screen_requires_lockdown'));
    assert.ok(byPath('exam_settings.record_desk').includes('record_desk_requires_video'));
    assert.ok(byPath('exam_settings.verify_id').includes('verify_id_2_requires_video'));
    assert.ok(byPath('exam_settings.mobile').includes('mobile_excludes_verify_id_2'));
    assert.ok(byPath('exam_settings.mobile').includes('mobile_requires_pre_auth'));
    assert.ok(byPath('exam_start').includes('exam_start_must_match_launch_url'));
    assert.ok(byPath('break_settings.number').includes('range'));
    for (const v of violations) assert.ok(v.message.length > 10, `a sentence for ${v.path}`);
    const afterwards = await getSettings(instructor, exam.id);
    assert.deepEqual(afterwards.body, before.body);
  });

  it('refuses a save without the CSRF token', async () => {
    const response = await put({ agent: instructor.agent, ltik: instructor.ltik }, exam.id, { settings: { ...MOODLE_PAGES, exam_settings: EXAM_SETTINGS_OFF } });
    assert.equal(response.status, 403);
    assert.equal(response.body.error, 'csrf');
  });

  it('saves valid settings, records who changed what, and the student launch sends exactly them', async () => {
    const document: ExamSettingsDocument = {
      version: SETTINGS_DOCUMENT_VERSION,
      ...MOODLE_PAGES,
      exam_settings: { ...EXAM_SETTINGS_OFF, record_video: true, verify_video: true, record_desk: 1, allowed_macos_apps: ['com.apple.calculator'] },
      behavior_settings: { frame_metrics: { keystrokes: 4 } },
      break_settings: { number: 2, duration: 5, cumulative: false, on_time_exceeded: 1, desk_scan_after_break: true },
      expire: 3600,
      tool: { lms_preset: 'moodle', quiz_url: MOODLE_PAGES.launch_url, security_preset: 'standard', redirect: 'lms' },
    };
    const response = await put(instructor, exam.id, { settings: document, status: 'open' });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body.settings, document);
    const stored = await createExamStore(app.db).get(exam.id);
    assert.deepEqual(stored?.settings, document);

    const history = await instructor.agent.get(`/lti/api/exams/${exam.id}/settings/history`).set('Authorization', `Bearer ${instructor.ltik}`);
    assert.equal(history.status, 200);
    const latest = history.body.changes[0] as { userId: string; source: string; changes: Array<{ path: string; after: unknown }> };
    assert.match(latest.userId, /^[0-9a-f-]{36}$/, 'a pseudonymous user id, never a name');
    assert.equal(latest.source, 'settings');
    assert.ok(latest.changes.some((c) => c.path === 'exam_settings.record_desk' && c.after === 1));

    const emulator = app.tool.sandbox!.emulator;
    const count = emulator.received.length;
    const student = await launch(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
    assert.equal(student.response.status, 302, student.response.text.slice(0, 300));
    const call = emulator.received.slice(count).find((r) => r.endpoint === '/v2/candidate/launch');
    assert.ok(call, 'the candidate endpoint was called');
    const body = call.body as Record<string, unknown>;
    for (const [field, value] of Object.entries(candidateFieldsOf(document))) assert.deepEqual(body[field], value, field);
  });

  it('closing the exam is saved with the settings and shown to students', async () => {
    const current = (await getSettings(instructor, exam.id)).body as { settings: ExamSettingsDocument };
    const response = await put(instructor, exam.id, { settings: current.settings, status: 'closed' });
    assert.equal(response.status, 200, response.text);
    assert.equal((await createExamStore(app.db).get(exam.id))?.status, 'closed');
    const reopened = await put(instructor, exam.id, { settings: current.settings, status: 'open' });
    assert.equal(reopened.status, 200);
  });

  it('a student gets 403 JSON from the API and 403 from the view', async () => {
    // A course-level launch (the exam list) keeps a session; a redirected exam launch keeps none.
    const { auth, ltik } = await launch(app, { user: 'student', flavor: 'moodle', kind: 'course', presentation: 'window' });
    const api = await getSettings({ agent: auth.agent, ltik }, exam.id);
    assert.equal(api.status, 403);
    assert.equal(api.body.error, 'forbidden');
    const saved = await put({ agent: auth.agent, ltik, csrf: 'x' }, exam.id, { settings: {} });
    assert.equal(saved.status, 403);
    const view = await auth.agent.post(`/lti/exams/${exam.id}/settings`).type('form').send({ ltik: ltik });
    assert.equal(view.status, 403);
    assert.doesNotMatch(view.text, /settings-form/);
  });

  it("a teaching assistant may edit only where the institution allows it", async () => {
    const lms = app.tool.sandbox!.demoLms;
    const institutions = createInstitutionSettingsStore(app.db);
    const { auth, ltik } = await launch(app, { user: 'ta', flavor: 'canvas', presentation: 'window' });
    const ta = { agent: auth.agent, ltik };
    try {
      assert.equal((await getSettings(ta, exam.id)).status, 403);
      await institutions.update(lms.registration.issuer, lms.registration.clientId, { teachingAssistantsMayEdit: true });
      const allowed = await getSettings(ta, exam.id);
      assert.equal(allowed.status, 200, allowed.text);
    } finally {
      await institutions.update(lms.registration.issuer, lms.registration.clientId, { teachingAssistantsMayEdit: false });
    }
  });

  it("an instructor of another course gets 403 for this course's exam", async () => {
    const other = await createExamStore(app.db).ensure({ ...key, contextId: 'course-999', resourceLinkId: 'elsewhere' }, 'Another course exam');
    const api = await getSettings(instructor, other.id);
    assert.equal(api.status, 403);
    assert.equal(api.body.error, 'forbidden');
    const saved = await put(instructor, other.id, { settings: { ...MOODLE_PAGES, exam_settings: EXAM_SETTINGS_OFF } });
    assert.equal(saved.status, 403);
    assert.equal((await createExamStore(app.db).get(other.id))?.settings, null);
  });

  it('an unknown exam id is 404 for staff; no session is 401', async () => {
    const missing = await getSettings(instructor, '00000000-0000-4000-8000-000000000000');
    assert.equal(missing.status, 404);
    const garbage = await getSettings(instructor, 'not-a-uuid');
    assert.equal(garbage.status, 404);
    const anonymous = await instructor.agent.get(`/lti/api/exams/${exam.id}/settings`);
    assert.equal(anonymous.status, 401);
  });

  it('derives exam pages for the form', async () => {
    const response = await instructor.agent
      .get('/lti/api/exam-pages')
      .query({ preset: 'moodle', quiz_url: MOODLE_PAGES.launch_url })
      .set('Authorization', `Bearer ${instructor.ltik}`);
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { ok: true, pages: MOODLE_PAGES });
  });
});
