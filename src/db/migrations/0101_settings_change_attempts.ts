import type { Queryable } from '../types.js';

/** How many attempts the exam had when its settings changed: they ran under the settings before the change. */
export async function up(db: Queryable): Promise<void> {
  await db.query('ALTER TABLE exam_settings_changes ADD COLUMN attempts_before integer');
}
