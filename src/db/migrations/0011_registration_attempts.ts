import type { Queryable } from '../types.js';

/** Failed dynamic registrations per link: a link is used up after a few, so it cannot serve as a probe. */
export async function up(db: Queryable): Promise<void> {
  await db.query('ALTER TABLE registration_links ADD COLUMN failed_attempts integer NOT NULL DEFAULT 0');
}
