import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { createSettingsChangeLog } from '../../../src/exams/settings/changes.js';
import { createExamStore, type Exam } from '../../../src/exams/store.js';
import { deriveExamPages } from '../../../src/exams/settings/presets/lms.js';
import { parseAutoSubmitForm } from '../../../src/sandbox/demo-lms/index.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { assertNoSessionInLocation, authorize, continueFromNotice, followSessionContinue, launch, noticeFormOf, postIdToken } from '../../helpers/lti-flow.js';
import { hiddenField, pathOf } from '../../helpers/urls.js';

const CONTENT_ITEMS = 'https://purl.imsglobal.org/spec/lti-dl/claim/content_items';
const CUSTOM = 'https://purl.imsglobal.org/spec/lti/claim/custom';
const CONTEXT = 'https://purl.imsglobal.org/spec/lti/claim/context';
const RESOURCE_LINK = 'https://purl.imsglobal.org/spec/lti/claim/resource_link';

describe('deep linking and course copy through the demo LMS', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app.close();
  });

  const received = () => app.tool.sandbox!.emulator.received;

  it('round trip: content picker form, signed response, new link in the course, student launch with its settings', async () => {
    const lms = app.tool.sandbox!.demoLms;
    const linksBefore = lms.course.links.length;
    const { auth, response } = await launch(app, { user: 'instructor', kind: 'deep-linking', flavor: 'moodle', presentation: 'window' });
    assert.equal(response.status, 200, response.text.slice(0, 300));
    assert.match(response.text, /Add a proctored exam/);
    assert.match(response.text, /<option value="moodle" selected>/);

    // A refused form keeps what was typed and says what is wrong.
    const action = /<form method="post" action="([^"]+)"/.exec(response.text)?.[1] ?? '';
    const fields = { ltik: hiddenField(response.text, 'ltik'), _csrf: hiddenField(response.text, '_csrf') };
    const refused = await auth.agent.post(action).type('form').send({ ...fields, title: 'Statistics final', lms_preset: 'moodle', quiz_url: 'https://moodle.example.edu/course/view.php?id=2', security_preset: 'strict-lockdown' });
    assert.equal(refused.status, 422);
    assert.match(refused.text, /not a Moodle quiz address/);
    assert.match(refused.text, /value="Statistics final"/);
    assert.match(refused.text, /aria-invalid="true"/);

    const quizUrl = 'https://moodle.example.edu/mod/quiz/view.php?id=77';
    const created = await auth.agent.post(action).type('form').send({ ...fields, title: 'Statistics final', lms_preset: 'moodle', quiz_url: quizUrl, security_preset: 'strict-lockdown' });
    assert.equal(created.status, 200, created.text.slice(0, 400));
    const form = parseAutoSubmitForm(created.text);
    assert.ok(form?.fields.JWT, 'an auto-submitting form with the signed JWT');
    assert.equal(form.action, `${lms.registration.issuer}/deep-linking/return`);
    const claims = decodeJwt(form.fields.JWT);
    assert.equal(claims['https://purl.imsglobal.org/spec/lti/claim/message_type'], 'LtiDeepLinkingResponse');
    const [item] = claims[CONTENT_ITEMS] as Array<{ type: string; title: string; url: string; custom: Record<string, string> }>;
    assert.equal(item?.type, 'ltiResourceLink');
    assert.equal(item?.title, 'Statistics final');
    assert.equal(item?.url, `${app.baseUrl}/lti/launch`);
    const examId = item?.custom.proctor_exam_id ?? '';
    const exam = await createExamStore(app.db).get(examId);
    assert.ok(exam, 'the exam exists');
    assert.equal(exam.title, 'Statistics final');
    assert.equal((exam.settings as { launch_url: string }).launch_url, quizUrl);
    assert.equal((exam.settings as { exam_settings: { full_screen: number } }).exam_settings.full_screen, 3);

    // The LMS verifies the response against the tool's key set and adds the link.
    const back = await auth.agent.post(pathOf(form.action)).type('form').send({ JWT: form.fields.JWT });
    assert.equal(back.status, 303, back.text.slice(0, 300));
    assert.match(back.headers.location as string, /added=1/);
    assert.equal(lms.course.links.length, linksBefore + 1);
    const link = lms.course.links.at(-1)!;
    assert.equal(link.title, 'Statistics final');
    assert.equal(link.custom?.proctor_exam_id, examId);
    const replay = await auth.agent.post(pathOf(form.action)).type('form').send({ JWT: form.fields.JWT });
    assert.equal(replay.status, 400, 'a response is accepted once');

    // The first launch of the new link (the instructor checking it) claims the exam; the student gets its settings.
    const first = await launch(app, { user: 'instructor', linkId: link.id, flavor: 'moodle', presentation: 'window' });
    assert.ok(first.response.status < 500, first.response.text.slice(0, 300));
    const count = received().length;
    const student = await launch(app, { user: 'student', linkId: link.id, flavor: 'moodle', presentation: 'window' });
    assert.equal(student.response.status, 302, student.response.text.slice(0, 400));
    const call = received().slice(count).find((r) => r.endpoint === '/v2/candidate/launch');
    assert.ok(call);
    const body = call.body as { launch_url: string; exam_settings: { full_screen: number } };
    assert.equal(body.launch_url, quizUrl);
    assert.equal(body.exam_settings.full_screen, 3);
    const claimed = await createExamStore(app.db).get(examId);
    assert.equal(claimed?.resourceLinkId, link.id, 'the exam now belongs to the new resource link');
  });

  it('a student cannot open the content picker', async () => {
    const { response } = await launch(app, { user: 'student', kind: 'deep-linking', flavor: 'canvas', presentation: 'window' });
    assert.equal(response.status, 403);
    assert.doesNotMatch(response.text, /Add the exam to the course/);
  });

  /** What the LMS sends after copying the course: a new context and link id, the same custom parameters. */
  async function launchCopy(user: 'instructor' | 'student', sourceId: string, copy: { context: string; link: string; custom?: Record<string, string> }) {
    const lms = app.tool.sandbox!.demoLms;
    const auth = await authorize(app, { user, flavor: 'canvas', presentation: 'window' });
    const claims = {
      ...auth.claims,
      [CONTEXT]: { id: copy.context, label: 'STAT101-2027', title: 'Statistics (copy)' },
      [RESOURCE_LINK]: { id: copy.link, title: 'Midterm exam' },
      [CUSTOM]: { proctor_exam_id: sourceId, ...copy.custom },
    };
    const count = received().length;
    const posted = await postIdToken(auth, await lms.signIdToken(claims));
    assertNoSessionInLocation(posted);
    const answered = await followSessionContinue(auth.agent, posted);
    // A student's first launch of the exam in a window: the privacy notice, whose button goes on to the session.
    const final = noticeFormOf(answered) ? await continueFromNotice(auth.agent, answered) : answered;
    const candidateCall = received().slice(count).find((r) => r.endpoint === '/v2/candidate/launch');
    return { agent: auth.agent, final, candidateCall };
  }

  async function sourceExam() {
    const lms = app.tool.sandbox!.demoLms;
    const source = await createExamStore(app.db).find({ issuer: lms.registration.issuer, clientId: lms.registration.clientId, deploymentId: '1', contextId: lms.course.id, resourceLinkId: lms.course.exam.id });
    assert.ok(source?.settings);
    return source;
  }

  async function copiedExam(copy: { context: string; link: string }) {
    const lms = app.tool.sandbox!.demoLms;
    const exam = await createExamStore(app.db).find({ issuer: lms.registration.issuer, clientId: lms.registration.clientId, deploymentId: '1', contextId: copy.context, resourceLinkId: copy.link });
    assert.ok(exam);
    return exam;
  }

  /** The instructor's settings page of the copy, opened with the hub's "Edit settings" button. */
  async function settingsPage(agent: Awaited<ReturnType<typeof launchCopy>>['agent'], hubHtml: string) {
    const form = /<form method="post" action="([^"]+\/settings)">\s*<input type="hidden" name="ltik" value="([^"]+)">/.exec(hubHtml);
    assert.ok(form, 'the hub opens the settings page');
    const page = await agent.post(form[1]!).type('form').send({ ltik: form[2]! });
    assert.equal(page.status, 200);
    return page;
  }

  /** An exam of another course (`context`) of the demo LMS whose quiz is at `quizUrl` in an LMS of preset `presetId`. */
  async function sourceExamAt(context: string, presetId: string, quizUrl: string): Promise<Exam> {
    const lms = app.tool.sandbox!.demoLms;
    const demo = await sourceExam();
    const store = createExamStore(app.db);
    const exam = await store.ensure({ issuer: lms.registration.issuer, clientId: lms.registration.clientId, deploymentId: '1', contextId: context, resourceLinkId: `link-of-${context}` }, 'Final exam');
    const derived = deriveExamPages(presetId, quizUrl);
    assert.ok(derived.ok);
    await store.saveSettings(exam.id, { ...demo.settings!, ...derived.pages, tool: { ...demo.settings!.tool, lms_preset: presetId, quiz_url: quizUrl } });
    return (await store.get(exam.id))!;
  }

  /** The settings page's one-click form, when it has one. */
  const quizAddressForm = (html: string) => /<form method="post" action="([^"]+quiz-address)">\s*<input type="hidden" name="ltik" value="([^"]+)">\s*<input type="hidden" name="_csrf" value="([^"]+)">/.exec(html);

  it('course copy of a Moodle quiz: no one click confirms the original course\'s quiz; the page links this course\'s quizzes', async () => {
    const quizUrl = 'https://moodle.example.edu/mod/quiz/view.php?id=77';
    const source = await sourceExamAt('41', 'moodle', quizUrl);
    const copy = { context: '57', link: 'moodle-copied-link' };
    const instructor = await launchCopy('instructor', source.id, copy);
    assert.equal((await copiedExam(copy)).quizAddressCheck, true);
    const settings = await settingsPage(instructor.agent, instructor.final.text);
    assert.match(settings.text, /id="quiz-address-check"/);
    assert.equal(quizAddressForm(settings.text), null, 'no one-click confirmation of the other course\'s quiz');
    assert.match(settings.text, /id="other-course-quiz"/);
    assert.ok(settings.text.includes('href="https://moodle.example.edu/mod/quiz/index.php?id=57"'), 'the copy\'s course quiz list');

    // Posting the confirmation anyway changes nothing.
    const csrf = /name="csrf-token" content="([^"]+)"/.exec(settings.text)?.[1] ?? '';
    const ltik = /name="ltik" content="([^"]+)"/.exec(settings.text)?.[1] ?? '';
    const refused = await instructor.agent.post(`/lti/exams/${(await copiedExam(copy)).id}/settings/quiz-address`).type('form').send({ ltik, _csrf: csrf });
    assert.equal(refused.status, 409, refused.text.slice(0, 300));
    assert.equal((await copiedExam(copy)).quizAddressCheck, true);
  });

  it('a duplicate within the course keeps the one-click confirmation of its quiz address', async () => {
    const quizUrl = 'https://moodle.example.edu/mod/quiz/view.php?id=88';
    const source = await sourceExamAt('61', 'moodle', quizUrl);
    const copy = { context: '61', link: 'moodle-duplicated-link' };
    const instructor = await launchCopy('instructor', source.id, copy);
    const settings = await settingsPage(instructor.agent, instructor.final.text);
    const form = quizAddressForm(settings.text);
    assert.ok(form, 'the confirm form');
    assert.match(settings.text, /This is this course’s quiz address/);
    const confirmed = await instructor.agent.post(form[1]!).type('form').send({ ltik: form[2]!, _csrf: form[3]! });
    assert.equal(confirmed.status, 200, confirmed.text.slice(0, 300));
    const exam = await copiedExam(copy);
    assert.equal(exam.quizAddressCheck, false);
    assert.equal(exam.settings?.launch_url, quizUrl);
  });

  it('course copy of a Canvas quiz: with the Canvas course id the tool asks for, the page links the copy\'s quizzes', async () => {
    const source = await sourceExamAt('canvas-course-a', 'canvas-classic', 'https://canvas.example.edu/courses/12/quizzes/34');
    const copy = { context: 'canvas-course-b', link: 'canvas-copied-link', custom: { canvas_course_id: '991' } };
    const instructor = await launchCopy('instructor', source.id, copy);
    const settings = await settingsPage(instructor.agent, instructor.final.text);
    assert.equal(quizAddressForm(settings.text), null);
    assert.ok(settings.text.includes('href="https://canvas.example.edu/courses/991/quizzes"'), settings.text.slice(0, 2000));
  });

  it('course copy: the copy is marked "check the quiz address"; students see an ordinary not-ready page until an instructor confirms', async () => {
    const source = await sourceExam();
    const copy = { context: 'course-202-copy', link: 'copied-exam-link' };
    // The instructor opens the copied link first, as the launch service resolves exams for staff launches.
    const instructor = await launchCopy('instructor', source.id, copy);
    assert.equal(instructor.final.status, 200, instructor.final.text.slice(0, 300));
    assert.match(instructor.final.text, /data-quiz-address-check>Check the quiz address</);
    const exam = await copiedExam(copy);
    assert.notEqual(exam.id, source.id);
    assert.deepEqual(exam.settings, source.settings);
    assert.equal(exam.quizAddressCheck, true);

    const waiting = await launchCopy('student', source.id, copy);
    assert.equal(waiting.final.status, 409);
    assert.match(waiting.final.text, /This exam is not ready yet/);
    assert.doesNotMatch(waiting.final.text, /incident id/i, 'an ordinary page, not an incident');
    assert.doesNotMatch(waiting.final.text, /copied from another course/, 'the cause is for staff only');
    assert.equal(waiting.candidateCall, undefined, 'nothing is sent to the proctoring service');

    const settings = await settingsPage(instructor.agent, instructor.final.text);
    assert.match(settings.text, /id="quiz-address-check"/);
    assert.ok(settings.text.includes((source.settings as { launch_url: string }).launch_url));
    const form = /<form method="post" action="([^"]+quiz-address)">\s*<input type="hidden" name="ltik" value="([^"]+)">\s*<input type="hidden" name="_csrf" value="([^"]+)">/.exec(settings.text);
    assert.ok(form, 'the confirm form');
    const confirmed = await instructor.agent.post(form[1]!).type('form').send({ ltik: form[2]!, _csrf: form[3]! });
    assert.equal(confirmed.status, 200, confirmed.text.slice(0, 300));
    // The one click uses this course's quiz (the demo LMS names a quiz by its link), never the original's.
    const ownQuiz = `${app.tool.sandbox!.demoLms.registration.issuer}/quiz/${copy.link}`;
    assert.equal((await copiedExam(copy)).quizAddressCheck, false);
    assert.equal((await copiedExam(copy)).settings?.launch_url, ownQuiz);
    assert.match(confirmed.text, /id="settings-form"/, 'answered with the settings page');
    assert.doesNotMatch(confirmed.text, /id="quiz-address-check"/);

    const history = (await createSettingsChangeLog(app.db).recent(exam.id, 10)).map((entry) => ({ source: entry.source, marks: entry.changes.filter((c) => c.path === 'quiz_address_check') }));
    assert.deepEqual(history.map((h) => [h.source, h.marks.map((m) => m.after)]), [
      ['settings', [false]],
      ['course-copy', [true]],
    ]);

    const student = await launchCopy('student', source.id, copy);
    assert.equal(student.final.status, 302, student.final.text.slice(0, 400));
    assert.equal((student.candidateCall?.body as { launch_url: string }).launch_url, ownQuiz, 'the student is sent to this course\'s quiz');
  });

  it('course copy: an instructor replacing the quiz address clears the mark, and students launch on the new quiz', async () => {
    const source = await sourceExam();
    const copy = { context: 'course-303-copy', link: 'copied-exam-link-2' };
    const instructor = await launchCopy('instructor', source.id, copy);
    const exam = await copiedExam(copy);
    assert.equal(exam.quizAddressCheck, true);
    const settings = await settingsPage(instructor.agent, instructor.final.text);
    const csrf = /name="csrf-token" content="([^"]+)"/.exec(settings.text)?.[1] ?? '';
    const ltik = /name="ltik" content="([^"]+)"/.exec(settings.text)?.[1] ?? '';
    const lms = app.tool.sandbox!.demoLms;
    const newQuiz = `${lms.registration.issuer}/quiz/${copy.link}`;
    const derived = await instructor.agent.get('/lti/api/exam-pages').query({ preset: 'demo-lms', quiz_url: newQuiz }).set('Authorization', `Bearer ${ltik}`);
    assert.equal(derived.status, 200);
    const pages = (derived.body as { pages: Record<string, string> }).pages;
    const saved = await instructor.agent
      .put(`/lti/api/exams/${exam.id}/settings`)
      .set('Authorization', `Bearer ${ltik}`)
      .set('x-csrf-token', csrf)
      .send({ settings: { ...(exam.settings as object), ...pages, tool: { ...(exam.settings as { tool?: object }).tool, lms_preset: 'demo-lms', quiz_url: newQuiz } } });
    assert.equal(saved.status, 200, saved.text.slice(0, 400));
    assert.equal((await copiedExam(copy)).quizAddressCheck, false);

    const student = await launchCopy('student', source.id, copy);
    assert.equal(student.final.status, 302, student.final.text.slice(0, 400));
    assert.equal((student.candidateCall?.body as { launch_url: string }).launch_url, newQuiz);
  });
});
