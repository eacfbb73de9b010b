import type { Queryable } from '../types.js';

/**
 * The course a copied exam's quiz address came from (its LTI context id). A copy from another course carries
 * that course's quiz, which must never be confirmed with one click; a duplicate within the course may be.
 */
export async function up(db: Queryable): Promise<void> {
  await db.query('ALTER TABLE exams ADD COLUMN quiz_address_course text');
}
