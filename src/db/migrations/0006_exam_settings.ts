import type { Queryable } from '../types.js';

/** Who changed an exam's settings, when, and what (every change is recorded). */
export async function up(db: Queryable): Promise<void> {
  await db.query(`
    CREATE TABLE exam_settings_changes (
      id        bigserial PRIMARY KEY,
      exam_id   uuid NOT NULL REFERENCES exams(id) ON DELETE CASCADE,
      at        timestamptz NOT NULL DEFAULT now(),
      user_id   text,
      source    text NOT NULL,
      changes   jsonb NOT NULL
    )`);
  await db.query('CREATE INDEX exam_settings_changes_exam ON exam_settings_changes (exam_id, at DESC, id DESC)');
}
