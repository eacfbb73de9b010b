// The console's sign-in limits, through a small Express route as the console mounts them: the delay that grows
// with each failure, the lockout of one client group and of everyone, the groups an administrator signed in from,
// and the list of lockouts an administrator lifts.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import express, { type NextFunction, type Request, type Response } from 'express';
import supertest from 'supertest';
import { createSignInGuard, createSignInLockouts, DEFAULT_SIGN_IN_LIMITS, EVERYONE, type SignInLimits, type SignInLock } from '../../../src/admin/sign-in-limits.js';
import type { Queryable } from '../../../src/db/types.js';
import { migratedTestDatabase, type TestDatabase } from '../../helpers/db.js';

const LIMITS: SignInLimits = {
  maxFailures: 5,
  windowSeconds: 900,
  slowAfter: 1,
  delayStepMs: 100,
  maxDelayMs: 250,
  globalSlowAfter: 5,
  globalMaxFailures: 8,
  knownClientDays: 90,
};

interface Attempt {
  status: number;
  /** The delay asked for before the password check; undefined when the attempt was locked out. */
  delayMs?: number;
  lock?: SignInLock;
}

/**
 * A sign-in route guarded as the console guards it: `?password=right` signs in. The delay is recorded instead of
 * waited (slowDown's timer is the one set while it is called).
 */
function signInRoute(db: Queryable, limits: SignInLimits) {
  const guard = createSignInGuard(db, limits, (_req, res, lock) => {
    res.status(429).json(lock);
  });
  const app = express();
  app.set('trust proxy', true);
  app.post('/sign-in', (req, res, next) => void guard.limit(req, res, next), async (req: Request, res: Response, next: NextFunction) => {
    try {
      const original = globalThis.setTimeout;
      let delayMs = 0;
      globalThis.setTimeout = ((callback: () => void, ms?: number) => {
        delayMs = ms ?? 0;
        return original(callback, 0);
      }) as typeof setTimeout;
      let slowed: Promise<void>;
      try {
        slowed = guard.slowDown(req);
      } finally {
        globalThis.setTimeout = original;
      }
      await slowed;
      res.setHeader('x-delay', String(delayMs));
      if (req.query.password !== 'right') {
        res.status(401).end();
        return;
      }
      await guard.succeeded(req);
      res.status(200).end();
    } catch (error) {
      next(error);
    }
  });
  app.post('/uncounted-success', async (req, res, next) => {
    try {
      await guard.succeeded(req);
      res.status(204).end();
    } catch (error) {
      next(error);
    }
  });
  const attempt = async (address: string, password = 'wrong'): Promise<Attempt> => {
    const response = await supertest(app).post(`/sign-in?password=${password}`).set('X-Forwarded-For', address);
    const delay = response.headers['x-delay'];
    return { status: response.status, delayMs: typeof delay === 'string' ? Number(delay) : undefined, lock: response.status === 429 ? response.body : undefined };
  };
  return { app, attempt };
}

describe('admin sign-in limits', () => {
  let db: TestDatabase;
  before(async () => {
    db = await migratedTestDatabase();
  });
  after(async () => {
    await db?.close();
  });
  beforeEach(async () => {
    await db.query('DELETE FROM admin_sign_in_failures');
    await db.query('DELETE FROM admin_sign_in_known_clients');
  });

  const failures = async () =>
    Object.fromEntries((await db.query<{ address: string; failures: number; last_address: string | null }>('SELECT address, failures, last_address FROM admin_sign_in_failures')).rows.map((row) => [row.address, { failures: row.failures, last: row.last_address }]));
  const known = async () => (await db.query<{ client: string }>('SELECT client FROM admin_sign_in_known_clients ORDER BY client')).rows.map((row) => row.client);
  const assertRetryAfter = (lock: SignInLock | undefined, scope: SignInLock['scope']) => {
    assert.equal(lock?.scope, scope);
    assert.ok(lock.retryAfterSeconds >= LIMITS.windowSeconds - 60 && lock.retryAfterSeconds <= LIMITS.windowSeconds, `retry after ${lock.retryAfterSeconds} s`);
  };

  it('has the documented defaults', () => {
    assert.deepEqual(DEFAULT_SIGN_IN_LIMITS, { maxFailures: 5, windowSeconds: 900, slowAfter: 2, delayStepMs: 500, maxDelayMs: 5000, globalSlowAfter: 20, globalMaxFailures: 100, knownClientDays: 90 });
    assert.equal(EVERYONE, '*');
  });

  it('slows each failure of a client down a step more, up to the most, then locks the client out for the window', async () => {
    const { attempt } = signInRoute(db, LIMITS);
    const attempts: Attempt[] = [];
    for (let i = 0; i < 6; i++) attempts.push(await attempt('203.0.113.1'));
    assert.deepEqual(attempts.map((a) => a.status), [401, 401, 401, 401, 401, 429]);
    assert.deepEqual(attempts.slice(0, 5).map((a) => a.delayMs), [0, 100, 200, 250, 250]);
    assertRetryAfter(attempts[5]!.lock, 'client');
    assert.deepEqual(await failures(), { '203.0.113.1': { failures: 6, last: '203.0.113.1' }, [EVERYONE]: { failures: 5, last: null } });
    assert.equal((await attempt('203.0.113.2')).status, 401, 'another client is not locked out');
  });

  it('adds only checked passwords to the count of everyone: one network hammering its lockout cannot lock everyone out', async () => {
    const { attempt } = signInRoute(db, LIMITS);
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) statuses.push((await attempt('203.0.113.1')).status);
    assert.deepEqual(statuses, [...Array<number>(5).fill(401), ...Array<number>(20).fill(429)]);
    assert.equal((await failures())[EVERYONE]?.failures, 5, 'the five passwords checked, not the twenty refused');
    assert.equal((await attempt('192.0.2.9', 'right')).status, 200, 'an administrator from a network never seen before signs in');
  });

  it('counts the addresses of one IPv6 /56 as one client', async () => {
    const { attempt } = signInRoute(db, LIMITS);
    for (let i = 0; i < 5; i++) assert.equal((await attempt(`2001:db8:0:${i + 1}::1`)).status, 401);
    const locked = await attempt('2001:db8:0:ff::9');
    assertRetryAfter(locked.lock, 'client');
    assert.equal((await attempt('2001:db8:0:100::1')).status, 401, 'the next /56 is another client');
  });

  it('does not count a successful sign-in, and remembers its client', async () => {
    const { attempt } = signInRoute(db, LIMITS);
    assert.equal((await attempt('203.0.113.1')).status, 401);
    assert.equal((await attempt('203.0.113.1')).status, 401);
    const signedIn = await attempt('203.0.113.1', 'right');
    assert.deepEqual([signedIn.status, signedIn.delayMs], [200, 200]);
    assert.deepEqual(await failures(), { '203.0.113.1': { failures: 2, last: '203.0.113.1' }, [EVERYONE]: { failures: 2, last: null } });
    assert.deepEqual(await known(), ['203.0.113.1']);
    assert.equal((await attempt('203.0.113.1')).delayMs, 200, 'the next failure is the third');
  });

  it('starts counting again when the window has passed', async () => {
    const { attempt } = signInRoute(db, LIMITS);
    for (let i = 0; i < 6; i++) await attempt('203.0.113.1');
    await db.query(`UPDATE admin_sign_in_failures SET window_started_at = now() - make_interval(secs => $1)`, [LIMITS.windowSeconds + 1]);
    const again = await attempt('203.0.113.1');
    assert.deepEqual([again.status, again.delayMs], [401, 0]);
    assert.deepEqual(await failures(), { '203.0.113.1': { failures: 1, last: '203.0.113.1' }, [EVERYONE]: { failures: 1, last: null } });
    const window = await db.query<{ fresh: boolean }>('SELECT window_started_at > now() - interval \'1 minute\' AS fresh FROM admin_sign_in_failures');
    assert.deepEqual(window.rows.map((row) => row.fresh), [true, true], 'a new window started');
  });

  it('keeps counting within the window', async () => {
    const { attempt } = signInRoute(db, LIMITS);
    await attempt('203.0.113.1');
    await db.query(`UPDATE admin_sign_in_failures SET window_started_at = now() - make_interval(secs => $1)`, [LIMITS.windowSeconds - 30]);
    const second = await attempt('203.0.113.1');
    assert.equal(second.delayMs, 100);
    const started = await db.query<{ age: number }>('SELECT extract(epoch FROM now() - window_started_at)::integer AS age FROM admin_sign_in_failures');
    assert.ok(started.rows.every((row) => row.age >= LIMITS.windowSeconds - 31), 'the window did not restart');
  });

  it('slows everyone down after the failures of all clients together pass a mark, then locks out all but known clients', async () => {
    const limits = { ...LIMITS, slowAfter: 100, maxFailures: 100 };
    const { attempt } = signInRoute(db, limits);
    assert.equal((await attempt('198.51.100.1', 'right')).status, 200, 'an administrator signs in first');
    await db.query("INSERT INTO admin_sign_in_known_clients (client, signed_in_at) VALUES ('198.51.100.2', now() - interval '91 days')");
    const delays: Array<number | undefined> = [];
    for (let i = 0; i < 8; i++) delays.push((await attempt(`203.0.113.${i + 1}`)).delayMs);
    assert.deepEqual(delays, [0, 0, 0, 0, 0, 100, 200, 250]);
    const locked = await attempt('203.0.113.50');
    assertRetryAfter(locked.lock, 'everyone');
    assert.equal((await attempt('198.51.100.1', 'right')).status, 200, 'the administrator\'s client still signs in');
    assert.equal((await attempt('198.51.100.2')).status, 429, 'a client known too long ago is locked out');
  });

  it('tidies up ended windows and forgotten clients when someone signs in', async () => {
    const { attempt } = signInRoute(db, LIMITS);
    await db.query(`INSERT INTO admin_sign_in_failures (address, failures, window_started_at) VALUES ('192.0.2.1', 3, now() - interval '16 minutes'), ('192.0.2.2', 3, now() - interval '14 minutes')`);
    await db.query(`INSERT INTO admin_sign_in_known_clients (client, signed_in_at) VALUES ('192.0.2.3', now() - interval '91 days'), ('192.0.2.4', now() - interval '89 days')`);
    assert.equal((await attempt('203.0.113.1', 'right')).status, 200);
    assert.deepEqual(Object.keys(await failures()).sort(), [EVERYONE, '192.0.2.2', '203.0.113.1'].sort());
    assert.deepEqual(await known(), ['192.0.2.4', '203.0.113.1']);
  });

  it('takes nothing back for a success it did not count', async () => {
    const { app } = signInRoute(db, LIMITS);
    await db.query(`INSERT INTO admin_sign_in_failures (address, failures) VALUES ('203.0.113.1', 3)`);
    await supertest(app).post('/uncounted-success').set('X-Forwarded-For', '203.0.113.1').expect(204);
    assert.deepEqual(await failures(), { '203.0.113.1': { failures: 3, last: null } });
    assert.deepEqual(await known(), []);
  });

  it('answers an error when the database fails', async () => {
    const broken: Queryable = { query: () => Promise.reject(new Error('database down')) };
    const { attempt } = signInRoute(broken, LIMITS);
    assert.equal((await attempt('203.0.113.1')).status, 500);
  });

  describe('the list of lockouts', () => {
    async function seed() {
      await db.query(`
        INSERT INTO admin_sign_in_failures (address, failures, window_started_at, last_address) VALUES
          ('203.0.113.1', 5, now() - interval '1 minute', '203.0.113.1'),
          ('203.0.113.2', 2, now() - interval '2 minutes', '203.0.113.2'),
          ('2001:db8::/56', 4, now() - interval '3 minutes', '2001:db8::7'),
          ('${EVERYONE}', 11, now() - interval '4 minutes', NULL),
          ('203.0.113.3', 0, now() - interval '1 minute', '203.0.113.3'),
          ('203.0.113.4', 9, now() - interval '20 minutes', '203.0.113.4')`);
    }

    it('lists the groups with failures in their window, locked ones first, then by failures', async () => {
      await seed();
      const lockouts = createSignInLockouts(db, LIMITS);
      const listed = await lockouts.list();
      assert.deepEqual(
        listed.map(({ client, lastAddress, failures, locked }) => ({ client, lastAddress, failures, locked })),
        [
          { client: EVERYONE, lastAddress: undefined, failures: 11, locked: true },
          { client: '203.0.113.1', lastAddress: '203.0.113.1', failures: 5, locked: true },
          { client: '2001:db8::/56', lastAddress: '2001:db8::7', failures: 4, locked: false },
          { client: '203.0.113.2', lastAddress: '203.0.113.2', failures: 2, locked: false },
        ],
      );
      const started = await db.query<{ address: string; ends: Date }>("SELECT address, window_started_at + interval '15 minutes' AS ends FROM admin_sign_in_failures");
      for (const entry of listed) {
        assert.equal(entry.windowEndsAt.getTime(), new Date(started.rows.find((row) => row.address === entry.client)!.ends).getTime(), entry.client);
      }
    });

    it('counts a group locked from its last allowed failure on, everyone from the global mark', async () => {
      await db.query(`INSERT INTO admin_sign_in_failures (address, failures) VALUES ('203.0.113.1', 4), ('203.0.113.2', 5), ('${EVERYONE}', 7)`);
      const listed = await createSignInLockouts(db, LIMITS).list();
      assert.deepEqual(listed.map(({ client, locked }) => [client, locked]), [['203.0.113.2', true], [EVERYONE, false], ['203.0.113.1', false]]);
      await db.query(`UPDATE admin_sign_in_failures SET failures = 8 WHERE address = '${EVERYONE}'`);
      assert.equal((await createSignInLockouts(db, LIMITS).list()).find((entry) => entry.client === EVERYONE)?.locked, true);
    });

    it('uses the default limits when given none', async () => {
      await db.query(`INSERT INTO admin_sign_in_failures (address, failures, window_started_at) VALUES ('203.0.113.1', 5, now() - interval '14 minutes'), ('${EVERYONE}', 99, now())`);
      const listed = await createSignInLockouts(db).list();
      assert.deepEqual(listed.map(({ client, locked }) => [client, locked]), [['203.0.113.1', true], [EVERYONE, false]]);
    });

    it('lifts one group, telling whether it had failures', async () => {
      await seed();
      const lockouts = createSignInLockouts(db, LIMITS);
      assert.equal(await lockouts.lift('203.0.113.1'), true);
      assert.equal(await lockouts.lift('203.0.113.1'), false);
      assert.equal(await lockouts.lift('198.51.100.1'), false);
      assert.deepEqual((await lockouts.list()).map((entry) => entry.client), [EVERYONE, '2001:db8::/56', '203.0.113.2']);
    });

    it('lifts every group, counting those that had failures', async () => {
      await seed();
      const lockouts = createSignInLockouts(db, LIMITS);
      assert.equal(await lockouts.liftAll(), 5);
      assert.deepEqual(await lockouts.list(), []);
      assert.equal(await lockouts.liftAll(), 0);
    });
  });
});
