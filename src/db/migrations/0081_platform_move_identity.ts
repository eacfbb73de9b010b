import type { Queryable } from '../types.js';

/**
 * A platform moved to a new issuer keeps its people's, exams' and courses' ids: `pseudonym_bindings.derive_as`
 * names the issuer whose ids the new one's are derived as (lti/pseudonym-keys.ts). A launch refused because
 * its issuer is unknown but its client id or deployment id is registered under another platform is kept with
 * that platform (`looks_like_*`), so the console can offer the move.
 */
export async function up(db: Queryable): Promise<void> {
  await db.query('ALTER TABLE pseudonym_bindings ADD COLUMN derive_as text');
  await db.query('ALTER TABLE lti_refused_registrations ADD COLUMN looks_like_issuer text');
  await db.query('ALTER TABLE lti_refused_registrations ADD COLUMN looks_like_client_id text');
}
