import type { Queryable } from '../types.js';

/**
 * Sign-in throttling by client group (an IPv6 /56 or one IPv4 address) and for all clients together: the last
 * full address seen in each group, for the administrator's list of lockouts, and the groups an administrator
 * signed in from, which a lockout of everyone spares.
 */
export async function up(db: Queryable): Promise<void> {
  await db.query('ALTER TABLE admin_sign_in_failures ADD COLUMN last_address text');
  await db.query(`
    CREATE TABLE admin_sign_in_known_clients (
      client       text PRIMARY KEY,
      signed_in_at timestamptz NOT NULL DEFAULT now()
    )`);
}
