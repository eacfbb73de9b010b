import type { Queryable } from '../types.js';

/**
 * The ltijs documents every launch replaces (idtoken, contexttoken) carry the key of the query that replaces
 * them, unique per collection: a replace is then one INSERT … ON CONFLICT instead of a locked transaction of
 * four round trips. Rows written before have no key; the first replace of their query removes them.
 */
export async function up(db: Queryable): Promise<void> {
  await db.query('ALTER TABLE ltijs_documents ADD COLUMN replace_key text');
  await db.query('CREATE UNIQUE INDEX ltijs_documents_replace_key ON ltijs_documents (collection, replace_key) WHERE replace_key IS NOT NULL');
}
