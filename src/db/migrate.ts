import { migrations as allMigrations, type Migration } from './migrations/index.js';
import type { Database, Queryable } from './types.js';

/** First key of the advisory lock that serialises migration runs (an arbitrary constant of this tool). */
const MIGRATION_LOCK = 0x6d696772;

/**
 * Applies the pending migrations, in list order, and returns the names applied (empty when up to date).
 *
 * Everything runs in one transaction holding an advisory lock on (MIGRATION_LOCK, current schema): replicas
 * starting together queue on the lock, and each finds the others' work recorded when its turn comes. A
 * failing migration rolls the whole run back.
 */
export async function migrate(db: Database, migrations: readonly Migration[] = allMigrations): Promise<string[]> {
  return db.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock($1::int, hashtext(coalesce(current_schema(), '')))`, [MIGRATION_LOCK]);
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
