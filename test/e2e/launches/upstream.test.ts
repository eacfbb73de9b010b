// Upstream failures (the emulator's fault injection): students get a retry page with an incident id and no
// cause; the retry needs no new LMS launch; staff get the cause (401 codes explained); nothing hangs; a
// request the contract refuses is shown to staff as the field messages.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { EXAM_SETTINGS_OFF } from '../../../src/proctoring/contract.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { callsDuring, demoExam, emulator, incidentOf, launchAs, launchLog, pressHubButton, retryOf, saveExamSettings, type Launched } from '../../helpers/launches.js';
import { unauthorized } from '../../helpers/proctoring.js';

const TIMEOUT_MS = 800;


describe('upstream failures', () => {
  let app: TestApp;
  let exam: { id: string; settings: Record<string, unknown> | null };

  before(async () => {
    app = await startTestApp({ PROCTORING_TIMEOUT_MS: String(TIMEOUT_MS) });
    exam = await demoExam(app);
    // The student has seen the exam's privacy notice: their launches below ask the Launch API in the id_token POST.
    await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
  });
  afterEach(() => {
    emulator(app).faults.clear();
  });
  after(async () => {
    await app.close();
  });

  /**
   * The service's error codes and key names never reach a student's page. Checked on the page without its random
   * parts (the incident id, the session token of the retry form), which may hold such digits by chance.
   */
  const assertNamesNoCredentialOrCode = (html: string) =>
    assert.doesNotMatch(html.replace(/value="[^"]*"/g, 'value=""').replace(/<code>[0-9a-f-]{36}<\/code>/g, '<code></code>'), /2154|2155|2655|api_key|api key/i);

  function expectStudentRetryPage(launched: Launched, status: number) {
    const html = launched.response.text;
    assert.equal(launched.response.status, status, html.slice(0, 300));
    assert.match(html, /could not be started just now/);
    assert.doesNotMatch(html, /For administrators/, 'students never see the cause');
    assertNamesNoCredentialOrCode(html);
    const incident = incidentOf(html);
    assert.ok(incident, 'the page shows an incident id');
    const retry = retryOf(html);
    assert.ok(retry, 'the page has a "Try again" button');
    assert.equal(retry.action, '/lti/launch');
    assert.equal(retry.fields.ltik, launched.ltik, 'the retry carries the session, not a new LMS launch');
    return { incident, retry };
  }

  describe('students', () => {
    const faults = [
      { name: '503 from the service', fault: { kind: 'status' as const, status: 503, times: 1 }, status: 502 },
      { name: 'a dropped connection', fault: { kind: 'drop' as const, times: 2 }, status: 502 },
      { name: 'an unusable answer', fault: { kind: 'body' as const, shape: 'garbage' as const, times: 1 }, status: 502 },
    ];
    for (const { name, fault, status } of faults) {
      it(`${name}: retry page with incident id, recorded with the cause`, async () => {
        emulator(app).faults.inject(fault);
        const launched = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
        const { incident } = expectStudentRetryPage(launched, status);
        const last = (await launchLog(app)).at(-1)!;
        assert.deepEqual([last.outcome, last.endpoint, last.incident_id, last.role], ['upstream_error', 'candidate', incident, 'candidate']);
        assert.match(last.error_code ?? '', /^upstream_/);
      });
    }

    for (const code of [2154, 2155, 2655]) {
      it(`401 ${code} (the account is refused): says who can fix it, no "try again"`, async () => {
        emulator(app).faults.inject(unauthorized(code));
        const launched = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
        const html = launched.response.text;
        assert.equal(launched.response.status, 502);
        assert.match(html, /<h1>The proctoring account is not set up correctly<\/h1>/);
        assert.match(html, /tell your instructor, who can ask the LMS administrator/);
        assert.doesNotMatch(html, /could not be reached|try again in a moment|For administrators/);
        assertNamesNoCredentialOrCode(html);
        assert.equal(retryOf(html), undefined, 'no "Try again" button');
        assert.ok(incidentOf(html));
        assert.equal((await launchLog(app)).at(-1)?.outcome, 'upstream_error');
      });
    }

    // The emulator holds its answer four times the client's timeout: a 504 naming the timeout shows the tool gave up first.
    it('a service that does not answer: 504 well before any hang, with a retry', async () => {
      emulator(app).faults.inject({ kind: 'latency', ms: TIMEOUT_MS * 4, times: 1 });
      const launched = await launchAs(app, { user: 'student', flavor: 'canvas', presentation: 'window' });
      expectStudentRetryPage(launched, 504);
      assert.equal((await launchLog(app)).at(-1)?.error_code, 'upstream_timeout');
    });

    it('"Try again" re-runs the launch from the session alone and resumes the same attempt', async () => {
      emulator(app).faults.inject({ kind: 'status', status: 500, times: 1 });
      const launched = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
      const { retry } = expectStudentRetryPage(launched, 502);
      const failedAttempt = (emulator(app).received.at(-1)!.body as { attempt_id: string }).attempt_id;
      // The same browser submits the page's form: no LMS involved.
      const { result, calls } = await callsDuring(app, () => launched.agent.post(retry.action).type('form').send(retry.fields));
      assert.equal(result.status, 302, result.text.slice(0, 300));
      assert.equal(calls.length, 1);
      assert.equal((calls[0]!.body as { attempt_id: string }).attempt_id, failedAttempt);
    });

    it('a request the contract refuses is not sent: a friendly page for the student, without retry', async () => {
      const broken = { ...exam.settings, exam_settings: { ...EXAM_SETTINGS_OFF, live_proctor: true } };
      await saveExamSettings(app, exam.id, broken);
      try {
        const { result, calls } = await callsDuring(app, () => launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window' }));
        assert.equal(calls.length, 0, 'nothing sent');
        assert.equal(result.response.status, 422);
        assert.match(result.response.text, /problem with its settings/);
        assert.doesNotMatch(result.response.text, /For administrators|Live proctoring/);
        assert.ok(incidentOf(result.response.text));
        assert.equal(retryOf(result.response.text), undefined);
      } finally {
        await saveExamSettings(app, exam.id, exam.settings);
      }
    });
  });

  describe('staff', () => {
    const codes: [number, RegExp][] = [
      [2154, /not active \(code 2154\)/],
      [2155, /another region than this base URL \(code 2155\)/],
      [2655, /rejected the API key \(code 2655\)/],
    ];
    for (const [code, explanation] of codes) {
      it(`401 ${code} on "Open review center": the instructor sees what it means`, async () => {
        const hub = await launchAs(app, { user: 'instructor', flavor: 'canvas', presentation: 'window' });
        emulator(app).faults.inject(unauthorized(code));
        const pressed = await pressHubButton(hub, 'review');
        assert.equal(pressed.status, 502);
        assert.match(pressed.text, /For administrators/);
        assert.match(pressed.text, explanation);
        assert.match(pressed.text, /<h1>The proctoring account is not set up correctly<\/h1>/);
        assert.match(pressed.text, /refused this platform&#39;s proctoring account/);
        assert.match(pressed.text, /admin console under Proctoring accounts/);
        assert.doesNotMatch(pressed.text, /could not be reached|try again in a moment/);
        assert.equal(retryOf(pressed.text), undefined);
        assert.ok(incidentOf(pressed.text));
        const last = (await launchLog(app)).at(-1)!;
        assert.deepEqual([last.outcome, last.endpoint, last.role], ['upstream_error', 'reviewer', 'instructor']);
      });
    }

    it('a proctor launch that times out tells the proctor the cause', async () => {
      emulator(app).faults.inject({ kind: 'latency', ms: TIMEOUT_MS * 4, times: 1 });
      const hub = await launchAs(app, { user: 'instructor', flavor: 'moodle', presentation: 'window' });
      const pressed = await pressHubButton(hub, 'live');
      assert.equal(pressed.status, 504);
      assert.match(pressed.text, /did not answer/);
      assert.match(pressed.text, /For administrators/);
    });

    it('settings the contract refuses: staff see the field messages, nothing is sent', async () => {
      await saveExamSettings(app, exam.id, { ...exam.settings, exam_settings: { ...EXAM_SETTINGS_OFF, live_proctor: true } });
      try {
        const hub = await launchAs(app, { user: 'instructor', flavor: 'canvas', presentation: 'window' });
        const { result, calls } = await callsDuring(app, () => pressHubButton(hub, 'review'));
        assert.equal(calls.length, 0);
        assert.equal(result.status, 422);
        assert.match(result.text, /For administrators/);
        assert.match(result.text, /&#39;Live proctoring&#39; needs &#39;Record video&#39; and &#39;Verify webcam&#39;/);
      } finally {
        await saveExamSettings(app, exam.id, exam.settings);
      }
    });
  });
});
