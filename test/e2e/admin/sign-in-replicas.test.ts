import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import supertest from 'supertest';
import { createSignInLockouts } from '../../../src/admin/sign-in-limits.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { ADMIN_TEST_PASSWORD, csrfFrom, startSecondConsole } from '../../helpers/admin.js';

/**
 * Two instances of the console on one database, as two replicas behind a load balancer: the tool itself, and
 * a second console built like the tool builds its own (its own process memory, the same database). Wrong
 * passwords sent to either count for both, so the lockout holds whichever instance answers.
 */
describe('admin sign-in lockout across instances on one database', () => {
  let app: TestApp;
  let second: { url: string; close(): Promise<void> };
  let secondUrl: string;
  before(async () => {
    app = await startTestApp({ ADMIN_PASSWORD: ADMIN_TEST_PASSWORD });
    second = await startSecondConsole(app);
    secondUrl = second.url;
  });
  after(async () => {
    await second.close();
    await app.close();
  });
  // All attempts come from 127.0.0.1: each test starts without failures counted, and lifts the lockout it causes.
  const liftLockouts = async () => {
    await createSignInLockouts(app.db).liftAll();
  };
  beforeEach(liftLockouts);
  afterEach(liftLockouts);

  const attempt = async (baseUrl: string, password: string) => {
    const agent = supertest.agent(baseUrl);
    const token = csrfFrom((await agent.get('/admin/sign-in').expect(200)).text);
    return (await agent.post('/admin/sign-in').type('form').send({ _csrf: token, password })).status;
  };

  it('counts wrong passwords on both instances together and locks the address out on both', async () => {
    // Five wrong passwords, spread over the two instances, three of them at the same time.
    assert.equal(await attempt(app.baseUrl, 'wrong password 1'), 401);
    assert.equal(await attempt(secondUrl, 'wrong password 2'), 401);
    const together = await Promise.all([attempt(app.baseUrl, 'wrong password 3'), attempt(secondUrl, 'wrong password 4'), attempt(app.baseUrl, 'wrong password 5')]);
    assert.deepEqual(together, [401, 401, 401]);
    // Each instance alone saw at most three: only the shared count reaches the limit.
    assert.equal(await attempt(app.baseUrl, ADMIN_TEST_PASSWORD), 429, 'locked on the first instance, even with the right password');
    assert.equal(await attempt(secondUrl, ADMIN_TEST_PASSWORD), 429, 'locked on the second instance too');
    const { rows } = await app.db.query<{ failures: number }>("SELECT failures FROM admin_sign_in_failures WHERE address <> '*'");
    assert.equal(rows.length, 1, 'one address');
    assert.ok(rows[0]!.failures >= 5);
  });

  it('attempts at the same time on both instances cannot pass the limit together', async () => {
    const statuses = await Promise.all(Array.from({ length: 8 }, (_, i) => attempt(i % 2 === 0 ? app.baseUrl : secondUrl, `wrong password ${i}`)));
    assert.equal(statuses.filter((status) => status === 401).length, 5, `five refused as wrong, the rest locked out: ${statuses.join(', ')}`);
    assert.equal(statuses.filter((status) => status === 429).length, 3);
  });

  it('a successful sign-in does not count as a failure', async () => {
    assert.equal(await attempt(secondUrl, ADMIN_TEST_PASSWORD), 303);
    assert.equal(await attempt(app.baseUrl, ADMIN_TEST_PASSWORD), 303);
    const { rows } = await app.db.query<{ failures: number }>('SELECT failures FROM admin_sign_in_failures');
    assert.ok(rows.every((row) => row.failures === 0));
  });
});
