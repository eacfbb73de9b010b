import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import supertest from 'supertest';
import { createAuditLog } from '../../../src/admin/audit.js';
import { DEFAULT_SIGN_IN_LIMITS, type SignInLimits } from '../../../src/admin/sign-in-limits.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { ADMIN_TEST_PASSWORD, csrfFrom, startSecondConsole } from '../../helpers/admin.js';

/** One sign-in attempt from `address` (behind one trusted proxy, which reports it in X-Forwarded-For). */
async function attempt(baseUrl: string, address: string, password: string): Promise<{ status: number; agent: ReturnType<typeof supertest.agent>; text: string; retryAfter?: string }> {
  const agent = supertest.agent(baseUrl);
  const token = csrfFrom((await agent.get('/admin/sign-in').set('X-Forwarded-For', address).expect(200)).text);
  const response = await agent.post('/admin/sign-in').set('X-Forwarded-For', address).type('form').send({ _csrf: token, password, next: '/admin' });
  return { status: response.status, agent, text: response.text, retryAfter: response.headers['retry-after'] as string | undefined };
}

describe('admin sign-in throttling against address rotation', () => {
  let app: TestApp;
  /** A second console on the same database with small limits for all clients together. */
  let small: { url: string; close(): Promise<void> };
  let smallUrl: string;
  const smallLimits: SignInLimits = { ...DEFAULT_SIGN_IN_LIMITS, delayStepMs: 20, maxDelayMs: 100, globalSlowAfter: 3, globalMaxFailures: 8 };

  before(async () => {
    app = await startTestApp({ ADMIN_PASSWORD: ADMIN_TEST_PASSWORD, TRUST_PROXY_HOPS: '1' });
    small = await startSecondConsole(app, { signInLimits: smallLimits, trustProxy: true });
    smallUrl = small.url;
  });
  after(async () => {
    await small.close();
    await app.close();
  });
  beforeEach(async () => {
    await app.db.query('DELETE FROM admin_sign_in_failures');
    await app.db.query('DELETE FROM admin_sign_in_known_clients');
  });

  it('locks out an IPv6 network whose addresses rotate within a /64: counted as its /56, like the rate limiter', async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= 20; i += 1) statuses.push((await attempt(app.baseUrl, `2001:db8:1:2::${i.toString(16)}`, `wrong password ${i}`)).status);
    assert.deepEqual(statuses.slice(0, 5), [401, 401, 401, 401, 401]);
    assert.ok(statuses.slice(5).every((status) => status === 429), `locked out after five: ${statuses.join(', ')}`);
    // Another /64 of the same /56 is the same client; another /56 is not.
    assert.equal((await attempt(app.baseUrl, '2001:db8:1:ff::1', ADMIN_TEST_PASSWORD)).status, 429);
    assert.equal((await attempt(app.baseUrl, '2001:db8:2::1', ADMIN_TEST_PASSWORD)).status, 303);
  });

  it('caps the wrong passwords of all addresses together, slowing down first; an administrator known from before still signs in', async () => {
    // The administrator signed in from this network earlier.
    assert.equal((await attempt(smallUrl, '198.51.100.7', ADMIN_TEST_PASSWORD)).status, 303);
    const durations: number[] = [];
    for (let i = 1; i <= 8; i += 1) {
      const started = performance.now();
      assert.equal((await attempt(smallUrl, `203.0.113.${i}`, 'wrong password')).status, 401, `attempt ${i} is checked`);
      durations.push(performance.now() - started);
    }
    assert.ok(Math.min(...durations.slice(4)) >= 20, `attempts past the third wait: ${durations.map(Math.round).join(', ')} ms`);
    const refused = await attempt(smallUrl, '203.0.113.200', ADMIN_TEST_PASSWORD);
    assert.equal(refused.status, 429, 'a fresh address is refused even with the right password');
    assert.match(refused.text, /paused for 15 minutes/);
    assert.ok(Number(refused.retryAfter) > 0 && Number(refused.retryAfter) <= 900, `Retry-After ${refused.retryAfter}`);
    assert.equal((await attempt(smallUrl, '198.51.100.7', ADMIN_TEST_PASSWORD)).status, 303, 'the known network still signs in');
  });

  it('shows the lockouts in the console, and lifting one lets that network sign in again (audited)', async () => {
    for (let i = 1; i <= 6; i += 1) await attempt(app.baseUrl, `2001:db8:5:6::${i}`, 'wrong password');
    assert.equal((await attempt(app.baseUrl, '2001:db8:5:6::99', ADMIN_TEST_PASSWORD)).status, 429);
    const admin = await attempt(app.baseUrl, '192.0.2.10', ADMIN_TEST_PASSWORD);
    assert.equal(admin.status, 303);
    const page = await admin.agent.get('/admin/sign-in-lockouts').set('X-Forwarded-For', '192.0.2.10').expect(200);
    assert.match(page.text, /2001:db8:5::\/56/);
    assert.match(page.text, /2001:db8:5:6::99/, 'the last address seen');
    assert.match(page.text, /Locked out/);
    const lifted = await admin.agent.post('/admin/sign-in-lockouts/lift').set('X-Forwarded-For', '192.0.2.10').type('form').send({ _csrf: csrfFrom(page.text), client: '2001:db8:5::/56' });
    assert.equal(lifted.status, 303);
    assert.equal((await attempt(app.baseUrl, '2001:db8:5:6::100', ADMIN_TEST_PASSWORD)).status, 303);
    const [unlock] = await createAuditLog(app.db).list({ action: 'admin.sign_in_unlock' });
    assert.equal(unlock?.target, '2001:db8:5::/56');
    assert.equal(unlock?.remoteAddress, '192.0.2.10');
    const [lockout] = await createAuditLog(app.db).list({ action: 'admin.sign_in_lockout' });
    assert.equal(lockout?.target, '2001:db8:5::/56');
  });

  it('audits failed sign-ins and sign-outs with the address', async () => {
    await attempt(app.baseUrl, '192.0.2.44', 'a wrong password');
    const [failed] = await createAuditLog(app.db).list({ action: 'admin.sign_in_failed' });
    assert.equal(failed?.remoteAddress, '192.0.2.44');
    assert.ok(!JSON.stringify(failed).includes('a wrong password'), 'the password tried is never recorded');
    const admin = await attempt(app.baseUrl, '192.0.2.45', ADMIN_TEST_PASSWORD);
    const page = await admin.agent.get('/admin').set('X-Forwarded-For', '192.0.2.45').expect(200);
    await admin.agent.post('/admin/sign-out').set('X-Forwarded-For', '192.0.2.45').type('form').send({ _csrf: csrfFrom(page.text) }).expect(303);
    const [signOut] = await createAuditLog(app.db).list({ action: 'admin.sign_out' });
    assert.equal(signOut?.remoteAddress, '192.0.2.45');
  });
});
