import type { Queryable } from '../types.js';

/** An attempt of a student exempted from proctoring (an accommodation): sent straight to the quiz, and the hub says so. */
export async function up(db: Queryable): Promise<void> {
  await db.query('ALTER TABLE attempts ADD COLUMN exempt boolean NOT NULL DEFAULT false');
}
