import type { Queryable } from '../types.js';

/**
 * Which students (pseudonymous ids) have seen an exam's privacy notice: a launch in a window of its own shows the
 * start page, with the notice, until the student has continued from it once; a framed launch, which always shows
 * it, records it too. Removed with the exam, and by age with the attempts' retention.
 */
export async function up(db: Queryable): Promise<void> {
  await db.query(`
    CREATE TABLE privacy_notices (
      exam_id  uuid NOT NULL REFERENCES exams(id) ON DELETE CASCADE,
      user_id  text NOT NULL,
      shown_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (exam_id, user_id)
    )`);
  await db.query('CREATE INDEX privacy_notices_shown_at ON privacy_notices (shown_at)');
}
