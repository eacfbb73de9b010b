import type { Request, Response, NextFunction } from 'express';
import type { Queryable } from '../db/types.js';
import { clientKeyOf } from '../http/rate-limits.js';
import { requestSlot } from '../http/request-slots.js';

/**
 * Sign-in attempts per client group, as the rate limiter groups clients (one IPv4 address, or an IPv6 /56, so
 * that rotating addresses within one network gains nothing), and for all clients together:
 * - per group, after `slowAfter` failures each further attempt waits a little longer, and after `maxFailures`
 *   within the window the group is locked out until the window ends;
 * - all groups together, after `globalSlowAfter` failures every attempt waits, and after `globalMaxFailures`
 *   sign-in is locked for everyone except groups an administrator signed in from lately (`knownClientDays`),
 *   so that guesses spread over many networks stay few while the administrator can still sign in.
 * Successful sign-ins do not count. The counters are kept in the database (admin_sign_in_failures), so that
 * replicas behind a load balancer share them: a lockout holds whichever replica answers. An administrator sees
 * the lockouts and lifts them in the console or with `proctor-lti admin unlock`.
 *
 * Each attempt is counted before its password is checked (one atomic upsert) and taken back when it
 * succeeds, so attempts running at the same time on several replicas cannot pass the limit together.
 */
export interface SignInLimits {
  maxFailures: number;
  windowSeconds: number;
  slowAfter: number;
  delayStepMs: number;
  maxDelayMs: number;
  globalSlowAfter: number;
  globalMaxFailures: number;
  knownClientDays: number;
}

export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = {
  maxFailures: 5,
  windowSeconds: 15 * 60,
  slowAfter: 2,
  delayStepMs: 500,
  maxDelayMs: 5000,
  globalSlowAfter: 20,
  globalMaxFailures: 100,
  knownClientDays: 90,
};

/** The row that counts every client's failures together (client keys are addresses or networks, never this). */
export const EVERYONE = '*';

export type LockoutScope = 'client' | 'everyone';

export interface SignInLock {
  scope: LockoutScope;
  retryAfterSeconds: number;
}

export interface SignInGuard {
  /** Counts the attempt and refuses locked-out clients (calls `onLocked`). */
  limit(req: Request, res: Response, next: NextFunction): Promise<void>;
  /** Waits before the password is checked, longer after each failure. */
  slowDown(req: Request): Promise<void>;
  /** The attempt signed in: it does not count as a failure, and its client group is known from now on. */
  succeeded(req: Request): Promise<void>;
}

interface Counted {
  client: number;
  everyone: number;
}

const counts = requestSlot<Request, Counted>('admin sign-in attempt counted');

/** One more failure in the row's window ($2 seconds), or the first of a new window once it has passed. */
const COUNT_ONE_MORE = `failures = CASE WHEN f.window_started_at <= now() - make_interval(secs => $2) THEN 1 ELSE f.failures + 1 END,
  window_started_at = CASE WHEN f.window_started_at <= now() - make_interval(secs => $2) THEN now() ELSE f.window_started_at END`;
const REMAINING = 'ceil(extract(epoch FROM window_started_at + make_interval(secs => $2) - now()))::integer AS remaining';

export function createSignInGuard(db: Queryable, limits: SignInLimits, onLocked: (req: Request, res: Response, lock: SignInLock) => void): SignInGuard {
  const delayFor = (failuresBefore: number, slowAfter: number) => Math.min(Math.max(failuresBefore - slowAfter + 1, 0) * limits.delayStepMs, limits.maxDelayMs);
  return {
    async limit(req, res, next) {
      try {
        const client = clientKeyOf(req.ip);
        // The attempt of a locked-out client checks no password: it is not added to the count of everyone, or
        // one network hammering its own lockout would lock every other network out.
        const { rows } = await db.query<{ address: string; failures: number; remaining: number }>(
          `WITH own AS (
             INSERT INTO admin_sign_in_failures AS f (address, failures, window_started_at, last_address) VALUES ($1, 1, now(), $3)
             ON CONFLICT (address) DO UPDATE SET ${COUNT_ONE_MORE}, last_address = coalesce(EXCLUDED.last_address, f.last_address)
             RETURNING address, failures, ${REMAINING}
           ), everyone AS (
             INSERT INTO admin_sign_in_failures AS f (address, failures, window_started_at, last_address)
             SELECT '${EVERYONE}', 1, now(), NULL FROM own WHERE own.failures <= $4
             ON CONFLICT (address) DO UPDATE SET ${COUNT_ONE_MORE}
             RETURNING address, failures, ${REMAINING}
           )
           SELECT * FROM own UNION ALL SELECT * FROM everyone`,
          [client, limits.windowSeconds, req.ip ?? null, limits.maxFailures],
        );
        const own = rows.find((row) => row.address === client);
        const all = rows.find((row) => row.address === EVERYONE);
        counts.set(req, { client: own?.failures ?? 1, everyone: all?.failures ?? 1 });
        if (own && own.failures > limits.maxFailures) {
          onLocked(req, res, { scope: 'client', retryAfterSeconds: Math.max(own.remaining, 1) });
          return;
        }
        if (all && all.failures > limits.globalMaxFailures && !(await isKnown(db, client, limits.knownClientDays))) {
          onLocked(req, res, { scope: 'everyone', retryAfterSeconds: Math.max(all.remaining, 1) });
          return;
        }
        next();
      } catch (error) {
        next(error);
      }
    },
    async slowDown(req) {
      const counted = counts.get(req) ?? { client: 1, everyone: 1 };
      const delay = Math.max(delayFor(counted.client - 1, limits.slowAfter), delayFor(counted.everyone - 1, limits.globalSlowAfter));
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    },
    async succeeded(req) {
      if (counts.get(req) === undefined) return;
      const client = clientKeyOf(req.ip);
      await db.query('UPDATE admin_sign_in_failures SET failures = greatest(failures - 1, 0) WHERE address = $1 OR address = $2', [client, EVERYONE]);
      await db.query('INSERT INTO admin_sign_in_known_clients (client) VALUES ($1) ON CONFLICT (client) DO UPDATE SET signed_in_at = now()', [client]);
      // Windows that ended are of no use: tidy up while here (one administrator signs in now and then).
      await db.query('DELETE FROM admin_sign_in_failures WHERE window_started_at <= now() - make_interval(secs => $1)', [limits.windowSeconds]);
      await db.query('DELETE FROM admin_sign_in_known_clients WHERE signed_in_at <= now() - make_interval(days => $1)', [limits.knownClientDays]);
    },
  };
}

async function isKnown(db: Queryable, client: string, days: number): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM admin_sign_in_known_clients WHERE client = $1 AND signed_in_at > now() - make_interval(days => $2)', [client, days]);
  return rows.length > 0;
}

/** The failures counted in the current window of one client group, or of everyone ({@link EVERYONE}). */
export interface SignInFailureCount {
  client: string;
  /** The last full address that failed in this group (undefined for everyone). */
  lastAddress?: string;
  failures: number;
  windowEndsAt: Date;
  locked: boolean;
}

export interface SignInLockouts {
  /** Groups with failures in their current window, locked ones first, then by failures. */
  list(): Promise<SignInFailureCount[]>;
  /** Forgets the failures of one group (or of everyone): its lockout ends at once. False when none were counted. */
  lift(client: string): Promise<boolean>;
  /** Forgets every failure counted. Returns how many groups had any. */
  liftAll(): Promise<number>;
}

export function createSignInLockouts(db: Queryable, limits: SignInLimits = DEFAULT_SIGN_IN_LIMITS): SignInLockouts {
  return {
    async list() {
      const { rows } = await db.query<{ address: string; last_address: string | null; failures: number; window_ends_at: Date }>(
        `SELECT address, last_address, failures, window_started_at + make_interval(secs => $1) AS window_ends_at
           FROM admin_sign_in_failures WHERE failures > 0 AND window_started_at > now() - make_interval(secs => $1)`,
        [limits.windowSeconds],
      );
      return rows
        .map((row) => ({
          client: row.address,
          lastAddress: row.last_address ?? undefined,
          failures: row.failures,
          windowEndsAt: new Date(row.window_ends_at),
          locked: row.failures >= (row.address === EVERYONE ? limits.globalMaxFailures : limits.maxFailures),
        }))
        .sort((a, b) => Number(b.locked) - Number(a.locked) || b.failures - a.failures);
    },
    async lift(client) {
      const result = await db.query('DELETE FROM admin_sign_in_failures WHERE address = $1', [client]);
      return (result.rowCount ?? 0) > 0;
    },
    async liftAll() {
      const result = await db.query('DELETE FROM admin_sign_in_failures WHERE failures > 0');
      return result.rowCount ?? 0;
    },
  };
}
