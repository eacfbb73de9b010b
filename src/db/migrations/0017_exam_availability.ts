import type { Queryable } from '../types.js';

/**
 * Availability: an exam opens and closes at instants (entered in a time zone, which is kept to show them
 * back), and may be a practice exam, whose attempts are practice attempts.
 */
export async function up(db: Queryable): Promise<void> {
  await db.query('ALTER TABLE exams ADD COLUMN opens_at timestamptz');
  await db.query('ALTER TABLE exams ADD COLUMN closes_at timestamptz');
  await db.query('ALTER TABLE exams ADD COLUMN time_zone text');
  await db.query('ALTER TABLE exams ADD COLUMN practice boolean NOT NULL DEFAULT false');
  await db.query('ALTER TABLE exams ADD CONSTRAINT exams_closes_after_opens CHECK (opens_at IS NULL OR closes_at IS NULL OR closes_at > opens_at)');
  await db.query('ALTER TABLE attempts ADD COLUMN practice boolean NOT NULL DEFAULT false');
}
