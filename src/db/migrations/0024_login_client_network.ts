import type { Queryable } from '../types.js';

/**
 * The client network (an IPv4 address or an IPv6 /56, as the rate limiter groups clients) each login came from:
 * when the pending-login cap is full, the oldest pending login of the network holding the most makes room, and
 * this index finds that network and its oldest login on the pending logins alone.
 */
export async function up(db: Queryable): Promise<void> {
  await db.query('ALTER TABLE lti_login_states ADD COLUMN client_network text');
  await db.query('CREATE INDEX lti_login_states_pending_by_network ON lti_login_states (client_network, created_at) WHERE consumed_at IS NULL');
}
