import assert from 'node:assert/strict';
import { createHash, timingSafeEqual } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import express from 'express';
import { apiKeyFor } from '../../../src/proctoring/api-key.js';
import { patternMatches } from '../../../src/proctoring/patterns.js';
import { ACCOUNTS, MAIN, candidateRequest, launchpadRequest, liveRequest, reviewerRequest, startEmulator, startSideServer, subscribeRequest, type EmulatorServer } from '../../helpers/proctoring.js';

const KEY = apiKeyFor(MAIN);

describe('the Launch API emulator', () => {
  let server: EmulatorServer;

  const call = (path: string, init: { method?: string; key?: string | null; body?: unknown; raw?: string } = {}) => {
    const headers: Record<string, string> = {};
    if (init.key !== null) headers.api_key = init.key ?? KEY;
    if (init.body !== undefined || init.raw !== undefined) headers['content-type'] = 'application/json';
    return fetch(`${server.base}${path}`, {
      method: init.method ?? (init.body !== undefined || init.raw !== undefined ? 'POST' : 'GET'),
      headers,
      body: init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body)),
      redirect: 'manual',
    });
  };
  const launchUrl = async (path: string, body: unknown) => {
    const response = await call(path, { body });
    assert.equal(response.status, 200, await response.clone().text());
    return response.text();
  };

  before(async () => {
    server = await startEmulator();
  });
  after(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.emulator.faults.clear();
  });

  describe('authentication (spec: Errors)', () => {
    it('a missing key → 401 2655', async () => {
      const response = await call('/v2/live/launch', { key: null, body: liveRequest() });
      assert.equal(response.status, 401);
      assert.deepEqual(await response.json(), { code: 2655, message: 'Invalid api_key' });
      assert.equal(server.emulator.received.at(-1)?.apiKeyValid, false);
    });
    it('a wrong key → 401 2655', async () => {
      const response = await call('/v2/live/launch', { key: `${KEY}x`, body: liveRequest() });
      assert.deepEqual([response.status, await response.json()], [401, { code: 2655, message: 'Invalid api_key' }]);
    });
    it('a key of another region → 401 2155', async () => {
      const response = await call('/v2/live/launch', { key: apiKeyFor(ACCOUNTS[1]!), body: liveRequest() });
      assert.deepEqual([response.status, ((await response.json()) as { code: number }).code], [401, 2155]);
    });
    it('an inactive account → 401 2154', async () => {
      const response = await call('/v2/live/launch', { key: apiKeyFor(ACCOUNTS[2]!), body: liveRequest() });
      assert.deepEqual([response.status, ((await response.json()) as { code: number }).code], [401, 2154]);
    });
    it('an endpoint not enabled for the key → 401 2655; an enabled one works', async () => {
      const limited = apiKeyFor(ACCOUNTS[3]!);
      const refused = await call('/v2/reviewer/launch', { key: limited, body: reviewerRequest() });
      assert.deepEqual([refused.status, ((await refused.json()) as { code: number }).code], [401, 2655]);
      const allowed = await call('/v2/candidate/launch', { key: limited, body: candidateRequest() });
      assert.equal(allowed.status, 200);
    });
    it('a ready-made api key of an account works', async () => {
      const response = await call('/v2/live/launch', { key: ACCOUNTS[4]!.apiKey!, body: liveRequest() });
      assert.equal(response.status, 200);
    });
  });

  describe('validation with the contract', () => {
    it('answers 400 with every violation', async () => {
      const response = await call('/v2/candidate/launch', { body: { ...candidateRequest(), user_id: 'a b', expire: 99999, exam_settings: { ...candidateRequest().exam_settings, tabs: 0 } } });
      assert.equal(response.status, 400);
      const body = (await response.json()) as { violations: { path: string; rule: string }[] };
      assert.deepEqual(body.violations.map((v) => `${v.path} ${v.rule}`).sort(), ['exam_settings.full_screen full_screen_requires_lockdown', 'expire range', 'user_id pattern']);
    });
    it('answers 400 to malformed JSON', async () => {
      const response = await call('/v2/reviewer/launch', { raw: '{"user_id":' });
      assert.equal(response.status, 400);
      assert.equal(((await response.json()) as { violations: { rule: string }[] }).violations[0]?.rule, 'invalid_json');
    });
    it('answers 400 to an empty body', async () => {
      const response = await call('/v2/live/launchpad', { method: 'POST' });
      assert.equal(response.status, 400);
    });
    // A backtracking engine needs seconds to minutes for these (2^30 steps); the bound only tells "answered" from "frozen".
    it('evaluates page patterns without backtracking: a catastrophic pattern cannot freeze the emulator', { timeout: 120_000 }, async () => {
      const redos = '^https://x\\.example/(a+)+$';
      const nearMiss = `https://x.example/${'a'.repeat(30)}!`;
      patternMatches(redos, 'warm-up: the engine loads its tables on first use');
      const delay = monitorEventLoopDelay({ resolution: 20 });
      delay.enable();
      const refused = await call('/v2/candidate/launch', { body: candidateRequest({ launch_url: nearMiss, exam_start: redos }) });
      assert.equal(refused.status, 400);
      const body = (await refused.json()) as { violations: { path: string; rule: string }[] };
      assert.deepEqual(body.violations.map((v) => `${v.path} ${v.rule}`), ['exam_start exam_start_must_match_launch_url']);
      const url = await launchUrl('/v2/candidate/launch', candidateRequest({ launch_url: nearMiss, exam_start: '^https://x\\.example/', exam_take: redos, exam_end: redos }));
      const page = await fetch(url);
      assert.equal(page.status, 200);
      assert.ok((await page.text()).includes('✓ matches the launch URL'));
      delay.disable();
      assert.ok(delay.max / 1e6 < 3000, `the event loop was blocked for ${Math.round(delay.max / 1e6)} ms`);
      const lookahead = await call('/v2/candidate/launch', { body: candidateRequest({ exam_take: '^https://lms(?=\\.)' }) });
      assert.equal(lookahead.status, 400);
      assert.match(JSON.stringify(await lookahead.json()), /lookahead/);
    });
    it('answers 404 to an unknown endpoint', async () => {
      const response = await call('/v2/take', { body: {} });
      assert.equal(response.status, 404);
    });
  });

  describe('generated URLs', () => {
    it('append the exam tag as #tag and open the candidate page', async () => {
      const url = await launchUrl('/v2/candidate/launch', candidateRequest({ exam_tag: 'midterm-2' }));
      assert.match(url, /\/session\/[\w-]+#midterm-2$/);
      const page = await fetch(url);
      assert.equal(page.status, 200);
      const html = await page.text();
      for (const text of ['Record video', 'Full-screen removal', 'After 30 s away (2)', 'Number of breaks', 'Submit exam', 'Leave exam', 'tool.example.edu/return/a-1/ended', '✓ matches the launch URL']) {
        assert.ok(html.includes(text), `the candidate page shows ${text}`);
      }
      assert.match(html, /<pre id="request"/);
    });

    it('have no fragment without an exam tag', async () => {
      const url = await launchUrl('/v2/live/launchpad', launchpadRequest());
      assert.equal(url.includes('#'), false);
    });

    it('expire after `expire` seconds, with a clear page', async () => {
      const url = await launchUrl('/v2/live/launch', liveRequest({ expire: 1 }));
      assert.equal((await fetch(url)).status, 200);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const expired = await fetch(url);
      assert.equal(expired.status, 410);
      assert.match(await expired.text(), /This link has expired/);
    });

    it('an unknown session is a 404 page', async () => {
      const response = await fetch(`${server.base}/session/nope`);
      assert.equal(response.status, 404);
      assert.match(await response.text(), /not valid/);
    });

    it('Submit follows the graceful URL, Leave the ungraceful one, both falling back to redirect_url', async () => {
      const url = await launchUrl('/v2/candidate/launch', candidateRequest());
      const end = (outcome: string, target: string) =>
        fetch(`${target.split('#')[0]}/end`, { method: 'POST', body: new URLSearchParams({ outcome }), redirect: 'manual' });
      const submitted = await end('submitted', url);
      assert.deepEqual([submitted.status, submitted.headers.get('location')], [303, 'https://tool.example.edu/return/a-1/submitted']);
      const left = await end('left', url);
      assert.deepEqual([left.status, left.headers.get('location')], [303, 'https://tool.example.edu/return/a-1/ended']);

      const fallback = await launchUrl('/v2/candidate/launch', candidateRequest({ redirect_settings: undefined, redirect_url: 'https://tool.example.edu/back' }));
      assert.equal((await end('left', fallback)).headers.get('location'), 'https://tool.example.edu/back');
      const nowhere = await launchUrl('/v2/candidate/launch', candidateRequest({ redirect_settings: undefined, redirect_url: undefined }));
      const page = await end('submitted', nowhere);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /nowhere to send the candidate back/);
    });

    it('the reviewer page lists the attempts of its exam', async () => {
      await launchUrl('/v2/candidate/launch', candidateRequest({ exam_tag: 'final', user_id: 'student-77' }));
      const url = await launchUrl('/v2/reviewer/launch', reviewerRequest({ exam_tag: 'final' }));
      const html = await (await fetch(url)).text();
      assert.match(html, /Review center/);
      assert.match(html, /data-user-id="student-77"/);
    });
  });

  describe('the received log', () => {
    it('records endpoint, method, body, key validity and time, also as JSON', async () => {
      const before = server.emulator.received.length;
      await call('/v2/live/launch', { body: liveRequest({ exam_name: 'Logged' }) });
      const entry = server.emulator.received[before]!;
      assert.equal(entry.endpoint, '/v2/live/launch');
      assert.equal(entry.method, 'POST');
      assert.equal(entry.apiKeyValid, true);
      assert.equal((entry.body as { exam_name: string }).exam_name, 'Logged');
      assert.ok(entry.at instanceof Date);
      const listed = (await (await fetch(`${server.base}/_emulator/received`)).json()) as { endpoint: string; body: { exam_name?: string } }[];
      assert.equal(listed.at(-1)?.body.exam_name, 'Logged');
      assert.equal(JSON.stringify(listed).includes(KEY), false, 'the api key is never logged');
    });
  });

  describe('faults through HTTP', () => {
    const inject = (fault: unknown) => fetch(`${server.base}/_emulator/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(fault) });

    it('a status for the next N requests', async () => {
      assert.equal((await inject({ kind: 'status', status: 503, times: 2 })).status, 200);
      assert.equal((await call('/v2/live/launch', { body: liveRequest() })).status, 503);
      assert.equal((await call('/v2/live/launch', { body: liveRequest() })).status, 503);
      assert.equal((await call('/v2/live/launch', { body: liveRequest() })).status, 200);
    });

    it('a body shape until cleared', async () => {
      await inject({ kind: 'body', shape: 'object' });
      for (let i = 0; i < 2; i++) {
        const body = (await (await call('/v2/live/launch', { body: liveRequest() })).json()) as { url: string };
        assert.match(body.url, /\/session\//);
      }
      assert.equal((await fetch(`${server.base}/_emulator/faults`, { method: 'DELETE' })).status, 204);
      const text = await (await call('/v2/live/launch', { body: liveRequest() })).text();
      assert.match(text, /^http:\/\/127\.0\.0\.1:\d+\/sandbox\/proctoring\/session\//);
    });

    it('latency', async () => {
      await inject({ kind: 'latency', ms: 300, times: 1 });
      const started = Date.now();
      await call('/v2/live/launch', { body: liveRequest() });
      assert.ok(Date.now() - started >= 290);
    });

    it('a dropped connection', async () => {
      await inject({ kind: 'drop', times: 1 });
      await assert.rejects(call('/v2/live/launch', { body: liveRequest() }));
      assert.equal(server.emulator.received.at(-1)?.status, 0);
    });

    it('refuses an unknown fault', async () => {
      assert.equal((await inject({ kind: 'fire' })).status, 400);
    });
  });

  describe('webhooks', () => {
    const deliveries: { raw: string; body: Record<string, unknown> }[] = [];
    let receiver: { origin: string; close(): Promise<void> };

    before(async () => {
      const app = express();
      app.post('/hook/:name', express.text({ type: '*/*' }), (req, res) => {
        deliveries.push({ raw: req.body as string, body: { ...(JSON.parse(req.body as string) as Record<string, unknown>), _to: req.params.name } });
        res.status(204).end();
      });
      receiver = await startSideServer(app);
    });
    after(async () => {
      await receiver.close();
    });

    it('subscribe answers the subscription; list answers the array; unsubscribe answers plain text', async () => {
      const created = await call('/v2/whks/subscribe/1', { body: subscribeRequest({ version: '2', client: { url: `${receiver.origin}/hook/v2`, key: 'key-v2' } }) });
      assert.equal(created.status, 200);
      const subscription = (await created.json()) as Record<string, unknown>;
      assert.deepEqual(Object.keys(subscription).sort(), ['data', 'id', 'key', 'url', 'version', 'webhook_type']);
      const listed = (await (await call('/v2/whks/list')).json()) as { id: string }[];
      assert.ok(listed.some((s) => s.id === subscription.id));
      const gone = await call('/v2/whks/unsubscribe', { body: { id: subscription.id } });
      assert.equal(gone.status, 200);
      assert.match(String(gone.headers.get('content-type')), /^text\/plain/);
      assert.equal(await gone.text(), 'Unsubscribed');
    });

    it('refuses a type in the body different from the path', async () => {
      const response = await call('/v2/whks/subscribe/1', { body: subscribeRequest({ type: '2' as '1' }) });
      assert.equal(response.status, 400);
    });

    it('delivers a signed sample notification to each subscriber, in its version', async () => {
      await call('/v2/whks/subscribe/1', { body: subscribeRequest({ version: '2', client: { url: `${receiver.origin}/hook/v2`, key: 'key-v2' } }) });
      await call('/v2/whks/subscribe/1', { body: subscribeRequest({ version: '3', client: { url: `${receiver.origin}/hook/v3` } }) });
      const response = await fetch(`${server.base}/_emulator/webhooks/deliver`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ attempt_id: 'attempt-9', user_id: 'user-9' }),
      });
      const { delivered } = (await response.json()) as { delivered: { status?: number }[] };
      assert.deepEqual(delivered.map((d) => d.status), [204, 204]);
      const v2 = deliveries.find((d) => d.body._to === 'v2')!;
      const v3 = deliveries.find((d) => d.body._to === 'v3')!;

      for (const delivery of [v2, v3]) {
        // The signature covers the data JSON exactly as sent (as public integrations of this API show).
        const dataJson = /"data":(\{.*\})\}$/.exec(delivery.raw)![1]!;
        const expected = createHash('sha1').update(`${String(delivery.body.nonce)}:${dataJson}:${MAIN.secret}`).digest('hex');
        assert.ok(timingSafeEqual(Buffer.from(expected), Buffer.from(String(delivery.body.signature))));
        assert.equal(delivery.body.type, 1);
      }
      assert.equal(v2.body.api_key, 'key-v2');
      assert.equal('api_key' in v3.body, false);
      assert.deepEqual(Object.keys(v2.body.data as object).sort(), ['attempt_id', 'id', 'suspicion']);
      assert.equal((v2.body.data as { attempt_id: string }).attempt_id, 'attempt-9');
      const data3 = v3.body.data as { user_id: string; submission_data: { code: number }; flags: Record<string, number> };
      assert.equal(data3.user_id, 'user-9');
      assert.equal(data3.submission_data.code, 1);
      assert.ok(Object.keys(data3.flags).length >= 13);
    });
  });
});
