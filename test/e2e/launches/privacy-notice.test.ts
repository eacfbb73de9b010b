// The student's privacy notice (the start page: what is recorded, checked and sent) on every launch path: a launch in
// a window of its own shows it the first time a student opens an exam, its button goes on to the session, and later
// launches go straight there; a framed launch shows it every time and records it; the course's exam list and LTI
// Proctoring Services' starts show it once too.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type supertest from 'supertest';
import { decodeJwt, SignJWT, type JWTPayload } from 'jose';
import { invalidateReadCaches } from '../../../src/db/read-cache.js';
import { deriveUserId } from '../../../src/lti/identifiers.js';
import { createExamStore, type Exam } from '../../../src/exams/store.js';
import { createAccommodationStore } from '../../../src/exams/accommodations/store.js';
import { installationSecret, startTestApp, TEST_ENCRYPTION_KEY, type TestApp } from '../../helpers/app.js';
import { loadCatalog, message } from '../../helpers/catalogs.js';
import { callsDuring, CLAIMS, emulator, launchAs, oneCall, retryOf } from '../../helpers/launches.js';
import { continueFromNotice, noticeFormOf } from '../../helpers/lti-flow.js';

const AP = 'https://purl.imsglobal.org/spec/lti-ap/claim/';

describe("the student's privacy notice", () => {
  let app: TestApp;
  let midterm: Exam;
  let secondExam: Exam;
  let secret: string;
  let students = 0;

  before(async () => {
    app = await startTestApp();
    secret = await installationSecret(app.db, 'pseudonyms');
    const lms = app.tool.sandbox!.demoLms;
    const exams = createExamStore(app.db);
    const key = { issuer: lms.registration.issuer, clientId: lms.registration.clientId, deploymentId: '1', contextId: lms.course.id };
    const found = await exams.find({ ...key, resourceLinkId: lms.course.exam.id });
    assert.ok(found?.settings, 'the sandbox set up its demo exam');
    midterm = found;
    lms.course.links.push({ id: 'exam-final', title: 'Final exam' });
    secondExam = await exams.ensure({ ...key, resourceLinkId: 'exam-final' }, 'Final exam');
    await exams.saveSettings(secondExam.id, found.settings);
    invalidateReadCaches();
  });
  after(async () => {
    await app.close();
  });

  /** A student of the demo course nobody has launched as yet (the LMS's `sub` is theirs alone). */
  const newStudent = () => {
    const sub = `privacy-student-${(students += 1)}`;
    return { sub, claims: (claims: JWTPayload) => void (claims.sub = sub) };
  };
  const userIdOf = (sub: string) => deriveUserId(secret, app.tool.sandbox!.demoLms.registration.issuer, sub);
  const recorded = async (exam: Exam, sub: string) =>
    (await app.db.query('SELECT 1 FROM privacy_notices WHERE exam_id = $1 AND user_id = $2', [exam.id, userIdOf(sub)])).rows.length === 1;
  const attempts = async (exam: Exam, sub: string) =>
    Number((await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM attempts WHERE exam_id = $1 AND user_id = $2', [exam.id, userIdOf(sub)])).rows[0]?.n);

  it("a first launch in a window shows the notice in the student's language, asks nothing of the Launch API, and its button leads to the session", async () => {
    const student = newStudent();
    const { result: first, calls } = await callsDuring(app, () => launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window', locale: 'es', claims: student.claims, stopAtNotice: true }));
    assert.equal(first.response.status, 200, first.response.text.slice(0, 300));
    assert.equal(calls.length, 0, 'no session is asked for before the student continues');
    assert.equal(await attempts(midterm, student.sub), 0, 'no attempt starts');
    assert.equal(await recorded(midterm, student.sub), false, 'not recorded until the student continues');
    const es = loadCatalog('es', 'student');
    const html = first.response.text;
    assert.match(html, /<html lang="es"/);
    assert.ok(html.includes(message(es, 'start.noticeOnce')), 'says, in Spanish, that it shows once');
    assert.ok(html.includes(`<h2 id="start-privacy">${message(es, 'start.privacyHeading')}</h2>`), 'the privacy section, in Spanish');
    assert.ok(html.includes(message(es, 'start.recordedHeading')), 'what is recorded, in Spanish');
    assert.ok(html.includes(`>${message(es, 'start.button')}</button>`), 'its button, in Spanish');
    const form = noticeFormOf(first.response);
    assert.ok(form, 'the button is a form');
    assert.equal(form.action, '/lti/notice/continue', 'the session token is a hidden field, never in the URL');
    assert.equal(form.fields.ltik, first.ltik);
    assert.doesNotMatch(html, /\/sandbox\/proctoring\//, 'no proctoring URL on the page');

    const continued = await oneCall(app, '/v2/candidate/launch', () => continueFromNotice(first.agent, first.response));
    assert.equal(continued.result.status, 302, continued.result.text.slice(0, 300));
    assert.match(String(continued.result.headers.location), /\/sandbox\/proctoring\/session\//);
    assert.equal(continued.body.user_id, userIdOf(student.sub));
    assert.equal(await recorded(midterm, student.sub), true, 'recorded once the student continued');

    const second = await oneCall(app, '/v2/candidate/launch', () => launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window', locale: 'es', claims: student.claims, stopAtNotice: true }));
    assert.equal(second.result.response.status, 302, 'the second launch goes straight to the session');
    assert.equal(second.result.notice, undefined);
    assert.equal(second.body.attempt_id, continued.body.attempt_id, 'the same attempt resumes');
  });

  it('a launch closed at the notice shows it again on the next launch', async () => {
    const student = newStudent();
    const first = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window', claims: student.claims, stopAtNotice: true });
    assert.ok(noticeFormOf(first.response));
    const again = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window', claims: student.claims, stopAtNotice: true });
    assert.ok(noticeFormOf(again.response), 'never continued: shown again');
  });

  it('another exam shows it again, and another student sees it too', async () => {
    const student = newStudent();
    const seen = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window', claims: student.claims });
    assert.ok(seen.notice, 'the first exam showed it');
    assert.equal(seen.response.status, 302);

    const otherExam = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window', linkId: 'exam-final', claims: student.claims, stopAtNotice: true });
    assert.ok(noticeFormOf(otherExam.response), 'another exam: the notice again');
    assert.match(otherExam.response.text, /Final exam/);
    assert.equal(await recorded(secondExam, student.sub), false);

    const otherStudent = newStudent();
    const other = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window', claims: otherStudent.claims, stopAtNotice: true });
    assert.ok(noticeFormOf(other.response), 'another student: the notice');
  });

  it('a framed launch shows the start page with its link every time and records the notice: a later launch in a window goes straight in', async () => {
    const student = newStudent();
    const framed = await oneCall(app, '/v2/candidate/launch', () => launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'iframe', claims: student.claims }));
    assert.equal(framed.result.response.status, 200);
    assert.match(framed.result.response.text, /<a id="continue-link" class="button primary start-button" href="[^"]*\/sandbox\/proctoring\/session\/[^"]*" target="_top"/);
    assert.equal(framed.result.notice, undefined, 'the framed page is the start page it always was');
    assert.equal(await recorded(midterm, student.sub), true);

    const framedAgain = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'iframe', claims: student.claims });
    assert.match(framedAgain.response.text, /id="continue-link"/, 'framed: the start page every time (its button moves the top window)');
    const window = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window', claims: student.claims, stopAtNotice: true });
    assert.equal(window.response.status, 302, 'seen in the frame: straight to the session');
  });

  it("the course's exam list: a first start shows the notice, whose button carries the exam on; the next start goes straight in", async () => {
    const student = newStudent();
    const list = await launchAs(app, { user: 'student', flavor: 'moodle', kind: 'course', presentation: 'window', claims: student.claims });
    assert.equal(list.response.status, 200);
    const start = (ltik: string) => list.agent.post(`/lti/course/exams/${midterm.id}/start`).type('form').send({ ltik });
    const { result: notice, calls } = await callsDuring(app, () => start(list.ltik));
    assert.equal(calls.length, 0);
    const form = noticeFormOf(notice);
    assert.ok(form, notice.text.slice(0, 300));
    assert.equal(form.fields.exam, midterm.id);
    const continued = await oneCall(app, '/v2/candidate/launch', () => continueFromNotice(list.agent, notice));
    assert.equal(continued.result.status, 302, continued.result.text.slice(0, 300));
    assert.equal(await recorded(midterm, student.sub), true);
    const again = await start(list.ltik);
    assert.equal(again.status, 302, 'the next start goes straight in');
  });

  it("LTI Proctoring Services: a first LtiStartProctoring in a window shows the notice; its button starts the session and binds the hand-off to this browser", async () => {
    const student = newStudent();
    const startProctoring = (claims: JWTPayload) => {
      student.claims(claims);
      claims['https://purl.imsglobal.org/spec/lti/claim/message_type'] = 'LtiStartProctoring';
      claims[CLAIMS.roles] = [];
      claims[CLAIMS.resourceLink] = { id: 'ap-privacy', title: 'Ultra quiz' };
      claims[`${AP}start_assessment_url`] = 'https://learn.example.edu/webapps/blackboard/execute/proctoring/startAssessment';
      claims[`${AP}session_data`] = 'platform-csrf-123';
      claims[`${AP}attempt_number`] = 1;
    };
    const { result: first, calls } = await callsDuring(app, () => launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window', claims: startProctoring, stopAtNotice: true }));
    assert.equal(calls.length, 0);
    assert.ok(noticeFormOf(first.response), first.response.text.slice(0, 300));
    assert.equal([first.response.headers['set-cookie'] ?? []].flat().some((cookie) => cookie.startsWith('lti_ap_')), false, 'no hand-off before the student continues');
    const continued = await oneCall(app, '/v2/candidate/launch', () => continueFromNotice(first.agent, first.response));
    assert.equal(continued.result.status, 302, continued.result.text.slice(0, 300));
    assert.ok([continued.result.headers['set-cookie'] ?? []].flat().some((cookie) => /^lti_ap_[0-9a-f]{32}=/.test(cookie) && /HttpOnly/i.test(cookie)), 'the hand-off cookie comes with the session');
    const again = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window', claims: startProctoring, stopAtNotice: true });
    assert.equal(again.response.status, 302, 'the next start goes straight to the session');
  });

  it('when the Launch API fails after the button, "Try again" posts the session (and the listed exam) to the button\'s address and goes straight on', async () => {
    const student = newStudent();
    const list = await launchAs(app, { user: 'student', flavor: 'moodle', kind: 'course', presentation: 'window', claims: student.claims });
    const notice = await list.agent.post(`/lti/course/exams/${midterm.id}/start`).type('form').send({ ltik: list.ltik });
    assert.ok(noticeFormOf(notice));
    emulator(app).faults.inject({ kind: 'status', status: 503, times: 1 });
    try {
      const failed = await continueFromNotice(list.agent, notice);
      assert.equal(failed.status, 502, failed.text.slice(0, 300));
      const retry = retryOf(failed.text);
      assert.ok(retry, 'a "Try again" button');
      assert.equal(retry.action, '/lti/notice/continue');
      assert.deepEqual(retry.fields, { ltik: list.ltik, exam: midterm.id });
      assert.equal(await recorded(midterm, student.sub), true, 'the notice was read: recorded before the session was asked for');
      const again = await oneCall(app, '/v2/candidate/launch', () => list.agent.post(retry.action).type('form').send(retry.fields));
      assert.equal(again.result.status, 302, again.result.text.slice(0, 300));
    } finally {
      emulator(app).faults.clear();
    }
  });

  it('the button needs the session: without its token nothing starts', async () => {
    const first = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window', claims: newStudent().claims, stopAtNotice: true });
    assert.ok(noticeFormOf(first.response));
    const { result: refused, calls } = await callsDuring(app, () => first.agent.post('/lti/notice/continue').type('form').send({}));
    assert.ok(refused.status === 401 || refused.status === 400, `refused: ${refused.status}`);
    assert.equal(calls.length, 0, 'nothing is asked of the Launch API');
    const inUrl = await first.agent.post(`/lti/notice/continue?ltik=${encodeURIComponent(first.ltik)}`).type('form').send({});
    assert.ok(inUrl.status >= 400, `a token in the URL is refused: ${inUrl.status}`);
  });

  it('the notice stores no session and its button reads none: the token it carries is checked by its signature and age', async () => {
    const student = newStudent();
    const ltijsDocuments = async () => Number((await app.db.query<{ n: number }>("SELECT count(*)::int AS n FROM ltijs_documents WHERE doc->>'user' = $1", [student.sub])).rows[0]?.n);
    const first = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window', claims: student.claims, stopAtNotice: true });
    const form = noticeFormOf(first.response);
    assert.ok(form, first.response.text.slice(0, 300));
    assert.equal(await ltijsDocuments(), 0, 'the notice wrote no ltijs session');

    // A token signed with another key, or older than a session may be, starts nothing.
    const payload = decodeJwt(form.fields.ltik!);
    const forged = await new SignJWT(payload).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode('another-key-0123456789-abcdefghijklmnopqrstuv'));
    const stale = await new SignJWT({ ...payload, iat: Math.floor(Date.now() / 1000) - app.config.lti.sessionMaxAgeSeconds - 60 })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .sign(new TextEncoder().encode(TEST_ENCRYPTION_KEY));
    for (const [label, ltik] of [['another key', forged], ['too old', stale], ['not a token', 'not-a-token']] as const) {
      const post = async (): Promise<supertest.Response> => first.agent.post(form.action).type('form').send({ ...form.fields, ltik });
      const { result: refused, calls } = await callsDuring(app, post);
      assert.equal(refused.status, 401, `${label}: ${refused.status} ${refused.text.slice(0, 200)}`);
      assert.equal(calls.length, 0, `${label}: nothing is asked of the Launch API`);
    }
    assert.equal(await recorded(midterm, student.sub), false);

    const continued = await continueFromNotice(first.agent, first.response);
    assert.equal(continued.status, 302, continued.text.slice(0, 300));
    assert.equal(await recorded(midterm, student.sub), true);
    assert.equal(await ltijsDocuments(), 0, 'the button read no ltijs session and its redirect stored none');
  });

  it('a student exempted from proctoring gets no notice (nothing is recorded or sent)', async () => {
    const student = newStudent();
    const set = await createAccommodationStore(app.db).set(midterm.id, userIdOf(student.sub), { exempt: true }, { userId: 'teacher' });
    assert.ok(set.ok, JSON.stringify(set));
    invalidateReadCaches();
    const exempt = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window', claims: student.claims, stopAtNotice: true });
    assert.equal(exempt.response.status, 302, exempt.response.text.slice(0, 300));
  });
});
