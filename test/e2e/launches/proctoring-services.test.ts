// LTI Proctoring Services 1.0: LtiStartProctoring → the Launch API with the tool's hand-off page as launch_url →
// LtiStartAssessment signed back to the platform → LtiEndAssessment; refusals, the browser binding, the hub.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import supertest from 'supertest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { callsDuring, CLAIMS, launchAs, oneCall, ROLES, settingsPageExamId, withRoles } from '../../helpers/launches.js';
import { pathOf } from '../../helpers/urls.js';

const AP = 'https://purl.imsglobal.org/spec/lti-ap/claim/';
const MESSAGE_TYPE = 'https://purl.imsglobal.org/spec/lti/claim/message_type';
const START_URL = 'https://learn.example.edu/webapps/blackboard/execute/proctoring/startAssessment';

describe('LTI Proctoring Services', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app.close();
  });

  const upstreamCalls = () => app.tool.sandbox?.emulator.received.length ?? 0;

  /** Turns the demo LMS's launch into a platform's LtiStartProctoring for assessment `linkId`. */
  const startProctoring = (linkId: string, attemptNumber: number, edit?: (claims: JWTPayload) => void) => (claims: JWTPayload) => {
    claims[MESSAGE_TYPE] = 'LtiStartProctoring';
    claims[CLAIMS.roles] = [];
    claims[CLAIMS.resourceLink] = { id: linkId, title: 'Midterm (Ultra)' };
    claims[`${AP}start_assessment_url`] = START_URL;
    claims[`${AP}session_data`] = 'platform-csrf-123';
    claims[`${AP}attempt_number`] = attemptNumber;
    edit?.(claims);
  };

  const endAssessment = (linkId: string, attemptNumber: number, edit?: (claims: JWTPayload) => void) => (claims: JWTPayload) => {
    claims[MESSAGE_TYPE] = 'LtiEndAssessment';
    claims[CLAIMS.roles] = [];
    claims[CLAIMS.resourceLink] = { id: linkId };
    claims[`${AP}attempt_number`] = attemptNumber;
    edit?.(claims);
  };

  async function refused(edit: (claims: JWTPayload) => void) {
    const calls = upstreamCalls();
    const { response } = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window', claims: startProctoring('ap-refused', 1, edit) });
    assert.ok(response.status === 400 || response.status === 401, `expected a refusal, got ${response.status}`);
    assert.match(response.text, /incident id/);
    assert.equal(upstreamCalls(), calls, 'nothing is sent to the Launch API');
  }

  describe('refusals', () => {
    it('a start without start_assessment_url', async () => {
      await refused((c) => delete c[`${AP}start_assessment_url`]);
    });
    it('a start without session_data', async () => {
      await refused((c) => delete c[`${AP}session_data`]);
    });
    it('a start whose attempt_number is a string', async () => {
      await refused((c) => (c[`${AP}attempt_number`] = '1'));
    });
    it('a start without a resource link', async () => {
      await refused((c) => delete c[CLAIMS.resourceLink]);
    });
  });

  describe('the candidate launch', () => {
    it('roles [] is a candidate; launch_url is the hand-off page; the same attempt number resumes, a new one starts anew', async () => {
      const first = await oneCall(app, '/v2/candidate/launch', () => launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window', claims: startProctoring('ap-midterm', 1) }));
      assert.equal(first.result.response.status, 302, first.result.response.text.slice(0, 300));
      const body = first.body;
      assert.match(String(body.launch_url), new RegExp(`^${app.baseUrl}/proctoring/start-assessment/[0-9a-f-]{36}$`));
      assert.ok(new RegExp(String(body.exam_start)).test(String(body.launch_url)), 'exam_start matches launch_url');
      assert.ok(body.exam_settings, 'a never-seen assessment runs with the platform defaults');
      const cookies = [first.result.response.headers['set-cookie'] ?? []].flat();
      assert.ok(cookies.some((cookie) => /^lti_ap_[0-9a-f]{32}=/.test(cookie) && /HttpOnly/i.test(cookie) && /Path=\/proctoring\/start-assessment\//.test(cookie)), `hand-off cookie: ${cookies.join(' | ')}`);

      const again = await oneCall(app, '/v2/candidate/launch', () => launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window', claims: startProctoring('ap-midterm', 1) }));
      assert.equal(again.body.attempt_id, body.attempt_id, 'a reload of the same attempt resumes it');
      assert.notEqual(again.body.launch_url, body.launch_url, 'each start has its own hand-off');

      const second = await oneCall(app, '/v2/candidate/launch', () => launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window', claims: startProctoring('ap-midterm', 2) }));
      assert.notEqual(second.body.attempt_id, body.attempt_id, 'a new attempt number is a new proctoring attempt');
      const earlier = await app.db.query<{ status: string }>('SELECT status FROM attempts WHERE id = $1', [body.attempt_id]);
      assert.equal(earlier.rows[0]?.status, 'ended', 'the unfinished earlier attempt ends');
    });

    it('the hand-off signs LtiStartAssessment for the browser of the attempt, once', async () => {
      const { result, body } = await oneCall(app, '/v2/candidate/launch', () =>
        launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window', claims: startProctoring('ap-final', 3) }),
      );
      const handoff = pathOf(String(body.launch_url));

      const stranger = await supertest.agent(app.baseUrl).get(handoff);
      assert.equal(stranger.status, 403, 'another browser (no cookie) is refused');
      assert.doesNotMatch(stranger.text, /name="JWT"/);

      const page = await result.agent.get(handoff);
      assert.equal(page.status, 200, page.text.slice(0, 300));
      const form = /<form method="post" action="([^"]+)" data-start-assessment>\s*<input type="hidden" name="JWT" value="([^"]+)">/.exec(page.text);
      assert.ok(form, 'an auto-posting form with the field JWT');
      assert.equal(form[1], START_URL);
      const registration = app.tool.sandbox!.demoLms.registration;
      const keys = createRemoteJWKSet(new URL(`${app.baseUrl}/lti/keys`));
      const { payload, protectedHeader } = await jwtVerify(form[2]!, keys, { issuer: registration.clientId, audience: registration.issuer, algorithms: ['RS256'] });
      assert.ok(protectedHeader.kid, 'the header names the key');
      assert.equal(payload[MESSAGE_TYPE], 'LtiStartAssessment');
      assert.equal(payload['https://purl.imsglobal.org/spec/lti/claim/version'], '1.3.0');
      assert.equal(payload[CLAIMS.deploymentId], result.claims[CLAIMS.deploymentId]);
      assert.deepEqual(payload[CLAIMS.resourceLink], { id: 'ap-final', title: 'Midterm (Ultra)' });
      assert.equal(payload[`${AP}session_data`], 'platform-csrf-123');
      assert.equal(payload[`${AP}attempt_number`], 3);
      assert.equal(payload[`${AP}end_assessment_return`], true);
      assert.equal(typeof payload.nonce, 'string');
      assert.ok(typeof payload.exp === 'number' && typeof payload.iat === 'number' && payload.exp > payload.iat && payload.exp - payload.iat <= 600);

      const replay = await result.agent.get(handoff);
      assert.equal(replay.status, 409, 'a hand-off is used once');
      assert.doesNotMatch(replay.text, /name="JWT"/);
    });
  });

  describe('the end of the assessment and the hub', () => {
    it('LtiEndAssessment ends the attempt of that number; the platform error is kept for staff; the hub lists the attempt', async () => {
      const started = await oneCall(app, '/v2/candidate/launch', () => launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window', claims: startProctoring('ap-quiz', 1) }));
      const attemptId = String(started.body.attempt_id);

      const { result } = await callsDuring(app, () =>
        launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window', claims: endAssessment('ap-quiz', 1, (c) => (c[`${AP}errormsg`] = 'Webcam lost during the attempt')) }),
      );
      assert.ok(result.response.status === 200 || result.response.status === 303, `end answered ${result.response.status}`);
      const row = await app.db.query<{ status: string; platform_error: string | null }>('SELECT status, platform_error FROM attempts WHERE id = $1', [attemptId]);
      assert.equal(row.rows[0]?.status, 'submitted');
      assert.equal(row.rows[0]?.platform_error, 'Webcam lost during the attempt');

      const instructor = await launchAs(app, {
        user: 'instructor',
        flavor: 'moodle',
        presentation: 'window',
        claims: (c) => {
          withRoles(ROLES.instructor)(c);
          c[CLAIMS.resourceLink] = { id: 'ap-quiz', title: 'Midterm (Ultra)' };
        },
      });
      // A first launch of an assessment nobody set up opens its settings; the hub is one step on.
      const examId = settingsPageExamId(instructor.response);
      const hub = await instructor.agent.post(`/lti/hub/${examId}`).type('form').send({ ltik: instructor.ltik });
      assert.equal(hub.status, 200, hub.text.slice(0, 300));
      assert.match(hub.text, new RegExp(`data-attempt="${attemptId}"`), 'the hub lists the attempt');
      assert.match(hub.text, /LMS attempt 1/);
      assert.match(hub.text, /The LMS reported: Webcam lost during the attempt/, 'staff see the platform error');
    });
  });
});
