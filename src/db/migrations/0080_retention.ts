import type { Queryable } from '../types.js';

/**
 * Retention: an index on the time column of each pruned table (the prune deletes by age, and without one each
 * batch would read the whole table), and the schedule's record of when a prune last started, which lets one
 * replica at a time take the turn.
 */
export async function up(db: Queryable): Promise<void> {
  await db.query('CREATE INDEX launch_log_at ON launch_log (at)');
  await db.query('CREATE INDEX attempts_started_at ON attempts (started_at)');
  await db.query('CREATE INDEX webhook_deliveries_received_at ON webhook_deliveries (received_at)');
  await db.query(`
    CREATE TABLE scheduled_tasks (
      name              text PRIMARY KEY,
      last_started_at   timestamptz NOT NULL,
      last_finished_at  timestamptz,
      last_result       jsonb
    )`);
}
