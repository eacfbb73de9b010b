import type { Queryable } from '../types.js';

/**
 * When an attempt's proctoring link stops being valid: an attempt still open after that was abandoned (the
 * hub and the CSV say so, and the next launch starts a new attempt). Open attempts from before get the longest
 * validity a candidate link can have, so none of them ends earlier than its link did.
 */
export async function up(db: Queryable): Promise<void> {
  await db.query('ALTER TABLE attempts ADD COLUMN expires_at timestamptz');
  await db.query("UPDATE attempts SET expires_at = started_at + interval '18000 seconds' WHERE status = 'started'");
}
