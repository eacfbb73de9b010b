// Request ids in the log: every line written while a request is served carries the id the response was sent
// with (`X-Request-Id`), on every path that logs (refusals, hosted links, rosters, webhooks, the admin console,
// launches), without mixing concurrent requests; a trusted proxy's id is reused as is. The id reaches the lines
// through each request's child logger, not through an AsyncLocalStorage.
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import express from 'express';
import supertest from 'supertest';
import { requestIdOf, requestIds, requestLogger } from '../../../src/http/request-id.js';
import { createLogger } from '../../../src/logger.js';
import { SANDBOX_ACCOUNT } from '../../../src/sandbox/index.js';
import { deliveryBody, sampleData, type StoredSubscription } from '../../../src/sandbox/emulator/webhooks.js';
import { MAX_DELIVERY_BYTES } from '../../../src/webhooks/routes.js';
import { ADMIN_TEST_PASSWORD, csrfFrom } from '../../helpers/admin.js';
import { capturedLog, startTestApp, type TestApp } from '../../helpers/app.js';
import { courseWithNamesRoles } from '../../helpers/hosted.js';
import { derived, emulator, launchAs } from '../../helpers/launches.js';

type Entry = Record<string, unknown>;

/** What `requestIds` and `requestLogger` do, on a bare express app. */
describe('requestIds and requestLogger', () => {
  function loggedApp(trustForwardedId: boolean) {
    const lines: Entry[] = [];
    const logger = createLogger(
      'info',
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(...chunk.toString('utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Entry));
          done();
        },
      }),
    );
    const app = express();
    app.use(requestIds({ trustForwardedId }));
    app.get('/', async (req, res) => {
      const log = requestLogger(logger, req);
      log.info('first');
      await new Promise((resolve) => setTimeout(resolve, 5));
      requestLogger(logger, req).info('second');
      res.json({ same: requestLogger(logger, req) === log, reqId: requestIdOf(req) ?? null });
    });
    return { app, lines, logger };
  }

  it('gives each request a new uuid, sent back and written on its lines; one child logger per request', async () => {
    const { app, lines } = loggedApp(false);
    const response = await supertest(app).get('/').expect(200);
    const reqId = String(response.headers['x-request-id']);
    assert.match(reqId, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.deepEqual(response.body, { same: true, reqId });
    assert.deepEqual(
      lines.map((line) => [line.msg, line.reqId]),
      [
        ['first', reqId],
        ['second', reqId],
      ],
    );
  });

  it("reuses a trusted proxy's X-Request-Id when it looks like an id; ignores it otherwise", async () => {
    const trusted = loggedApp(true);
    const reused = await supertest(trusted.app).get('/').set('X-Request-Id', 'proxy-0123456789abcdef').expect(200);
    assert.equal(reused.headers['x-request-id'], 'proxy-0123456789abcdef');
    assert.deepEqual(trusted.lines.map((line) => line.reqId), ['proxy-0123456789abcdef', 'proxy-0123456789abcdef']);
    const malformed = await supertest(trusted.app).get('/').set('X-Request-Id', 'bad id <script>').expect(200);
    assert.notEqual(malformed.headers['x-request-id'], 'bad id <script>');

    const untrusted = loggedApp(false);
    const ignored = await supertest(untrusted.app).get('/').set('X-Request-Id', 'proxy-0123456789abcdef').expect(200);
    assert.notEqual(ignored.headers['x-request-id'], 'proxy-0123456789abcdef');
    assert.equal(untrusted.lines[0]!.reqId, ignored.headers['x-request-id']);
  });

  it('logs to the logger itself for a request without an id, and lines outside a request carry none', async () => {
    const { lines, logger } = loggedApp(false);
    const bare = express();
    bare.get('/', (req, res) => {
      assert.equal(requestLogger(logger, req), logger);
      res.end();
    });
    await supertest(bare).get('/').expect(200);
    logger.info('outside');
    assert.deepEqual(lines, [{ level: 30, time: lines[0]!.time, pid: process.pid, hostname: hostname(), msg: 'outside' }]);
  });
});

describe('request ids of the tool', () => {
  let app: TestApp;
  let log: ReturnType<typeof capturedLog>;
  /** Where AsyncLocalStorage methods were called from while the app served requests. */
  const storageCallers: string[] = [];
  const patched = ['run', 'enterWith', 'getStore'] as const;
  const originals = new Map(patched.map((name) => [name, AsyncLocalStorage.prototype[name]]));

  before(async () => {
    for (const name of patched) {
      const original = originals.get(name) as (...args: unknown[]) => unknown;
      Object.defineProperty(AsyncLocalStorage.prototype, name, {
        configurable: true,
        writable: true,
        value: function (this: AsyncLocalStorage<unknown>, ...args: unknown[]) {
          storageCallers.push(new Error().stack?.split('\n').slice(2, 4).join('\n') ?? '');
          return original.apply(this, args);
        },
      });
    }
    log = capturedLog();
    app = await startTestApp({ ADMIN_PASSWORD: ADMIN_TEST_PASSWORD, TRUST_PROXY_HOPS: '1' }, { logger: log.logger });
    await app.tool.afterListen();
  });
  after(async () => {
    for (const name of patched) Object.defineProperty(AsyncLocalStorage.prototype, name, { configurable: true, writable: true, value: originals.get(name) });
    await app.close();
  });

  /** The lines `work` caused, and what it returned. */
  async function linesOf<T>(work: () => Promise<T>): Promise<{ result: T; lines: Entry[] }> {
    const from = log.lines.length;
    const result = await work();
    return { result, lines: log.lines.slice(from).map((line) => JSON.parse(line) as Entry) };
  }

  /** The one line with this message; it and every other line carry the response's id. */
  function assertCarried(lines: Entry[], response: supertest.Response, msg: string | RegExp): Entry {
    const reqId = response.headers['x-request-id'];
    assert.equal(typeof reqId, 'string', 'the response has an X-Request-Id');
    const found = lines.filter((line) => (typeof msg === 'string' ? line.msg === msg : msg.test(String(line.msg))));
    assert.equal(found.length, 1, `one line "${String(msg)}" in ${JSON.stringify(lines.map((line) => line.msg))}`);
    assert.deepEqual(
      lines.filter((line) => line.reqId !== reqId).map((line) => [line.msg, line.reqId]),
      [],
      'every line of the request carries its id',
    );
    return found[0]!;
  }

  it("a refused LTI message: the error handler's line", async () => {
    const { result, lines } = await linesOf(() => supertest(app.baseUrl).get('/lti/login'));
    assert.equal(result.status, 400);
    assert.equal(assertCarried(lines, result, 'LTI message refused').code, 'login_invalid');
  });

  it("a trusted proxy's X-Request-Id is the id of the answer and of its lines", async () => {
    const forwarded = `nginx-${randomUUID().replaceAll('-', '')}`;
    const { result, lines } = await linesOf(() => supertest(app.baseUrl).get('/lti/login').set('X-Request-Id', forwarded));
    assert.equal(result.status, 400);
    assert.equal(result.headers['x-request-id'], forwarded);
    assert.equal(assertCarried(lines, result, 'LTI message refused').reqId, forwarded);
  });

  it('a hosted link with an invalid token', async () => {
    const { result, lines } = await linesOf(() => supertest(app.baseUrl).get('/hosted/roster?t=forged'));
    assert.equal(result.status, 401);
    assertCarried(lines, result, 'hosted link refused: invalid or expired token');
  });

  it('a roster of a course without Names and Roles: the roster service and the error handler', async () => {
    const { rosterPath } = await courseWithNamesRoles(app, `no-nrps-${randomUUID()}`, undefined);
    const { result, lines } = await linesOf(() => supertest(app.baseUrl).get(rosterPath));
    assert.equal(result.status, 404);
    assertCarried(lines, result, /^roster requested, but the LMS offers no Names and Roles service/);
    assertCarried(lines, result, 'Roster unavailable');
  });

  it("an instructor's launch: the roster its hub's names come from is fetched in the launch request's log", async () => {
    const { result: launched, lines } = await linesOf(() => launchAs(app, { user: 'instructor', flavor: 'canvas', presentation: 'window' }));
    assert.equal(launched.response.status, 200);
    const launchLine = lines.filter((line) => line.launch !== undefined);
    assert.equal(launchLine.length, 1, 'one launch line');
    assert.equal((launchLine[0]!.launch as { endpoint?: string }).endpoint, 'hub');
    const roster = lines.filter((line) => /^roster fetched from Names and Roles|^Names and Roles lists members without names/.test(String(line.msg)));
    assert.equal(roster.length, 1, `one roster line in ${JSON.stringify(lines.map((line) => line.msg))}`);
    assert.equal(typeof roster[0]!.reqId, 'string');
    assert.equal(roster[0]!.reqId, launchLine[0]!.reqId, 'the roster line carries the id of the launch that read it');
    assert.deepEqual(lines.filter((line) => typeof line.reqId !== 'string').map((line) => line.msg), [], 'no line without a request id');
  });

  it('webhook deliveries: refused before reading, refused by the receiver, stored', async () => {
    const subscription: StoredSubscription | undefined = emulator(app).subscriptions()[0];
    assert.ok(subscription, 'the sandbox subscribed its receiver');
    const url = new URL(subscription.url).pathname;
    const post = (body: string) => supertest(app.baseUrl).post(url).set('Content-Type', 'application/json').send(body);

    const large = await linesOf(() => post(`"${'x'.repeat(MAX_DELIVERY_BYTES + 10)}"`));
    assert.equal(large.result.status, 413);
    assertCarried(large.lines, large.result, 'webhook delivery refused before reading it');

    const notJson = await linesOf(() => post('not json'));
    assert.equal(notJson.result.status, 400);
    assert.equal(assertCarried(notJson.lines, notJson.result, 'webhook delivery refused').reason, 'body is not JSON');

    const stored = await linesOf(() => post(deliveryBody(subscription, SANDBOX_ACCOUNT.secret, sampleData('3', { attemptId: randomUUID(), userId: 'someone' }))));
    assert.equal(stored.result.status, 200);
    assertCarried(stored.lines, stored.result, 'webhook delivery stored');
  });

  it('an admin sign-in with a wrong password', async () => {
    const agent = supertest.agent(app.baseUrl);
    const form = await agent.get('/admin/sign-in').expect(200);
    const { result, lines } = await linesOf(() => agent.post('/admin/sign-in').type('form').send({ _csrf: csrfFrom(form.text), password: 'not the password' }));
    assert.equal(result.status, 401);
    assertCarried(lines, result, 'admin sign-in refused: wrong password');
  });

  it("concurrent launches: each launch line carries its own request's id", async () => {
    const demoLms = app.tool.sandbox!.demoLms;
    const named = new Set(demoLms.users.map((user) => user.id));
    const learners = demoLms.members().filter((person) => !named.has(person.id) && person.status === 'Active' && person.role === 'learner').slice(0, 6);
    assert.equal(learners.length, 6);
    const { userId } = await derived(app);
    const { result: launches, lines } = await linesOf(() => Promise.all(learners.map((learner) => launchAs(app, { member: learner.id, flavor: 'canvas', presentation: 'window' }))));
    const ids = new Set<unknown>();
    for (const launched of launches) {
      assert.equal(launched.response.status, 302, launched.response.text.slice(0, 300));
      const reqId = launched.response.headers['x-request-id'];
      ids.add(reqId);
      const own = lines.filter((line) => (line.launch as { userId?: string } | undefined)?.userId === userId(String(launched.claims.iss), String(launched.claims.sub)));
      // A learner's first launch of the exam: the privacy notice (shown), then its button's request (redirected).
      assert.ok(launched.notice, 'the first launch showed the privacy notice');
      const noticeId = launched.notice.headers['x-request-id'];
      ids.add(noticeId);
      assert.deepEqual(
        own.map((line) => [(line.launch as { outcome?: string }).outcome, line.reqId]),
        [['shown', noticeId], ['redirected', reqId]],
        "each launch line carries its own request's id",
      );
    }
    assert.equal(ids.size, 2 * learners.length, 'each request has its own id');
    assert.deepEqual(lines.filter((line) => typeof line.reqId !== 'string').map((line) => line.msg), [], 'no line without a request id');
  });

  it('no AsyncLocalStorage of the logger or of src/http/ was used while serving these requests', () => {
    new AsyncLocalStorage<number>().run(1, () => undefined);
    assert.match(storageCallers.at(-1) ?? '', /request-id\.test\.ts/, 'calls are recorded');
    const ours = storageCallers.filter((caller) => /[/\\]src[/\\](?:logger\.ts|http[/\\])/.test(caller));
    assert.deepEqual(ours, []);
  });
});
