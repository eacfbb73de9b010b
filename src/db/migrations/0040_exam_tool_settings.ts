import type { Queryable } from '../types.js';

/**
 * Tool-side exam settings without columns of their own are members of one document per exam
 * (src/exams/tool-settings/rows.ts): a new such setting needs no migration.
 */
export async function up(db: Queryable): Promise<void> {
  await db.query(`ALTER TABLE exams ADD COLUMN tool_settings jsonb NOT NULL DEFAULT '{}'::jsonb`);
}
