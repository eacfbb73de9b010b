// Who may reach what: students never reach the hub, the reviewer or live launches; nobody reaches another
// course's exams, even with a valid session of another context; CSRF; forged and replayed tokens.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JWTPayload } from 'jose';
import supertest from 'supertest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { authorize, postIdToken } from '../../helpers/lti-flow.js';
import { callsDuring, CLAIMS, demoExam, hubForms, launchAs, mintCsrf, pressHubButton, setAgentCookie, type Launched } from '../../helpers/launches.js';
import { pathOf } from '../../helpers/urls.js';

const otherCourse = (claims: JWTPayload) => {
  claims[CLAIMS.context] = { id: 'course-202', label: 'BIO202', title: 'Biology 202', type: ['CourseSection'] };
};

describe('launch security', () => {
  let app: TestApp;
  let examId: string;
  let student: Launched;
  let instructor: Launched;

  before(async () => {
    app = await startTestApp();
    examId = (await demoExam(app)).id;
    // A course-level launch (the exam list) keeps a session, which its buttons post back.
    student = await launchAs(app, { user: 'student', flavor: 'canvas', kind: 'course', presentation: 'window' });
    assert.equal(student.response.status, 200);
    instructor = await launchAs(app, { user: 'instructor', flavor: 'canvas', presentation: 'window' });
    assert.equal(instructor.response.status, 200);
  });
  after(async () => {
    await app.close();
  });

  describe('students', () => {
    it("a launch redirected to the proctoring service leaves no session: its token opens nothing", async () => {
      // The student has seen the exam's privacy notice on the framed start page (a page without a session), so their
      // launch in a window is the redirect alone.
      const framed = await launchAs(app, { user: 'student', flavor: 'canvas', presentation: 'iframe' });
      assert.match(framed.response.text, /id="continue-link"/);
      const redirected = await launchAs(app, { user: 'student', flavor: 'canvas', presentation: 'window', stopAtNotice: true });
      assert.equal(redirected.response.status, 302);
      assert.ok(redirected.ltik, 'ltijs issued a session token');
      for (const path of ['/lti/launch', `/lti/hub/${examId}`]) {
        const { result, calls } = await callsDuring(app, () => redirected.agent.post(path).type('form').send({ ltik: redirected.ltik }));
        assert.equal(result.status, 401, path);
        assert.equal(calls.length, 0);
      }
    });

    it('cannot open the hub, even with their own valid session', async () => {
      const response = await student.agent.post(`/lti/hub/${examId}`).type('form').send({ ltik: student.ltik });
      assert.equal(response.status, 403);
      assert.doesNotMatch(response.text, /Open review center|data-roles-panel/);
    });

    for (const action of ['review', 'live'] as const) {
      it(`cannot POST ${action}, even with a valid CSRF token of their own session: 403, nothing sent`, async () => {
        const { result, calls } = await callsDuring(app, () => pressHubButton(student, action, { examId }));
        assert.equal(result.status, 403);
        assert.match(result.text, /Your role in this course may not (open the review center|monitor exams live)\./);
        assert.doesNotMatch(result.text, /For administrators/, 'no cause shown to students');
        assert.equal(calls.length, 0);
      });
    }

    it("cannot start another course's exam from a course-level list session", async () => {
      const elsewhere = await launchAs(app, { user: 'student', flavor: 'canvas', kind: 'course', presentation: 'window', claims: otherCourse });
      assert.equal(elsewhere.response.status, 200);
      const { result, calls } = await callsDuring(app, () => elsewhere.agent.post(`/lti/course/exams/${examId}/start`).type('form').send({ ltik: elsewhere.ltik }));
      assert.equal(result.status, 403);
      assert.match(result.text, /another course/);
      assert.equal(calls.length, 0);
    });
  });

  describe('staff of another course', () => {
    let foreign: Launched;
    before(async () => {
      // The same LMS, a valid instructor launch, but in course-202 (its own exam for this link id).
      foreign = await launchAs(app, { user: 'instructor', flavor: 'canvas', presentation: 'window', claims: otherCourse });
      assert.equal(foreign.response.status, 200, 'its own exam is new: settings first');
      assert.match(foreign.response.text, /Proctoring settings/);
    });

    it("cannot open course-101's hub", async () => {
      const response = await foreign.agent.post(`/lti/hub/${examId}`).type('form').send({ ltik: foreign.ltik });
      assert.equal(response.status, 403);
    });

    for (const action of ['review', 'live'] as const) {
      it(`cannot POST ${action} for course-101's exam with its valid session and CSRF token`, async () => {
        const minted = await mintCsrf(foreign.ltik);
        setAgentCookie(foreign.agent, minted.cookie);
        const { result, calls } = await callsDuring(app, () => foreign.agent.post(`/lti/hub/${examId}/${action}`).type('form').send({ ltik: foreign.ltik, _csrf: minted.token }));
        assert.equal(result.status, 403);
        assert.match(result.text, /another course/);
        assert.equal(calls.length, 0);
      });
    }

    it('an exam id that does not exist is 404, not a hint about other courses', async () => {
      const response = await foreign.agent.post('/lti/hub/00000000-0000-4000-8000-000000000000').type('form').send({ ltik: foreign.ltik });
      assert.equal(response.status, 404);
    });
  });

  describe('CSRF', () => {
    it('a hub POST without a token is refused (403)', async () => {
      const { result, calls } = await callsDuring(app, () => pressHubButton(instructor, 'review', { csrf: null }));
      assert.equal(result.status, 403);
      assert.match(result.text, /expired/);
      assert.equal(calls.length, 0);
    });

    it("a token of another session does not work for this one", async () => {
      const other = await launchAs(app, { user: 'ta', flavor: 'canvas', presentation: 'window' });
      const stolen = hubForms(instructor.response.text).csrf;
      const { result, calls } = await callsDuring(app, () => pressHubButton(other, 'review', { csrf: stolen }));
      assert.equal(result.status, 403);
      assert.equal(calls.length, 0);
    });

    it('a forged token is refused', async () => {
      const result = await pressHubButton(instructor, 'live', { csrf: 'forged-token' });
      assert.equal(result.status, 403);
    });
  });

  describe('forged and replayed tokens', () => {
    it('a tampered ltik (session token) is refused', async () => {
      const [header, payload, signature] = instructor.ltik.split('.');
      const tampered = `${header}.${payload}.${signature!.slice(0, -4)}AAAA`;
      const forms = hubForms(instructor.response.text);
      const response = await instructor.agent.post(`/lti/hub/${examId}/review`).type('form').send({ ltik: tampered, _csrf: forms.csrf });
      assert.equal(response.status, 401);
      const hub = await instructor.agent.post(`/lti/hub/${examId}`).type('form').send({ ltik: tampered });
      assert.equal(hub.status, 401);
    });

    it('a valid session token in a URL is refused: session tokens never travel in addresses', async () => {
      const forms = hubForms(instructor.response.text);
      const { result, calls } = await callsDuring(app, () =>
        instructor.agent.post(`/lti/hub/${examId}/review`).query({ ltik: instructor.ltik }).type('form').send({ _csrf: forms.csrf }),
      );
      assert.equal(result.status, 400);
      assert.match(result.text, /does not accept in addresses/);
      assert.equal(calls.length, 0);
      const launchWithQuery = await instructor.agent.get('/lti/launch').query({ ltik: instructor.ltik });
      assert.equal(launchWithQuery.status, 400);
    });

    it('no session at all is refused', async () => {
      const response = await instructor.agent.post(`/lti/hub/${examId}`);
      assert.equal(response.status, 401);
    });

    it('a replayed id_token is refused by its consumed nonce, even with the state cookie the browser had', async () => {
      // The framed start page records the exam's privacy notice as seen: the launch in a window is the redirect alone.
      const framed = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'iframe' });
      assert.match(framed.response.text, /id="continue-link"/);
      const auth = await authorize(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
      const first = await postIdToken(auth, auth.idToken);
      assert.equal(first.status, 302);
      // ltijs clears the state cookie after a launch; a captured post replayed by an attacker carries it again.
      const cookies = String((first as unknown as { req: { getHeader(name: string): unknown } }).req.getHeader('cookie') ?? '');
      assert.match(cookies, new RegExp(`state${auth.state}=`));
      const { calls, result } = await callsDuring(app, () =>
        supertest(app.baseUrl).post(pathOf(auth.redirectUri)).set('Cookie', cookies).type('form').send({ id_token: auth.idToken, state: auth.state }),
      );
      assert.equal(result.status, 401);
      assert.match(result.text, /already used or was not requested/);
      assert.equal(calls.length, 0);
    });

    it('an id_token whose roles were changed without the LMS signing them is refused', async () => {
      const demoLms = app.tool.sandbox!.demoLms;
      const login = await demoLms.initiateLogin({ user: 'student', flavor: 'canvas', presentation: 'window' });
      const agent = student.agent;
      const toLms = await agent.post(pathOf(login.url)).type('form').send(login.params);
      const auth = await agent.get(pathOf(toLms.headers.location as string));
      const idToken = /name="id_token" value="([^"]+)"/.exec(auth.text)?.[1] ?? '';
      const state = /name="state" value="([^"]+)"/.exec(auth.text)?.[1] ?? '';
      const [header, payload, signature] = idToken.split('.');
      const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as Record<string, unknown>;
      claims[CLAIMS.roles] = ['http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor'];
      const forged = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
      const action = /<form[^>]*action="([^"]+)"/.exec(auth.text)?.[1] ?? '';
      const { result, calls } = await callsDuring(app, () => agent.post(pathOf(action)).type('form').send({ id_token: forged, state }));
      assert.equal(result.status, 401);
      assert.match(result.text, /The sign-in message from your LMS could not be verified\./);
      assert.equal(calls.length, 0);
    });

    it('a forged return link cannot end an attempt', async () => {
      const launched = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
      assert.equal(launched.response.status, 302);
      const body = app.tool.sandbox!.emulator.received.at(-1)!.body as { attempt_id: string; redirect_settings: { graceful_submission_url: string } };
      const forged = await launched.agent.get(`/return/${body.attempt_id}/submitted?sig=${'A'.repeat(32)}`);
      assert.equal(forged.status, 403);
      // The signature of the graceful link does not work for the other outcome.
      const sig = new URL(body.redirect_settings.graceful_submission_url).searchParams.get('sig');
      const swapped = await launched.agent.get(`/return/${body.attempt_id}/ended?sig=${sig}`);
      assert.equal(swapped.status, 403);
      const state = await app.db.query<{ status: string }>('SELECT status FROM attempts WHERE id = $1', [body.attempt_id]);
      assert.equal(state.rows[0]?.status, 'started');
    });
  });

  it('a deep-linking launch is never treated as an exam launch', async () => {
    const { calls } = await callsDuring(app, () => launchAs(app, { user: 'instructor', flavor: 'moodle', kind: 'deep-linking', presentation: 'window' }));
    assert.equal(calls.length, 0);
  });
});
