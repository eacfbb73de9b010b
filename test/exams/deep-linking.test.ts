import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { createExamStore } from '../../src/exams/store.js';
import { parseAutoSubmitForm } from '../../src/sandbox/demo-lms/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { authorize, launch, postIdToken } from '../helpers/lti-flow.js';

const CONTENT_ITEMS = 'https://purl.imsglobal.org/spec/lti-dl/claim/content_items';
const CUSTOM = 'https://purl.imsglobal.org/spec/lti/claim/custom';
const CONTEXT = 'https://purl.imsglobal.org/spec/lti/claim/context';
const RESOURCE_LINK = 'https://purl.imsglobal.org/spec/lti/claim/resource_link';

const hidden = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';
const pathOf = (url: string) => {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
};

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
    const fields = { ltik: hidden(response.text, 'ltik'), _csrf: hidden(response.text, '_csrf') };
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

  it('course copy: a link copied into another course gets a copy of the exam settings', async () => {
    const lms = app.tool.sandbox!.demoLms;
    const exams = createExamStore(app.db);
    const source = await exams.find({ issuer: lms.registration.issuer, clientId: lms.registration.clientId, deploymentId: '1', contextId: lms.course.id, resourceLinkId: lms.course.exam.id });
    assert.ok(source?.settings);

    // What the LMS sends after copying the course: a new context and link id, the same custom parameters.
    // The instructor opens the copied link first, as the launch service resolves exams for staff launches.
    const copied = async (user: 'instructor' | 'student') => {
      const auth = await authorize(app, { user, flavor: 'canvas', presentation: 'window' });
      const claims = {
        ...auth.claims,
        [CONTEXT]: { id: 'course-202-copy', label: 'STAT101-2027', title: 'Statistics (copy)' },
        [RESOURCE_LINK]: { id: 'copied-exam-link', title: 'Midterm exam' },
        [CUSTOM]: { proctor_exam_id: source.id },
      };
      const posted = await postIdToken(auth, await lms.signIdToken(claims));
      assert.equal(posted.status, 302, posted.text.slice(0, 300));
      return auth.agent.get(posted.headers.location as string);
    };
    const instructorView = await copied('instructor');
    assert.ok(instructorView.status < 500, instructorView.text.slice(0, 300));
    const auth = await authorize(app, { user: 'student', flavor: 'canvas', presentation: 'window' });
    const claims = {
      ...auth.claims,
      [CONTEXT]: { id: 'course-202-copy', label: 'STAT101-2027', title: 'Statistics (copy)' },
      [RESOURCE_LINK]: { id: 'copied-exam-link', title: 'Midterm exam' },
      [CUSTOM]: { proctor_exam_id: source.id },
    };
    const count = received().length;
    const posted = await postIdToken(auth, await lms.signIdToken(claims));
    assert.equal(posted.status, 302, posted.text.slice(0, 300));
    const final = await auth.agent.get(posted.headers.location as string);
    assert.equal(final.status, 302, final.text.slice(0, 400));
    const call = received().slice(count).find((r) => r.endpoint === '/v2/candidate/launch');
    assert.ok(call, 'the student is sent to the proctoring service, not to an empty exam');
    const copy = await exams.find({ issuer: lms.registration.issuer, clientId: lms.registration.clientId, deploymentId: '1', contextId: 'course-202-copy', resourceLinkId: 'copied-exam-link' });
    assert.ok(copy);
    assert.notEqual(copy.id, source.id);
    assert.deepEqual(copy.settings, source.settings);
    assert.equal((call.body as { launch_url: string }).launch_url, (source.settings as { launch_url: string }).launch_url);
  });
});
