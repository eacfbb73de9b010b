import assert from 'node:assert/strict';
import { createServer as createHttpServer, type Server, type ServerResponse } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { after, before, beforeEach, describe, it } from 'node:test';
import { apiKeyFor } from '../../../src/proctoring/api-key.js';
import { createProctoringClient, type ProctoringClient } from '../../../src/proctoring/client.js';
import {
  ProctoringBadRequest,
  ProctoringBadResponse,
  ProctoringConnectionFailed,
  type ProctoringError,
  ProctoringRequestInvalid,
  ProctoringTimeout,
  ProctoringUnauthorized,
  ProctoringUnavailable,
} from '../../../src/proctoring/errors.js';
import { ACCOUNTS, MAIN, candidateRequest, launchpadRequest, liveRequest, reviewerRequest, startEmulator, type EmulatorServer } from '../../helpers/proctoring.js';

const MAIN_KEY = apiKeyFor(MAIN);

/** No text an error gives (message, admin message, stack, JSON, inspection) contains an api key or the secret. */
function assertNoCredential(error: ProctoringError, keys: string[]): void {
  const texts = [error.message, error.adminMessage, String(error.stack), JSON.stringify(error), inspect(error, { depth: 10, showHidden: true })];
  for (const key of [...keys, MAIN.secret]) {
    for (const text of texts) assert.equal(text.includes(key), false, `${error.code} leaks a credential`);
  }
}

/** The error `promise` rejects with, of `type`, checked to contain none of `keys` nor the secret. */
async function rejection<T extends ProctoringError>(promise: Promise<unknown>, type: new (...args: never[]) => T, keys: string[] = [MAIN_KEY]): Promise<T> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof type, `expected ${type.name}, got ${inspect(error)}`);
    assertNoCredential(error, keys);
    return error;
  }
  assert.fail(`expected ${type.name}, but the call succeeded`);
}

describe('the proctoring client against the emulator, over HTTP', () => {
  let server: EmulatorServer;
  let client: ProctoringClient;
  const received = () => server.emulator.received;

  before(async () => {
    server = await startEmulator();
    client = createProctoringClient({ baseUrl: server.base, credentials: { consumerKey: MAIN.consumerKey, secret: MAIN.secret }, timeoutMs: 2000, userAgent: 'proctor-lti-test' });
  });
  after(async () => {
    await client.close();
    await server.close();
  });
  beforeEach(() => {
    server.emulator.faults.clear();
  });

  describe('the seven operations', () => {
    it('candidate launch: sends the validated body with the api_key header and returns the URL with its #tag', async () => {
      const request = candidateRequest();
      const before = received().length;
      const headersBefore = server.headers.length;
      const { url } = await client.candidateLaunch(request);
      assert.match(url, new RegExp(`^${server.base}/session/[\\w-]+#exam-42$`));
      const calls = received().slice(before);
      assert.equal(calls.length, 1);
      assert.equal(calls[0]?.endpoint, '/v2/candidate/launch');
      assert.equal(calls[0]?.method, 'POST');
      assert.equal(calls[0]?.apiKeyValid, true);
      assert.deepEqual(calls[0]?.body, request);
      const headers = server.headers[headersBefore];
      assert.equal(headers?.api_key, MAIN_KEY);
      assert.match(String(headers?.['content-type']), /^application\/json/);
      assert.equal(headers?.['user-agent'], 'proctor-lti-test');
    });

    it('reviewer launch', async () => {
      const { url } = await client.reviewerLaunch(reviewerRequest());
      assert.ok(url.startsWith(`${server.base}/session/`) && url.endsWith('#exam-42'));
      assert.equal(received().at(-1)?.endpoint, '/v2/reviewer/launch');
    });

    it('live launch', async () => {
      const { url } = await client.liveLaunch(liveRequest());
      assert.ok(url.endsWith('#exam-42'));
      assert.equal(received().at(-1)?.endpoint, '/v2/live/launch');
    });

    it('launchpad', async () => {
      const { url } = await client.launchpad(launchpadRequest());
      assert.match(url, /\/session\/[\w-]+$/);
      assert.equal(received().at(-1)?.endpoint, '/v2/live/launchpad');
    });

    it('webhooks: list (empty body means none), subscribe, list, unsubscribe', async () => {
      assert.deepEqual(await client.listWebhooks(), []);
      const subscription = await client.subscribe('1', { version: '3', client: { url: 'https://tool.example.edu/webhooks/x', key: 'receiver-key' }, behavior_settings: { frame_metrics: { keystrokes: 2 } } });
      assert.deepEqual({ ...subscription, id: 'id' }, {
        id: 'id',
        webhook_type: 1,
        url: 'https://tool.example.edu/webhooks/x',
        key: 'receiver-key',
        data: { behavior_settings: { frame_metrics: { keystrokes: 2 } } },
        version: '3',
      });
      assert.equal(received().at(-1)?.endpoint, '/v2/whks/subscribe/1');
      assert.deepEqual((received().at(-1)?.body as { type: string }).type, '1');
      const listed = await client.listWebhooks();
      assert.deepEqual(listed.map((s) => s.id), [subscription.id]);
      const answer = await client.unsubscribe({ id: subscription.id });
      assert.equal(answer.message, 'Unsubscribed');
      assert.deepEqual(received().at(-1)?.body, { id: subscription.id });
      assert.deepEqual(await client.listWebhooks(), []);
    });

    it('works with a ready API key too', async () => {
      const ready = ACCOUNTS.find((a) => a.apiKey)!;
      const other = createProctoringClient({ baseUrl: `${server.base}/`, credentials: { apiKey: ready.apiKey! } });
      try {
        const { url } = await other.liveLaunch(liveRequest());
        assert.ok(url.startsWith(server.base));
      } finally {
        await other.close();
      }
    });
  });

  describe('validation before sending', () => {
    it('refuses an invalid request with all its violations and makes no call', async () => {
      const before = received().length;
      const error = await rejection(
        client.candidateLaunch(candidateRequest({ user_id: 'bad id', exam_settings: { ...candidateRequest().exam_settings, full_screen: 1, one_screen: false } })),
        ProctoringRequestInvalid,
      );
      assert.equal(error.code, 'invalid_request');
      assert.deepEqual(error.violations.map((v) => v.path).sort(), ['exam_settings.full_screen', 'user_id']);
      assert.match(error.adminMessage, /Full-screen removal needs/);
      assert.equal(received().length, before);
    });

    it('refuses a subscribe whose body type differs from the path type', async () => {
      const error = await rejection(client.subscribe('1', { type: '2' as '1', client: { url: 'https://tool.example.edu/w' } }), ProctoringRequestInvalid);
      assert.equal(error.violations[0]?.rule, 'type_mismatch');
    });
  });

  describe('401 answers', () => {
    const cases = [
      { name: 'an unknown key', credentials: { consumerKey: 'nobody', secret: 'nothing' }, code: 'invalid_api_key', upstream: 2655, advice: /consumer key and secret/ },
      { name: 'a key of another region', credentials: ACCOUNTS[1]!, code: 'wrong_region', upstream: 2155, advice: /another region.*set up for region UK/ },
      { name: 'an inactive account', credentials: ACCOUNTS[2]!, code: 'account_inactive', upstream: 2154, advice: /reactivate/ },
      { name: 'an endpoint not enabled for the key', credentials: ACCOUNTS[3]!, code: 'invalid_api_key', upstream: 2655, advice: /enable/ },
    ] as const;
    for (const c of cases) {
      it(`${c.name} → ${c.code} (${c.upstream})`, async () => {
        const credentials = { consumerKey: c.credentials.consumerKey, secret: c.credentials.secret };
        const other = createProctoringClient({ baseUrl: server.base, region: 'UK', credentials });
        try {
          const error = await rejection(other.reviewerLaunch(reviewerRequest()), ProctoringUnauthorized, [apiKeyFor(credentials), credentials.secret]);
          assert.equal(error.code, c.code);
          assert.equal(error.status, 401);
          assert.equal(error.upstreamCode, c.upstream);
          assert.match(error.adminMessage, c.advice);
        } finally {
          await other.close();
        }
      });
    }
  });

  describe('400 answers', () => {
    it('keeps the body the service answered', async () => {
      const error = await rejection(client.unsubscribe({ id: 'no-such-subscription' }), ProctoringBadRequest);
      assert.equal(error.code, 'bad_request');
      assert.equal(error.status, 400);
      assert.match(error.body, /no subscription with this id/);
    });

    it('truncates a long body and never repeats the api key', async () => {
      server.emulator.faults.inject({ kind: 'status', status: 400, body: `bad header api_key=${MAIN_KEY} ${'x'.repeat(5000)}`, times: 1 });
      const error = await rejection(client.liveLaunch(liveRequest()), ProctoringBadRequest);
      assert.ok(error.body.length <= 1001, `body kept: ${error.body.length} characters`);
      assert.match(error.body, /\[redacted\]/);
    });
  });

  describe('failures of the service and of the connection', () => {
    it('a timeout is a clear error, and is not retried', async () => {
      const quick = createProctoringClient({ baseUrl: server.base, credentials: MAIN, timeoutMs: 150 });
      server.emulator.faults.inject({ kind: 'latency', ms: 800, times: 1 });
      const before = received().length;
      try {
        const started = Date.now();
        const error = await rejection(quick.reviewerLaunch(reviewerRequest()), ProctoringTimeout);
        // The emulator answers after 800 ms: a timeout error proves the client gave up first; the bound only rules out a hang.
        assert.ok(Date.now() - started < 10_000, 'the call gave up at the timeout');
        assert.equal(error.code, 'timeout');
        assert.equal(error.timeoutMs, 150);
        assert.equal(received().length - before, 1);
      } finally {
        await quick.close();
      }
    });

    for (const status of [408, 429, 500, 502, 503]) {
      it(`HTTP ${status} → unavailable, not retried after the service answered`, async () => {
        server.emulator.faults.inject({ kind: 'status', status, times: 1 });
        const before = received().length;
        const error = await rejection(client.candidateLaunch(candidateRequest()), ProctoringUnavailable);
        assert.equal(error.code, 'unavailable');
        assert.equal(error.status, status);
        assert.equal(received().length - before, 1);
      });
    }

    it('a dropped connection is retried once, then reported', async () => {
      server.emulator.faults.inject({ kind: 'drop', times: 2 });
      const before = received().length;
      const error = await rejection(client.candidateLaunch(candidateRequest()), ProctoringConnectionFailed);
      assert.equal(error.code, 'connection_failed');
      assert.equal(error.attempts, 2);
      assert.equal(received().length - before, 2);
      assert.match(error.adminMessage, /base URL/);
    });

    it('one dropped connection followed by success → success after exactly one retry', async () => {
      server.emulator.faults.inject({ kind: 'drop', times: 1 });
      const before = received().length;
      const { url } = await client.candidateLaunch(candidateRequest());
      assert.ok(url.startsWith(server.base));
      const calls = received().slice(before);
      assert.deepEqual(calls.map((c) => c.status), [0, 200]);
    });

    it('a refused connection is retried once, then reported', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const { port } = closed.address() as { port: number };
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const nowhere = createProctoringClient({ baseUrl: `http://127.0.0.1:${port}/api`, credentials: MAIN, timeoutMs: 1000 });
      try {
        const error = await rejection(nowhere.liveLaunch(liveRequest()), ProctoringConnectionFailed);
        assert.equal(error.attempts, 2);
        assert.equal(error.reason, 'ECONNREFUSED');
      } finally {
        await nowhere.close();
      }
    });
  });

  describe('answers of a status the service does not document', () => {
    for (const status of [403, 404, 409, 422]) {
      it(`HTTP ${status} → a bad response naming the status, its body kept without the api key`, async () => {
        server.emulator.faults.inject({ kind: 'status', status, body: `refused for api_key=${MAIN_KEY}`, times: 1 });
        const before = received().length;
        const error = await rejection(client.candidateLaunch(candidateRequest()), ProctoringBadResponse);
        assert.equal(error.code, 'bad_response');
        assert.equal(error.status, status);
        assert.equal(error.detail, `unexpected status ${status}: refused for api_key=[redacted]`);
        assert.equal(received().length - before, 1, 'not retried');
      });
    }
  });

  describe('answers cut short or too large', () => {
    let raw: Server;
    let rawBase: string;
    let answer: (res: ServerResponse) => void = (res) => res.end();
    let requests = 0;
    before(async () => {
      raw = createHttpServer((_req, res) => {
        requests += 1;
        answer(res);
      });
      await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
      rawBase = `http://127.0.0.1:${(raw.address() as AddressInfo).port}/api`;
    });
    after(async () => {
      raw.closeAllConnections();
      await new Promise<void>((resolve) => raw.close(() => resolve()));
    });

    async function failure<T extends ProctoringError>(type: new (...args: never[]) => T, timeoutMs = 2000): Promise<{ error: T; requests: number }> {
      const before = requests;
      const other = createProctoringClient({ baseUrl: rawBase, credentials: MAIN, timeoutMs });
      try {
        const error = await rejection(other.candidateLaunch(candidateRequest()), type);
        return { error, requests: requests - before };
      } finally {
        await other.close();
      }
    }

    it('a redirect → a bad response, not followed', async () => {
      answer = (res) => res.writeHead(302, { location: 'https://elsewhere.example/' }).end('moved');
      const { error, requests: made } = await failure(ProctoringBadResponse);
      assert.equal(error.status, 302);
      assert.equal(error.detail, 'unexpected status 302: moved');
      assert.equal(made, 1);
    });

    it('an answer over the size limit → a bad response, read no further', async () => {
      answer = (res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('x'.repeat(1_000_001));
      };
      const { error, requests: made } = await failure(ProctoringBadResponse);
      assert.equal(error.status, 200);
      assert.equal(error.detail, 'an answer larger than 1000000 bytes');
      assert.equal(made, 1);
    });

    it('an answer cut before its announced length → a failed connection, not retried after the service answered', async () => {
      answer = (res) => {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '1000' });
        res.write('https://proctoring.example/session/partial', () => res.destroy());
      };
      const { error, requests: made } = await failure(ProctoringConnectionFailed);
      assert.match(error.reason, / while reading the answer$/);
      assert.equal(error.attempts, 1);
      assert.equal(made, 1);
    });

    it('an answer that stops in the middle → a timeout', async () => {
      answer = (res) => {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '1000' });
        res.write('https://proctoring.example/session/partial');
      };
      const started = performance.now();
      const { error, requests: made } = await failure(ProctoringTimeout, 300);
      assert.equal(error.timeoutMs, 300);
      assert.ok(performance.now() - started < 5_000, 'gave up at the deadline');
      assert.equal(made, 1);
    });
  });

  describe('success bodies of every shape', () => {
    for (const shape of ['text', 'json-string', 'array', 'object', 'percent-encoded'] as const) {
      it(`${shape}: the URL, decoded, with its #tag`, async () => {
        server.emulator.faults.inject({ kind: 'body', shape, times: 1 });
        const { url } = await client.candidateLaunch(candidateRequest({ exam_tag: 'tag-7' }));
        assert.match(url, new RegExp(`^${server.base}/session/[\\w-]+#tag-7$`));
        const page = await fetch(url);
        assert.equal(page.status, 200);
      });
    }
    for (const shape of ['number', 'garbage'] as const) {
      it(`${shape}: a bad response`, async () => {
        server.emulator.faults.inject({ kind: 'body', shape, times: 1 });
        const error = await rejection(client.candidateLaunch(candidateRequest()), ProctoringBadResponse);
        assert.equal(error.code, 'bad_response');
      });
    }
  });
});
