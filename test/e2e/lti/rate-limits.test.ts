import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { loadConfig } from '../../../src/config.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

const pendingLogins = async (app: TestApp) =>
  (await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM lti_login_states WHERE consumed_at IS NULL')).rows[0]?.n ?? 0;

describe('per-client rate limits and pending login states', () => {
  let app: TestApp;

  before(async () => {
    app = await startTestApp({
      TRUST_PROXY_HOPS: '1',
      RATE_LIMIT_WINDOW_SECONDS: '60',
      RATE_LIMIT_LOGIN: '5',
      RATE_LIMIT_LAUNCH: '4',
      RATE_LIMIT_REGISTER: '3',
      RATE_LIMIT_HOSTED: '6',
      MAX_PENDING_LOGINS: '100',
    });
  });
  after(async () => {
    await app.close();
  });

  const login = async (client: string) => {
    const initiation = await app.tool.sandbox!.demoLms.initiateLogin({ user: 'student', presentation: 'window' });
    return supertest(app.baseUrl).post(new URL(initiation.url).pathname).set('X-Forwarded-For', client).type('form').send(initiation.params);
  };

  it('login initiations: past the limit 429 with Retry-After and nothing stored; another client is counted apart', async () => {
    for (let i = 0; i < 5; i += 1) assert.equal((await login('203.0.113.10')).status, 302);
    const stored = await pendingLogins(app);
    const refused = await login('203.0.113.10');
    assert.equal(refused.status, 429, refused.text.slice(0, 300));
    assert.ok(Number(refused.headers['retry-after']) > 0, 'Retry-After is set');
    assert.match(refused.text, /Too many requests/);
    assert.equal(await pendingLogins(app), stored, 'a refused login stores no state');
    assert.equal((await login('203.0.113.11')).status, 302, 'another address has its own budget');
  });

  it('launch, registration and hosted endpoints have their own limits', async () => {
    const client = '198.51.100.7';
    const statuses = async (count: number, request: () => supertest.Test) => {
      const out: number[] = [];
      for (let i = 0; i < count; i += 1) out.push((await request().set('X-Forwarded-For', client)).status);
      return out;
    };
    const launch = await statuses(5, () => supertest(app.baseUrl).post('/lti/launch').type('form').send({ id_token: 'x', state: 'y' }));
    assert.deepEqual(launch.slice(0, 4).includes(429), false);
    assert.equal(launch[4], 429);
    const register = await statuses(4, () => supertest(app.baseUrl).get('/lti/register?link=nope'));
    assert.deepEqual(register, [403, 403, 403, 429]);
    const hosted = await statuses(7, () => supertest(app.baseUrl).get('/hosted/roster?t=bad'));
    assert.deepEqual(hosted, [401, 401, 401, 401, 401, 401, 429]);
    const last = await supertest(app.baseUrl).get('/hosted/roster?t=bad').set('X-Forwarded-For', client);
    assert.equal((last.body as { error?: string }).error, 'too_many_requests', 'hosted endpoints answer JSON');
  });

  it('at most MAX_PENDING_LOGINS logins wait for their launch: a login past it displaces the oldest of the biggest network', async () => {
    const client = '192.0.2.50';
    const missing = 100 - (await pendingLogins(app));
    await app.db.query(
      `INSERT INTO lti_login_states (state, nonce, issuer, created_at) SELECT 'flood-' || i, 'n', 'https://x', now() - make_interval(secs => 300 - i) FROM generate_series(1, $1::int) AS i`,
      [missing],
    );
    const admitted = await login(client);
    assert.equal(admitted.status, 302, admitted.text.slice(0, 300));
    assert.equal(await pendingLogins(app), 100);
    assert.equal((await app.db.query("SELECT count(*)::int AS n FROM lti_login_states WHERE state = 'flood-1'")).rows[0]?.n, 0, 'the oldest of the flood made room');
    // Logins older than the ten minutes a launch may take no longer count, and housekeeping deletes them.
    await app.db.query("UPDATE lti_login_states SET created_at = now() - interval '11 minutes' WHERE state LIKE 'flood-%'");
    assert.equal((await login(client)).status, 302);
    await app.db.query("UPDATE lti_login_states SET created_at = now() - interval '25 minutes' WHERE state LIKE 'flood-%'");
    await app.tool.lti.housekeeping();
    assert.equal((await app.db.query("SELECT count(*)::int AS n FROM lti_login_states WHERE state LIKE 'flood-%'")).rows[0]?.n, 0, 'pending logins live minutes, not hours');
  });

  it('housekeeping keeps a used login (the session) for the session age', async () => {
    await app.db.query("INSERT INTO lti_login_states (state, nonce, issuer, created_at, consumed_at, claims) VALUES ('used-recently', 'n', 'https://x', now() - interval '25 minutes', now() - interval '24 minutes', '{}')");
    await app.tool.lti.housekeeping();
    assert.equal((await app.db.query("SELECT count(*)::int AS n FROM lti_login_states WHERE state = 'used-recently'")).rows[0]?.n, 1);
  });

  it('defaults leave room for a class-start burst behind one address', () => {
    const { rateLimits, maxPendingLogins } = loadConfig({});
    // 1,000 students from one NAT within a window: 1,000 logins and 2,000 launch requests, with room for retries.
    assert.equal(rateLimits.windowSeconds, 300);
    assert.ok(rateLimits.login >= 2 * 1000 && rateLimits.launch >= 2 * 2000);
    assert.ok(maxPendingLogins >= 10 * rateLimits.login, 'the cap is reached only by many addresses together');
  });
});
