import type { Queryable } from '../types.js';

/**
 * A course copy brings the original course's quiz address with the settings: such an exam waits for an
 * instructor to confirm or replace the address before students can start it.
 */
export async function up(db: Queryable): Promise<void> {
  await db.query('ALTER TABLE exams ADD COLUMN quiz_address_check boolean NOT NULL DEFAULT false');
}
