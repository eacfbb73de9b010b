import type { Queryable } from '../types.js';

/**
 * Per-student overrides of an exam's settings (accommodations), keyed by the tool's pseudonymous per-student
 * id the launches already send: never a name. `override` is a partial settings document plus `exempt`.
 */
export async function up(db: Queryable): Promise<void> {
  await db.query(`
    CREATE TABLE exam_accommodations (
      exam_id    uuid NOT NULL REFERENCES exams(id) ON DELETE CASCADE,
      user_id    text NOT NULL,
      override   jsonb NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (exam_id, user_id)
    )`);
}
