// What launches write to the log: an upstream failure is logged with its incident id and cause, and the
// candidate's name (display_name, sent only without Names and Roles) never reaches a log line.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JWTPayload } from 'jose';
import type { Fault } from '../../../src/sandbox/emulator/index.js';
import { capturedLog, startTestApp, type TestApp } from '../../helpers/app.js';
import { CLAIMS, emulator, incidentOf, launchAs, oneCall, pressHubButton } from '../../helpers/launches.js';

/** The test app of test/helpers/app.ts, with every log line (level trace) kept in `lines`. */
async function startLoggedApp(): Promise<{ app: TestApp; lines: string[] }> {
  const { logger, lines } = capturedLog();
  const app = await startTestApp({ LOG_LEVEL: 'trace', PROCTORING_TIMEOUT_MS: '800' }, { logger });
  return { app, lines };
}

/** Runs `work` with only these emulator faults active, then puts back the faults that were active before. */
async function withFaults<T>(app: TestApp, faults: Fault[], work: () => Promise<T>): Promise<T> {
  const controls = emulator(app).faults;
  const before = controls.list();
  controls.clear();
  for (const fault of faults) controls.inject(fault);
  try {
    return await work();
  } finally {
    controls.clear();
    for (const fault of before) controls.inject(fault);
  }
}

const noNrps = (claims: JWTPayload) => {
  delete claims[CLAIMS.nrps];
  const custom = claims[CLAIMS.custom] as Record<string, string> | undefined;
  if (custom) delete custom.context_memberships_url;
};


describe('launch logging', () => {
  let app: TestApp;
  let lines: string[];

  before(async () => {
    ({ app, lines } = await startLoggedApp());
  });
  after(async () => {
    await app.close();
  });

  it("a student's upstream failure is logged with the page's incident id and the cause", async () => {
    const unauthorized: Fault = { kind: 'status', status: 401, body: JSON.stringify({ code: 2154, message: 'Unauthorized' }), times: 1 };
    const launched = await withFaults(app, [unauthorized], () => launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window' }));
    assert.equal(launched.response.status, 502);
    const incident = incidentOf(launched.response.text);
    assert.ok(incident);
    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.incidentId === incident);
    assert.equal(logged.length, 1, 'one log line for the incident');
    const entry = logged[0]!;
    assert.equal(entry.code, 'upstream_account_inactive');
    assert.equal((entry.cause as { code?: string; operation?: string; status?: number }).code, 'account_inactive');
    assert.equal((entry.cause as { operation?: string }).operation, 'candidate_launch');
    assert.match(JSON.stringify(entry), /code 2154/, 'the explanation of the cause is in the log');
    const explanation = String(entry.adminMessage);
    assert.ok(explanation.length > 40);
    assert.equal(JSON.stringify(entry).split(explanation.slice(0, 40)).length - 1, 1, "the administrator's explanation appears once");
    assert.equal((entry.launch as { outcome?: string }).outcome, 'upstream_error', 'the incident line is the launch line');
  });

  it('every line written while serving a request carries its id, and each launch step writes one launch line', async () => {
    // A learner no other test launches: their first launch in a window is two steps, the privacy notice and its button.
    const demoLms = app.tool.sandbox!.demoLms;
    const named = new Set(demoLms.users.map((user) => user.id));
    const learner = demoLms.members().find((person) => person.role === 'learner' && person.status === 'Active' && !named.has(person.id));
    assert.ok(learner, 'the demo course has a generated learner');
    const before = lines.length;
    const launched = await launchAs(app, { member: learner.id, flavor: 'canvas', presentation: 'window' });
    assert.ok(launched.notice, 'the first launch in a window shows the privacy notice');
    assert.equal(launched.response.status, 302);
    const written = lines.slice(before).map((line) => JSON.parse(line) as Record<string, unknown>);
    const launchLines = written.filter((entry) => entry.launch !== undefined);
    for (const [step, response] of [['notice', launched.notice], ['launch', launched.response]] as const) {
      const requestId = response.headers['x-request-id'];
      assert.match(String(requestId), /^[0-9a-f-]{36}$/, `the ${step} step's request id`);
      assert.equal(launchLines.filter((entry) => entry.reqId === requestId).length, 1, `one launch line for the ${step} step, with the id its response was sent with`);
    }
    assert.equal(launchLines.length, 2, 'no other launch line');
    assert.deepEqual(
      written.filter((entry) => typeof entry.reqId !== 'string').map((entry) => entry.msg),
      [],
      'no line without a request id',
    );
  });

  it('the name of a candidate launched without Names and Roles is sent as display_name but never logged', async () => {
    const sent = await oneCall(app, '/v2/candidate/launch', () => launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'iframe', claims: noNrps }));
    assert.equal(sent.body.display_name, 'María José Núñez');
    // A failing launch and a failing retry of the same session, and staff pages, log more.
    await withFaults(app, [{ kind: 'status', status: 503, times: 2 }], async () => {
      const failed = await launchAs(app, { user: 'student', flavor: 'canvas', presentation: 'window', claims: noNrps });
      assert.equal(failed.response.status, 502);
      const retried = await failed.agent.post('/lti/launch').type('form').send({ ltik: failed.ltik });
      assert.equal(retried.status, 502);
    });
    const hub = await launchAs(app, { user: 'instructor', flavor: 'canvas', presentation: 'window', claims: noNrps });
    assert.equal((await pressHubButton(hub, 'review')).status, 302);

    assert.ok(lines.length > 0, 'the app logged something');
    const names = ['Núñez', 'María', 'N\\u00fa\\u00f1ez', 'Mar\\u00eda'];
    for (const line of lines) {
      for (const name of names) assert.equal(line.includes(name), false, `a log line holds the name: ${line.slice(0, 300)}`);
    }
  });
});
