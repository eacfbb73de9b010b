// The fault suite of the services the tool calls: the proctoring service's Launch API (the emulator's fault
// switches) and an LMS's Names and Roles service (a stand-in memberships endpoint on loopback). Each fault ends
// in the right status with an incident id, the cause in the log under that id and never in the answer, the
// process alive, and the next launch (and roster) working.
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, afterEach, before, describe, it } from 'node:test';
import supertest from 'supertest';
import type { Fault } from '../../../src/sandbox/emulator/faults.js';
import { capturedLog, startTestApp, type TestApp } from '../../helpers/app.js';
import { courseWithNamesRoles, startStub } from '../../helpers/hosted.js';
import { emulator, incidentOf, launchAs, launchLog } from '../../helpers/launches.js';

// Generous deadlines: a loaded machine must not turn a slow answer into a timeout.
const PROCTORING_TIMEOUT_MS = 4000;
const ROSTER_FETCH_TIMEOUT_MS = 5000;
/** Driver, socket and stack text, and the upstream's own words, never reach a browser or a portal. */
const INTERNALS = /ECONN|EPIPE|socket|UND_ERR|AbortError|TimeoutError|fetch failed|at [\w.<>]+ \(|\.[jt]s:\d+|HTTP \d{3}|upstream broke|127\.0\.0\.1:\d+\/(nrps|sandbox)/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('fault suite: Launch API and Names and Roles', () => {
  let app: TestApp;
  let log: ReturnType<typeof capturedLog>;
  const rejections: unknown[] = [];
  const record = (reason: unknown) => rejections.push(reason);

  before(async () => {
    process.on('unhandledRejection', record);
    process.on('uncaughtException', record);
    log = capturedLog();
    app = await startTestApp({ PROCTORING_TIMEOUT_MS: String(PROCTORING_TIMEOUT_MS), ROSTER_FETCH_TIMEOUT_MS: String(ROSTER_FETCH_TIMEOUT_MS), ROSTER_CACHE_SECONDS: '1' }, { logger: log.logger });
  });
  afterEach(() => emulator(app).faults.clear());
  after(async () => {
    process.off('unhandledRejection', record);
    process.off('uncaughtException', record);
    await app.close();
  });

  /** The log lines written under an incident id. */
  const loggedUnder = (incidentId: string) => log.entries().filter((entry) => entry.incidentId === incidentId);

  async function assertAliveAndLaunching(): Promise<void> {
    assert.deepEqual(rejections.map(String), [], 'no unhandled rejection or uncaught exception');
    assert.equal((await supertest(app.baseUrl).get('/healthz')).status, 200, 'the process is alive');
    const next = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
    assert.equal(next.response.status, 302, `the next launch works: ${next.response.text.slice(0, 300)}`);
    assert.match(next.response.headers.location as string, /\/sandbox\/proctoring\/session\//);
  }

  describe('Launch API', () => {
    const cases: Array<{ name: string; fault?: Fault; status: number; errorCode?: RegExp }> = [
      { name: 'HTTP 500', fault: { kind: 'status', status: 500, body: '{"message":"upstream broke at db.internal:5432"}', times: 1 }, status: 502, errorCode: /^upstream_/ },
      // The client retries a dropped connection once: two drops exhaust it.
      { name: 'connection reset', fault: { kind: 'drop', times: 2 }, status: 502, errorCode: /^upstream_/ },
      { name: 'no answer within the deadline', fault: { kind: 'latency', ms: PROCTORING_TIMEOUT_MS * 3, times: 1 }, status: 504, errorCode: /^upstream_timeout$/ },
      { name: 'a slow answer within the deadline', fault: { kind: 'latency', ms: PROCTORING_TIMEOUT_MS / 8, times: 1 }, status: 302 },
    ];
    for (const { name, fault, status, errorCode } of cases) {
      it(`${name}: ${status === 302 ? 'the launch succeeds' : `${status} page with an incident id, the cause in the log`}`, async () => {
        if (fault) emulator(app).faults.inject(fault);
        const launched = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
        const { response } = launched;
        assert.equal(response.status, status, response.text.slice(0, 300));
        if (status === 302) {
          assert.match(response.headers.location as string, /\/sandbox\/proctoring\/session\//);
        } else {
          assert.match(response.headers['content-type'] as string, /text\/html/);
          const incident = incidentOf(response.text);
          assert.ok(incident, 'the page shows an incident id');
          assert.doesNotMatch(response.text, INTERNALS, 'no internals in the page');
          const entry = (await launchLog(app)).at(-1)!;
          assert.equal(entry.incident_id, incident, 'the launch log holds the incident');
          assert.match(entry.error_code ?? '', errorCode!);
          assert.ok(loggedUnder(incident).length > 0, 'the cause is logged under the incident id');
        }
        await assertAliveAndLaunching();
      });
    }
  });

  describe('Names and Roles', () => {
    type Handler = (req: IncomingMessage, res: ServerResponse, base: string) => void;
    const container = (members: unknown[]) => JSON.stringify({ id: 'x', context: { id: 'c' }, members });
    const page = (res: ServerResponse, body: string, next?: string) => {
      res.writeHead(200, { 'Content-Type': 'application/vnd.ims.lti-nrps.v2.membershipcontainer+json', ...(next ? { Link: `<${next}>; rel="next"` } : {}) });
      res.end(body);
    };
    const cases: Array<{ name: string; handler: Handler; status: number; error: string; cause: RegExp }> = [
      { name: 'HTTP 500', handler: (_req, res) => res.writeHead(500).end('upstream broke'), status: 502, error: 'roster_unavailable', cause: /HTTP 500/ },
      { name: 'connection reset', handler: (req) => req.socket.destroy(), status: 502, error: 'roster_unavailable', cause: /could not be reached|broke off/ },
      { name: 'no answer within the deadline', handler: () => undefined, status: 504, error: 'roster_timeout', cause: /did not answer in time/ },
      { name: 'a malformed answer (not JSON)', handler: (_req, res) => page(res, '<html>upstream broke</html>'), status: 502, error: 'roster_unavailable', cause: /not a membership container/ },
      { name: 'a malformed answer (no members)', handler: (_req, res) => page(res, JSON.stringify({ id: 'x', people: [] })), status: 502, error: 'roster_unavailable', cause: /not a membership container/ },
      {
        name: 'a paging loop (page 2 links back to page 1)',
        handler: (req, res, base) => page(res, container([{ user_id: req.url ?? '', name: 'Ana', roles: ['Learner'] }]), req.url === '/nrps/p1' ? `${base}/nrps/p2` : `${base}/nrps/p1`),
        status: 502,
        error: 'roster_unavailable',
        cause: /already read/,
      },
      {
        name: 'a page that links to itself',
        handler: (req, res, base) => page(res, container([]), `${base}${req.url ?? ''}`),
        status: 502,
        error: 'roster_unavailable',
        cause: /already read/,
      },
    ];
    let stubBase = '';
    let handler: Handler = () => undefined;
    let stub: Awaited<ReturnType<typeof startStub>>;
    before(async () => {
      stub = await startStub((req, res) => handler(req, res, stubBase));
      stubBase = stub.url;
    });
    after(() => stub.close());

    // The platform's token endpoint (client-credentials grant) is the stub too: a platform of its own.
    const tokenCases: Array<{ name: string; handler: Handler; status: number; error: string; cause: RegExp }> = [
      { name: 'the token endpoint refuses the grant', handler: (_req, res) => res.writeHead(400, { 'Content-Type': 'application/json' }).end('{"error":"invalid_client","error_description":"key 10.0.0.7 unknown"}'), status: 502, error: 'roster_unavailable', cause: /token endpoint answered HTTP 400 \(invalid_client\)/ },
      { name: 'the token endpoint answers without an access token', handler: (_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"token_type":"Bearer"}'), status: 502, error: 'roster_unavailable', cause: /without a usable access_token/ },
      { name: 'the token endpoint does not answer', handler: () => undefined, status: 504, error: 'roster_timeout', cause: /token endpoint did not answer in time/ },
    ];
    for (const { name, handler: fault, status, error, cause } of tokenCases) {
      it(`${name}: ${status} ${error} with an incident id, the cause in the log`, async () => {
        const lms = app.tool.sandbox!.demoLms;
        const platform = { issuer: 'https://token-faults.lms.example', clientId: lms.registration.clientId };
        if (!(await app.tool.lti.platforms.list()).some((p) => p.issuer === platform.issuer)) {
          await app.tool.lti.platforms.register({ ...platform, authUrl: lms.registration.authUrl, tokenUrl: `${stubBase}/token`, key: { jwk: JSON.stringify(lms.jwks().keys[0]) }, deploymentIds: ['1'] });
        }
        handler = (req, res, base) => (req.url === '/token' ? fault(req, res, base) : page(res, container([{ user_id: '1', name: 'Ana', roles: ['Learner'] }])));
        const { rosterPath } = await courseWithNamesRoles(app, `token-fault-${name}`, `${stubBase}/nrps/p1`, platform);
        const response = await supertest(app.baseUrl).get(rosterPath);
        assert.equal(response.status, status, response.text.slice(0, 300));
        const body = response.body as { error?: string; incidentId?: string };
        assert.equal(body.error, error);
        assert.match(body.incidentId ?? '', UUID);
        assert.doesNotMatch(response.text, /invalid_client|10\.0\.0\.7|Ana/, 'neither the token endpoint\'s words nor a partial roster');
        const logged = loggedUnder(body.incidentId!);
        assert.equal(logged.length, 1);
        assert.match(String(logged[0]!.detail), cause);
        await assertAliveAndLaunching();
      });
    }

    cases.forEach(({ name, handler: fault, status, error, cause }, n) => {
      it(`${name}: ${status} ${error} with an incident id, the cause in the log`, async () => {
        handler = fault;
        const { rosterPath } = await courseWithNamesRoles(app, `nrps-fault-${n}`, `${stubBase}/nrps/p1`);
        const response = await supertest(app.baseUrl).get(rosterPath).set('Origin', 'https://portal.example.com');
        assert.equal(response.status, status, response.text.slice(0, 300));
        const body = response.body as { error?: string; message?: string; incidentId?: string };
        assert.equal(body.error, error);
        assert.match(body.incidentId ?? '', UUID, 'the answer carries an incident id');
        assert.equal(response.headers['access-control-allow-origin'], '*', 'the portal can read the refusal');
        assert.doesNotMatch(response.text, INTERNALS, 'no internals in the answer');
        assert.doesNotMatch(response.text, /Ana/, 'never a partial roster');
        const logged = loggedUnder(body.incidentId!);
        assert.equal(logged.length, 1, 'one log line under the incident id');
        assert.match(String(logged[0]!.detail), cause);
        await assertAliveAndLaunching();
        // The demo course's own roster is still served.
        const { rosterPath: demoRoster } = await courseWithNamesRoles(app, app.tool.sandbox!.demoLms.course.id, undefined);
        assert.equal((await supertest(app.baseUrl).get(demoRoster)).status, 200);
      });
    });
  });
});
