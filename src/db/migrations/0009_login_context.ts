import type { Queryable } from '../types.js';

/**
 * How each OIDC login ran, so a launch whose state cookie did not come back can say why: inside the LMS's
 * frame or in a window of its own, and whether the platform offered its client-side storage.
 */
export async function up(db: Queryable): Promise<void> {
  await db.query('ALTER TABLE lti_login_states ADD COLUMN framed boolean');
  await db.query('ALTER TABLE lti_login_states ADD COLUMN storage_target text');
}
