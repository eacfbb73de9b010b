import { migrations as allMigrations, type Migration } from './migrations/index.js';
import type { Database, Queryable } from './types.js';

/** First key of the advisory lock that serialises migration runs (an arbitrary constant of this tool). */
const MIGRATION_LOCK = 0x6d696772;
/** How often a run waiting for the migration lock, or a replica waiting for the schema, looks again. */
export const SCHEMA_POLL_MS = 1000;

export interface WaitOptions {
  /** Give up after this long (default: never). */
  timeoutMs?: number;
  /** Called after each unsuccessful look, with the time waited so far. */
  onWait?: (waitedMs: number) => void;
  pollMs?: number;
}

/** The migration lock (or the schema) was not there within the bound of `WaitOptions.timeoutMs`. */
export class SchemaWaitTimeout extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SchemaWaitTimeout';
  }
}

/**
 * Applies the pending migrations, in list order, and returns the names applied (empty when up to date).
 *
 * Everything runs in one transaction holding an advisory lock on (MIGRATION_LOCK, current schema): replicas
 * starting together queue on the lock, and each finds the others' work recorded when its turn comes. The lock is
 * asked for again every `pollMs` rather than waited for in one statement, so that a statement timeout does not
 * end the wait and the waiter can say that it waits. A failing migration rolls the whole run back.
 */
export async function migrate(db: Database, migrations: readonly Migration[] = allMigrations, wait: WaitOptions = {}): Promise<string[]> {
  return db.transaction(async (tx) => {
    await takeMigrationLock(tx, wait);
    await tx.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
        name text PRIMARY KEY,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`,
    );
    // Up to date (every command of the CLI starts here): no need to load the migration runner.
    const executed = new Set((await tx.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((row) => row.name));
    if (migrations.every((migration) => executed.has(migration.name))) return [];
    const { Umzug } = await import('umzug');
    const umzug = new Umzug<Queryable>({
      migrations: migrations.map((migration) => ({
        name: migration.name,
        up: ({ context }) => migration.up(context),
      })),
      context: tx,
      logger: undefined,
      storage: {
        async executed({ context }) {
          const { rows } = await context.query<{ name: string }>('SELECT name FROM schema_migrations');
          return rows.map((row) => row.name);
        },
        async logMigration({ name, context }) {
          await context.query('INSERT INTO schema_migrations (name) VALUES ($1)', [name]);
        },
        async unlogMigration({ name, context }) {
          await context.query('DELETE FROM schema_migrations WHERE name = $1', [name]);
        },
      },
    });
    const applied = await umzug.up();
    return applied.map((migration) => migration.name);
  });
}

async function takeMigrationLock(tx: Queryable, wait: WaitOptions): Promise<void> {
  const started = Date.now();
  for (;;) {
    const { rows } = await tx.query<{ locked: boolean }>(`SELECT pg_try_advisory_xact_lock($1::int, hashtext(coalesce(current_schema(), ''))) AS locked`, [MIGRATION_LOCK]);
    if (rows[0]?.locked) return;
    const waited = Date.now() - started;
    if (wait.timeoutMs !== undefined && waited >= wait.timeoutMs) {
      throw new SchemaWaitTimeout(`another process has held the migration lock for ${Math.round(waited / 1000)} s (a migration still running, or a stuck \`proctor-lti migrate\`): see pg_stat_activity for application_name 'proctor-lti (migrations)'`);
    }
    wait.onWait?.(waited);
    await new Promise((resolve) => setTimeout(resolve, wait.pollMs ?? SCHEMA_POLL_MS));
  }
}

/** Which migrations of this build the database has, which it lacks, and which it has that this build does not know. */
export interface SchemaStatus {
  applied: string[];
  pending: string[];
  /** Applied by a newer release (a rolling upgrade, or a rollback): this build runs next to them. */
  unknown: string[];
}

export async function schemaStatus(db: Queryable, migrations: readonly Migration[] = allMigrations): Promise<SchemaStatus> {
  const { rows: table } = await db.query<{ found: string | null }>(`SELECT to_regclass('schema_migrations')::text AS found`);
  const executed = table[0]?.found ? (await db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name')).rows.map((row) => row.name) : [];
  const known = new Set(migrations.map((migration) => migration.name));
  const done = new Set(executed);
  return {
    applied: migrations.filter((migration) => done.has(migration.name)).map((migration) => migration.name),
    pending: migrations.filter((migration) => !done.has(migration.name)).map((migration) => migration.name),
    unknown: executed.filter((name) => !known.has(name)),
  };
}

/**
 * Waits until the database holds every migration of this build (applied by `proctor-lti migrate`), looking
 * every `pollMs`; throws `SchemaWaitTimeout` after `timeoutMs`. A database that is not reachable yet counts as
 * not ready, and the wait goes on.
 */
export async function waitForSchema(db: Queryable, wait: WaitOptions & { onPending?: (status: SchemaStatus | { error: string }, waitedMs: number) => void }, migrations: readonly Migration[] = allMigrations): Promise<SchemaStatus> {
  const started = Date.now();
  for (;;) {
    let seen: SchemaStatus | { error: string };
    try {
      seen = await schemaStatus(db, migrations);
      if (seen.pending.length === 0) return seen;
    } catch (error) {
      seen = { error: error instanceof Error ? error.message : String(error) };
    }
    const waited = Date.now() - started;
    if (wait.timeoutMs !== undefined && waited >= wait.timeoutMs) {
      const what = 'error' in seen ? `the database did not answer (${seen.error})` : `${seen.pending.length} migration(s) of this release are not applied (first: ${seen.pending[0]})`;
      throw new SchemaWaitTimeout(`the database schema is not ready after ${Math.round(waited / 1000)} s: ${what}. Run \`proctor-lti migrate\` (the Kubernetes init container or the Compose service \`migrate\` does), or set DATABASE_MIGRATIONS=apply`);
    }
    wait.onPending?.(seen, waited);
    await new Promise((resolve) => setTimeout(resolve, wait.pollMs ?? SCHEMA_POLL_MS));
  }
}
