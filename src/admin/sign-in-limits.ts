import type { Request, RequestHandler } from 'express';
import type { Queryable } from '../db/types.js';

/**
 * Sign-in attempts per client address: after `slowAfter` failures each further attempt waits a little
 * longer, and after `maxFailures` within the window the address is locked out until the window ends.
 * Successful sign-ins do not count. The counters are kept in the database (admin_sign_in_failures), so that
 * replicas behind a load balancer share them: a lockout holds whichever replica answers.
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
}

export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = { maxFailures: 5, windowSeconds: 15 * 60, slowAfter: 2, delayStepMs: 500, maxDelayMs: 5000 };

export interface SignInGuard {
  /** Counts the attempt and refuses locked-out addresses (calls `onLocked`). */
  limit: RequestHandler;
  /** Waits before the password is checked, longer after each failure. */
  slowDown(req: Request): Promise<void>;
  /** The attempt signed in: it does not count as a failure. */
  succeeded(req: Request): Promise<void>;
}

const COUNTED = Symbol('admin sign-in attempt counted');
type CountedRequest = Request & { [COUNTED]?: number };

const addressOf = (req: Request) => req.ip ?? 'unknown';

export function createSignInGuard(db: Queryable, limits: SignInLimits, onLocked: RequestHandler): SignInGuard {
  return {
    async limit(req, res, next) {
      try {
        const { rows } = await db.query<{ failures: number }>(
          `INSERT INTO admin_sign_in_failures AS f (address, failures, window_started_at) VALUES ($1, 1, now())
           ON CONFLICT (address) DO UPDATE SET
             failures = CASE WHEN f.window_started_at <= now() - make_interval(secs => $2) THEN 1 ELSE f.failures + 1 END,
             window_started_at = CASE WHEN f.window_started_at <= now() - make_interval(secs => $2) THEN now() ELSE f.window_started_at END
           RETURNING failures`,
          [addressOf(req), limits.windowSeconds],
        );
        const counted = rows[0]?.failures ?? 1;
        (req as CountedRequest)[COUNTED] = counted;
        if (counted > limits.maxFailures) {
          res.set('Retry-After', String(limits.windowSeconds));
          await onLocked(req, res, next);
          return;
        }
        next();
      } catch (error) {
        next(error);
      }
    },
    async slowDown(req) {
      const failuresBefore = ((req as CountedRequest)[COUNTED] ?? 1) - 1;
      const delay = Math.min(Math.max(failuresBefore - limits.slowAfter + 1, 0) * limits.delayStepMs, limits.maxDelayMs);
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    },
    async succeeded(req) {
      if ((req as CountedRequest)[COUNTED] === undefined) return;
      await db.query('UPDATE admin_sign_in_failures SET failures = greatest(failures - 1, 0) WHERE address = $1', [addressOf(req)]);
      // Windows that ended are of no use: tidy up while here (one administrator signs in now and then).
      await db.query('DELETE FROM admin_sign_in_failures WHERE window_started_at <= now() - make_interval(secs => $1)', [limits.windowSeconds]);
    },
  };
}
