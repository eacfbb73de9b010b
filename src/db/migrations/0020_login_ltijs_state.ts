import type { Queryable } from '../types.js';

/**
 * Whether ltijs stored a `state` document for a login (it does only when the target link URI has a query
 * string): a launch of a login without one skips ltijs's lookup of it. Null for logins from before.
 */
export async function up(db: Queryable): Promise<void> {
  await db.query('ALTER TABLE lti_login_states ADD COLUMN ltijs_state boolean');
}
