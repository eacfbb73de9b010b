import type { Queryable } from '../types.js';

/**
 * The proctoring account each attempt was launched through (`default` or a per-platform account's id), so that
 * a suspicion result is accepted for an attempt only from a subscription of that same account. Attempts from
 * before this column fall back to their platform's account.
 */
export async function up(db: Queryable): Promise<void> {
  await db.query('ALTER TABLE attempts ADD COLUMN account_ref text');
}
