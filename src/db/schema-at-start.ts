import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { openDatabase } from './index.js';
import { migrate, schemaStatus, waitForSchema, type SchemaStatus } from './migrate.js';
import type { Database } from './types.js';

/** A waiting replica says so at most this often. */
const WAIT_LOG_EVERY_MS = 5000;

/**
 * Brings a serving replica to the schema it needs before it serves: with DATABASE_MIGRATIONS=apply (and always on
 * the embedded database) it applies pending migrations on a connection of its own without the serving pool's
 * statement timeout; with `wait` it leaves the schema to `proctor-lti migrate` and waits for it. Either wait is
 * bounded by DATABASE_SCHEMA_WAIT_SECONDS and logged; past it, this throws `SchemaWaitTimeout`.
 */
export async function prepareSchema(db: Database, database: Config['database'], logger: Logger): Promise<void> {
  const timeoutMs = database.schemaWaitSeconds * 1000;
  let loggedAt = -Infinity;
  const every = (waitedMs: number, log: () => void) => {
    if (waitedMs - loggedAt < WAIT_LOG_EVERY_MS) return;
    loggedAt = waitedMs;
    log();
  };
  if (database.migrations === 'wait' && db.kind === 'postgres') {
    const status = await waitForSchema(db, {
      timeoutMs,
      onPending: (seen, waitedMs) =>
        every(waitedMs, () =>
          logger.warn(
            { waitedSeconds: Math.round(waitedMs / 1000), timeoutSeconds: database.schemaWaitSeconds, ...('error' in seen ? { databaseError: seen.error } : { pending: seen.pending.length, firstPending: seen.pending[0] }) },
            'waiting for the database schema: run `proctor-lti migrate`',
          ),
        ),
    });
    noteNewerSchema(status, logger);
    logger.info({ applied: status.applied.length }, 'database schema ready');
    return;
  }
  // The embedded database is one connection: its own handle. PostgreSQL: one connection without timeouts.
  const schemaDb = db.kind === 'pglite' ? db : await openDatabase({ ...database, forSchemaChanges: true });
  try {
    const applied = await migrate(schemaDb, undefined, {
      timeoutMs,
      onWait: (waitedMs) => every(waitedMs, () => logger.warn({ waitedSeconds: Math.round(waitedMs / 1000), timeoutSeconds: database.schemaWaitSeconds }, 'waiting for the migration lock: another process is migrating the database')),
    });
    if (applied.length > 0) logger.info({ applied }, 'database migrations applied');
    noteNewerSchema(await schemaStatus(schemaDb), logger);
  } finally {
    if (schemaDb !== db) await schemaDb.close();
  }
}

function noteNewerSchema(status: SchemaStatus, logger: Logger): void {
  if (status.unknown.length === 0) return;
  logger.info({ unknownMigrations: status.unknown }, 'the database schema is newer than this release (a rolling upgrade or a rollback): running next to it');
}
