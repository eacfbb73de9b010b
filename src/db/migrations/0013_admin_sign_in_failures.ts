import type { Queryable } from '../types.js';

/**
 * Sign-in attempts to the admin console per client address, in the database so that every replica behind a
 * load balancer counts the same attempts and a lockout holds whichever replica answers.
 */
export async function up(db: Queryable): Promise<void> {
  await db.query(`
    CREATE TABLE admin_sign_in_failures (
      address           text PRIMARY KEY,
      failures          integer NOT NULL,
      window_started_at timestamptz NOT NULL DEFAULT now()
    )`);
}
