// The demo LMS's Learn Ultra-like flavour runs LTI Proctoring Services end to end against the tool: the learner's
// launch is an LtiStartProctoring, the emulator's launch_url is the tool's hand-off page, whose LtiStartAssessment
// the demo LMS verifies strictly before its quiz opens; submitting the quiz sends LtiEndAssessment.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { parseAutoSubmitForm } from '../../../src/sandbox/demo-lms/index.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { callsDuring } from '../../helpers/launches.js';
import { continueFromNotice, noticeFormOf } from '../../helpers/lti-flow.js';
import { pathOf } from '../../helpers/urls.js';

let app: TestApp;
before(async () => {
  app = await startTestApp();
});
after(async () => {
  await app.close();
});

type Agent = ReturnType<typeof supertest.agent>;

/** Posts an auto-submitting form as the browser would, and follows redirects within the app. */
async function submit(agent: Agent, html: string): Promise<supertest.Response> {
  const form = parseAutoSubmitForm(html);
  assert.ok(form, `an auto-submitting form: ${html.slice(0, 300)}`);
  return follow(agent, await agent.post(pathOf(form.action)).type('form').send(form.fields));
}

async function follow(agent: Agent, response: supertest.Response): Promise<supertest.Response> {
  let current = response;
  for (let hops = 0; hops < 5 && (current.status === 302 || current.status === 303); hops++) {
    const location = String(current.headers.location);
    if (!location.startsWith(app.baseUrl) && !location.startsWith('/')) return current;
    current = await agent.get(location.startsWith('/') ? location : pathOf(location));
  }
  return current;
}

/**
 * The demo LMS launch of the exam by `user` in the Learn Ultra-like flavour, up to the tool's answer to the id_token (on
 * the student's first start of the exam, to the privacy notice's button, which starts the session).
 */
async function ultraLaunch(agent: Agent, user: string) {
  const examId = app.tool.sandbox!.demoLms.course.exam.id;
  const toLogin = await agent.get(`/sandbox/lms/launch?launch=resource:${user}:${encodeURIComponent(examId)}&flavor=ultra&presentation=window`);
  assert.equal(toLogin.status, 302);
  const authorize = await agent.get(pathOf(String(toLogin.headers.location)));
  assert.equal(authorize.status, 302, authorize.text.slice(0, 300));
  const form = await agent.get(pathOf(String(authorize.headers.location)));
  assert.equal(form.status, 200, form.text.slice(0, 300));
  const idToken = parseAutoSubmitForm(form.text);
  assert.ok(idToken);
  const posted = await agent.post(pathOf(idToken.action)).type('form').send(idToken.fields);
  return noticeFormOf(posted) ? continueFromNotice(agent, posted) : posted;
}

describe('demo LMS: LTI Proctoring Services (Learn Ultra-like)', () => {
  it('starts, returns with a verified LtiStartAssessment, opens the quiz, and ends with LtiEndAssessment', async () => {
    const agent = supertest.agent(app.baseUrl);
    const { result: launched, calls } = await callsDuring(app, () => ultraLaunch(agent, 'student'));
    assert.equal(launched.status, 302, launched.text.slice(0, 300));
    assert.equal(calls.length, 1);
    const request = calls[0]!.body as Record<string, unknown>;
    const handoff = String(request.launch_url);
    assert.match(handoff, /\/proctoring\/start-assessment\//);
    assert.match(String(request.exam_take), /sandbox\\\/lms\\\/quiz|sandbox\/lms\/quiz/);

    // The proctoring service's checks passed: the browser reaches launch_url.
    const page = await agent.get(pathOf(handoff));
    assert.equal(page.status, 200, page.text.slice(0, 300));
    const quiz = await submit(agent, page.text);
    assert.equal(quiz.status, 200, quiz.text.slice(0, 400));
    assert.match(quiz.text, /data-proctored-attempt/, 'the demo LMS accepted the LtiStartAssessment and opened the quiz');

    // The same message again is refused (its session data and nonce are used up).
    const again = await agent.post('/sandbox/lms/proctoring/start-assessment').type('form').send(parseAutoSubmitForm(page.text)!.fields);
    assert.equal(again.status, 400);

    // Submitting ends the attempt: LtiEndAssessment through the tool's login.
    const attemptField = /name="attempt" value="([^"]+)"/.exec(quiz.text)?.[1];
    assert.ok(attemptField);
    const submitted = await agent.post(pathOf(`${app.baseUrl}/sandbox/lms/quiz/${encodeURIComponent(app.tool.sandbox!.demoLms.course.exam.id)}/attempt`)).type('form').send({ attempt: attemptField, q0: '7' });
    assert.equal(submitted.status, 200, submitted.text.slice(0, 300));
    const toLogin = parseAutoSubmitForm(submitted.text);
    assert.ok(toLogin, 'an auto-submitting login initiation');
    const login = await agent.post(pathOf(toLogin.action)).type('form').send(toLogin.fields);
    assert.equal(login.status, 302, login.text.slice(0, 300));
    const idTokenPage = await agent.get(pathOf(String(login.headers.location)));
    const ended = await submit(agent, idTokenPage.text);
    assert.equal(ended.status, 200, ended.text.slice(0, 300));
    assert.match(ended.text, /You are back from the tool/, 'the tool returned the student to the course');
    const attempt = await app.db.query<{ status: string; lti_attempt_number: number }>('SELECT status, lti_attempt_number FROM attempts WHERE id = $1', [String(request.attempt_id)]);
    assert.deepEqual(attempt.rows[0], { status: 'submitted', lti_attempt_number: 1 });
  });

  it('refuses a forged LtiStartAssessment', async () => {
    const refused = await supertest(app.baseUrl).post('/sandbox/lms/proctoring/start-assessment').type('form').send({ JWT: 'eyJhbGciOiJub25lIn0.e30.' });
    assert.equal(refused.status, 400);
    assert.match(refused.text, /refused/);
  });
});
