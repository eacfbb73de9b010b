// Accommodations from the hub to the proctoring request: chosen by name, saved with CSRF and every settings
// rule, carried exactly in the student's candidate request, an exemption straight to the quiz, a change of the
// exam that breaks an accommodation caught before anything is sent, and who may do it.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { openDemoExamSettings } from '../../helpers/settings-page.js';
import { callsDuring, demoExam, derived, launchAs, oneCall, ROLES, saveExamSettings, withRoles, type Launched } from '../../helpers/launches.js';
import { invalidateReadCaches } from '../../../src/db/read-cache.js';

const STUDENT_NAME = 'María José Núñez';

describe('accommodations in the hub and in the candidate request', () => {
  let app: TestApp;
  let examId: string;
  let settings: Record<string, unknown>;
  let examSettings: Record<string, unknown>;
  let studentId: string;
  let hub: Launched;

  const fieldsOf = (html: string, form: string): Record<string, string> => {
    const found = new RegExp(`<form[^>]*${form}[^>]*>([\\s\\S]*?)</form>`).exec(html);
    assert.ok(found, `a form ${form} on the page`);
    const fields: Record<string, string> = {};
    for (const m of found[1]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[m[1]!] = m[2]!;
    return fields;
  };
  const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

  async function openHub(): Promise<Launched> {
    const launched = await launchAs(app, { user: 'instructor', presentation: 'window' });
    assert.equal(launched.response.status, 200);
    assert.match(launched.response.text, /data-accommodations/);
    return launched;
  }

  async function save(fields: Record<string, string>, withCsrf = true) {
    const editor = await hub.agent.post(`/lti/hub/${examId}/accommodations/edit`).type('form').send({ ltik: hub.ltik, student: studentId });
    assert.equal(editor.status, 200, editor.text.slice(0, 300));
    const body: Record<string, string> = { ltik: hub.ltik, student: studentId, ...fields };
    if (withCsrf) body._csrf = csrfOf(editor.text);
    return hub.agent.post(`/lti/hub/${examId}/accommodations/save`).type('form').send(body);
  }

  const studentLaunch = () => launchAs(app, { user: 'student', presentation: 'window' });
  const stored = async () => (await app.db.query<{ override: Record<string, unknown> }>('SELECT override FROM exam_accommodations WHERE exam_id = $1 AND user_id = $2', [examId, studentId])).rows[0]?.override;

  before(async () => {
    app = await startTestApp();
    const exam = await demoExam(app);
    examId = exam.id;
    assert.ok(exam.settings);
    const base = exam.settings;
    examSettings = { ...(base.exam_settings as Record<string, unknown>), record_video: true, verify_video: true, record_audio: true, verify_audio: false, calculator: 0, whiteboard: false };
    settings = { ...base, exam_settings: examSettings };
    delete settings.break_settings;
    await saveExamSettings(app, examId, settings);
    const issuer = app.tool.sandbox!.demoLms.registration.issuer;
    studentId = (await derived(app)).userId(issuer, '5');
    hub = await openHub();
  });
  after(async () => {
    await app.close();
  });
  beforeEach(async () => {
    await app.db.query('DELETE FROM exam_accommodations');
    invalidateReadCaches(); // written with SQL: this process's cached exam reads see it at once
    await saveExamSettings(app, examId, settings);
  });

  it('the hub lists the course members by name to choose from, and none has an accommodation yet', async () => {
    const page = (await openHub()).response.text;
    assert.match(page, /data-no-accommodations/);
    const options = /<select id="accommodation-student"[^>]*>([\s\S]*?)<\/select>/.exec(page)?.[1] ?? '';
    assert.match(options, new RegExp(`<option value="${studentId}">${STUDENT_NAME}</option>`));
    assert.doesNotMatch(page, /data-accommodation-names-unavailable/);
  });

  it('the editor shows each setting as "same as the exam" with the exam\'s value', async () => {
    const editor = await hub.agent.post(`/lti/hub/${examId}/accommodations/edit`).type('form').send({ ltik: hub.ltik, student: studentId });
    assert.equal(editor.status, 200);
    assert.match(editor.text, new RegExp(`<h1>Accommodation for ${STUDENT_NAME}</h1>`));
    const audio = /<select id="o-record_audio"[^>]*>([\s\S]*?)<\/select>/.exec(editor.text)?.[1] ?? '';
    assert.match(audio, /<option value="" selected>Same as the exam \(on\)<\/option>/);
    assert.match(editor.text, /name="_csrf"/);
    assert.match(editor.text, /<label for="expire">Minutes for this student \(empty: same as the exam, [^)]+\)<\/label>/, 'link validity in minutes');
    assert.match(editor.text, /data-time-limit>Time limits and extra time are set on the quiz in your LMS/, 'where extra time is given');
  });

  it('saves an accommodation and the student\'s candidate request carries exactly the overridden values', async () => {
    const saved = await save({ 'exam_settings.record_audio': 'off', 'exam_settings.calculator': '1', 'exam_settings.whiteboard': 'on', breaks: 'custom', 'break_settings.number': '3', 'break_settings.duration': '15', expire_minutes: '120' });
    assert.equal(saved.status, 200, /<div class="errors"[\s\S]*?<\/div>/.exec(saved.text)?.[0]);
    assert.match(saved.text, new RegExp(`data-notice>The accommodation for ${STUDENT_NAME} is saved.`));
    const row = new RegExp(`<tr data-accommodation="${studentId}"[\\s\\S]*?</tr>`).exec(saved.text)?.[0] ?? '';
    assert.match(row, new RegExp(`<span data-name>${STUDENT_NAME}</span>`));
    assert.match(row, /Record audio: off/);
    assert.match(row, /Breaks: 3 breaks of 15 minutes/);
    assert.match(row, /Link validity: 2 hours/, 'link validity in hours, entered in minutes');
    assert.deepEqual(await stored(), { exam_settings: { record_audio: false, calculator: 1, whiteboard: true }, break_settings: { number: 3, duration: 15 }, expire: 7200 });

    const { body } = await oneCall(app, '/v2/candidate/launch', studentLaunch);
    assert.deepEqual(body.exam_settings, { ...examSettings, record_audio: false, calculator: 1, whiteboard: true });
    assert.deepEqual(body.break_settings, { number: 3, duration: 15 });
    assert.equal(body.expire, 7200);

    const history = await app.db.query<{ changes: Array<{ path: string }> }>('SELECT changes FROM exam_settings_changes WHERE exam_id = $1 ORDER BY id DESC LIMIT 1', [examId]);
    assert.deepEqual(history.rows[0]?.changes.map((c) => c.path).sort(), [
      `accommodations.${studentId}.break_settings.duration`,
      `accommodations.${studentId}.break_settings.number`,
      `accommodations.${studentId}.exam_settings.calculator`,
      `accommodations.${studentId}.exam_settings.record_audio`,
      `accommodations.${studentId}.exam_settings.whiteboard`,
      `accommodations.${studentId}.expire`,
    ]);
    // The settings page's recent changes name the student from the roster (names are never stored).
    const settingsPage = await hub.agent.post(`/lti/exams/${examId}/settings`).type('form').send({ ltik: hub.ltik });
    assert.equal(settingsPage.status, 200);
    assert.match(settingsPage.text, new RegExp(`Accommodation for ${STUDENT_NAME} — Record audio`));
    assert.doesNotMatch(JSON.stringify((await app.db.query('SELECT changes FROM exam_settings_changes')).rows), new RegExp(STUDENT_NAME));
  });

  it('other students keep the exam\'s own settings', async () => {
    await save({ 'exam_settings.record_audio': 'off' });
    const { body } = await oneCall(app, '/v2/candidate/launch', () => launchAs(app, { user: 'test-student', presentation: 'window' }));
    assert.deepEqual(body.exam_settings, examSettings);
  });

  const refusals: Array<[string, Record<string, string>, string, RegExp]> = [
    ['a prerequisite broken by the override', { 'exam_settings.record_video': 'off' }, 'exam_settings.verify_video', /./],
    ['too many breaks', { breaks: 'custom', 'break_settings.number': '99', 'break_settings.duration': '10' }, 'break_settings.number', /Number of breaks/],
    ['a break duration that is no number', { breaks: 'custom', 'break_settings.number': '2', 'break_settings.duration': 'long' }, 'break_settings.duration', /Break duration/],
    ['a link validity out of range', { expire_minutes: '99999' }, 'expire', /./],
    ['nothing chosen', {}, '', /at least one change/],
  ];
  for (const [what, fields, path, message] of refusals) {
    it(`refuses ${what}: the editor again with the message, nothing saved`, async () => {
      const answer = await save(fields);
      assert.equal(answer.status, 422, answer.text.slice(0, 300));
      const error = new RegExp(`<li data-error-path="${path.replace(/\./g, '\\.')}">([^<]*)</li>`).exec(answer.text);
      assert.ok(error, `an error at '${path}' in ${/<div class="errors"[\s\S]*?<\/div>/.exec(answer.text)?.[0]}`);
      assert.match(error[1]!, message);
      assert.equal(await stored(), undefined);
    });
  }

  it('refuses a save without the CSRF token', async () => {
    const answer = await save({ 'exam_settings.record_audio': 'off' }, false);
    assert.equal(answer.status, 403);
    assert.equal(await stored(), undefined);
  });

  it('an exempted student goes straight to the quiz: no proctoring request, the attempt and the hub say so', async () => {
    const saved = await save({ exempt: 'on' });
    assert.equal(saved.status, 200, saved.text.slice(0, 300));
    const { result, calls } = await callsDuring(app, studentLaunch);
    assert.deepEqual(calls, [], 'nothing is sent to the proctoring service');
    assert.equal(result.response.status, 302);
    assert.equal(result.response.headers.location, settings.launch_url);
    const attempts = await app.db.query<{ exempt: boolean }>('SELECT exempt FROM attempts WHERE exam_id = $1 AND user_id = $2', [examId, studentId]);
    assert.deepEqual(attempts.rows.map((r) => r.exempt), [true]);
    const page = (await openHub()).response.text;
    assert.match(page, /data-exempt-attempt/);
    assert.match(page, /Sent to the quiz without proctoring/);
  });

  it('a framed launch of an exempted student gets a start page that opens the quiz, not the proctoring wording', async () => {
    await save({ exempt: 'on' });
    const { result, calls } = await callsDuring(app, () => launchAs(app, { user: 'student', presentation: 'iframe' }));
    assert.deepEqual(calls, []);
    assert.equal(result.response.status, 200);
    assert.match(result.response.text, /data-exempt/);
    assert.match(result.response.text, new RegExp(`href="${String(settings.launch_url).replace(/[.?]/g, '\\$&')}" target="_top"`));
    assert.doesNotMatch(result.response.text, /data-start-recorded/);
  });

  it('an exam change that breaks an accommodation: the student gets "not ready", nothing is sent, the hub says what to fix', async () => {
    const accepted = await save({ 'exam_settings.verify_audio': 'on' });
    assert.equal(accepted.status, 200, /<div class="errors"[\s\S]*?<\/div>/.exec(accepted.text)?.[0]);
    await saveExamSettings(app, examId, { ...settings, exam_settings: { ...examSettings, record_audio: false } });
    const { result, calls } = await callsDuring(app, studentLaunch);
    assert.deepEqual(calls, []);
    assert.equal(result.response.status, 409);
    assert.match(result.response.text, /updating the arrangements made for you/);
    const page = (await openHub()).response.text;
    assert.match(page, /data-accommodation-problem><strong>Needs attention:<\/strong> &#39;Verify microphone&#39; needs &#39;Record audio&#39;/);
  });

  it('a settings save that makes an accommodation unfit is not blocked, and its answer says how many need attention', async () => {
    assert.equal((await save({ 'exam_settings.verify_audio': 'on' })).status, 200);
    const { instructor } = await openDemoExamSettings(app);
    // Students launched above: the save confirms how many attempts ran under the settings it changes.
    const attempts = (await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM attempts WHERE exam_id = $1', [examId])).rows[0]?.n ?? 0;
    const put = (document: Record<string, unknown>) =>
      instructor.agent
        .put(`/lti/api/exams/${examId}/settings`)
        .set('Authorization', `Bearer ${instructor.ltik}`)
        .set('x-csrf-token', instructor.csrf)
        .set('x-confirm-attempts', String(attempts))
        .send({ settings: document, status: 'open' });
    const fits = await put(settings);
    assert.equal(fits.status, 200, JSON.stringify(fits.body));
    assert.equal(fits.body.accommodationWarning, undefined);
    const unfit = await put({ ...settings, exam_settings: { ...examSettings, record_audio: false } });
    assert.equal(unfit.status, 200, JSON.stringify(unfit.body));
    assert.match(String(unfit.body.accommodationWarning), /^1 student’s accommodation no longer fits these settings/);
  });

  it('removes an accommodation: the student gets the exam\'s settings again, the history records it', async () => {
    await save({ 'exam_settings.record_audio': 'off' });
    const opened = await openHub();
    const fields = fieldsOf(opened.response.text, 'accommodations/remove"');
    assert.equal(fields.student, studentId);
    const removed = await opened.agent.post(`/lti/hub/${examId}/accommodations/remove`).type('form').send(fields);
    assert.equal(removed.status, 200);
    assert.match(removed.text, /is removed\./);
    assert.equal(await stored(), undefined);
    const { body } = await oneCall(app, '/v2/candidate/launch', studentLaunch);
    assert.deepEqual(body.exam_settings, examSettings);
    const history = await app.db.query<{ changes: Array<{ path: string; before: unknown; after: unknown }> }>('SELECT changes FROM exam_settings_changes WHERE exam_id = $1 ORDER BY id DESC LIMIT 1', [examId]);
    assert.deepEqual(history.rows[0]?.changes, [{ path: `accommodations.${studentId}.exam_settings.record_audio`, before: false, after: null }]);
  });

  it('students and roles that may not change settings cannot open or save accommodations', async () => {
    // A course-level launch (the exam list) keeps a session; a redirected exam launch keeps none.
    const student = await launchAs(app, { user: 'student', kind: 'course', presentation: 'window' });
    const asStudent = await student.agent.post(`/lti/hub/${examId}/accommodations/edit`).type('form').send({ ltik: student.ltik, student: studentId });
    assert.equal(asStudent.status, 403);
    // By default the institution does not let teaching assistants change exam settings: no accommodations either.
    const ta = await launchAs(app, { user: 'instructor', presentation: 'window', claims: withRoles(ROLES.ta) });
    assert.equal(ta.response.status, 200);
    assert.doesNotMatch(ta.response.text, /data-accommodations/);
    const asTa = await ta.agent.post(`/lti/hub/${examId}/accommodations/edit`).type('form').send({ ltik: ta.ltik, student: studentId });
    assert.equal(asTa.status, 403);
    assert.match(asTa.text, /may not change exam settings/);
  });

  it('refuses an editor without a valid student', async () => {
    const answer = await hub.agent.post(`/lti/hub/${examId}/accommodations/edit`).type('form').send({ ltik: hub.ltik, student: 'not-a-student' });
    assert.equal(answer.status, 400);
    assert.match(answer.text, /Choose a student/);
  });

});
