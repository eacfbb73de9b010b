import type { Command } from 'commander';
import type { WithDatabase } from './context.js';
import { err, fail, out } from './io.js';

/** How long `migrate` waits for the migration lock held by another run before it gives up. */
const LOCK_WAIT_MS = 15 * 60_000;

/**
 * `migrate`: applies the pending database migrations outside the serving replicas (a Kubernetes init container or
 * Job, the Compose service `migrate`), on one connection without the serving pool's statement timeout, under the
 * migration lock. `migrate --status` only reports.
 */
export function addMigrateCommand(program: Command, withSchemaDatabase: WithDatabase): void {
  program
    .command('migrate')
    .description('apply the pending database migrations (run before starting replicas with DATABASE_MIGRATIONS=wait)')
    .option('--status', 'only list what is applied, pending, and applied by a newer release; exit 1 when something is pending')
    .option('--json', 'print JSON')
    .action(async (options: { status?: boolean; json?: boolean }) => {
      await withSchemaDatabase(async ({ db }) => {
        const { migrate, schemaStatus } = await import('../db/migrate.js');
        if (options.status) {
          const status = await schemaStatus(db);
          if (options.json) out(JSON.stringify(status, null, 2));
          else {
            out(`${status.applied.length} applied, ${status.pending.length} pending${status.unknown.length > 0 ? `, ${status.unknown.length} applied by a newer release` : ''}.`);
            for (const name of status.pending) out(`  pending  ${name}`);
            for (const name of status.unknown) out(`  newer    ${name}`);
          }
          if (status.pending.length > 0) fail();
          return;
        }
        let told = false;
        const applied = await migrate(db, undefined, {
          timeoutMs: LOCK_WAIT_MS,
          onWait: () => {
            if (!told) err('Waiting for another process that is migrating this database…');
            told = true;
          },
        });
        const status = await schemaStatus(db);
        if (options.json) out(JSON.stringify({ appliedNow: applied, ...status }, null, 2));
        else if (applied.length === 0) out(`The database schema is up to date (${status.applied.length} migrations).`);
        else {
          out(`Applied ${applied.length} migration${applied.length === 1 ? '' : 's'}:`);
          for (const name of applied) out(`  ${name}`);
        }
      });
    });
}
