import type { Command } from 'commander';
import type { WithDatabase } from './context.js';
import { actor, out } from './io.js';
import { entriesOf } from '../values.js';

const LABELS = {
  launchLog: 'launch log',
  attempts: 'attempts',
  attemptResults: "results of those attempts",
  privacyNotices: 'privacy notices seen',
  webhookDeliveries: 'webhook deliveries',
  auditLog: 'audit log entries',
  unclaimedExams: 'unclaimed deep-linking exams',
  courseStaff: 'course staff entries',
} as const;

/** `retention prune`: removes what is older than the retention settings now (for cron, or with the schedule off). */
export function addRetentionCommands(program: Command, withDatabase: WithDatabase): void {
  const retention = program.command('retention').description('records kept for a limited time (RETENTION_* settings, docs/retention.md)');
  retention
    .command('prune')
    .description('remove launch log rows, attempts with their results, privacy notices seen, webhook deliveries, audit entries, unclaimed deep-linking exams and course staff entries older than their settings')
    .option('--dry-run', 'only count what would be removed')
    .option('--json', 'print JSON')
    .action(async (options: { dryRun?: boolean; json?: boolean }) => {
      await withDatabase(async ({ db, config }) => {
        const [{ countExpired, pruneExpired }, { recordPrune }, { createAuditLog }] = await Promise.all([import('../retention/prune.js'), import('../retention/record.js'), import('../admin/audit.js')]);
        const settings = config.retention;
        const result = options.dryRun ? await countExpired(db, settings) : await pruneExpired(db, settings);
        if (!options.dryRun) {
          const who = actor();
          await recordPrune(createAuditLog(db), result, settings, { actor: who.user, source: 'cli', remoteAddress: who.host });
        }
        if (options.json) {
          out(JSON.stringify({ dryRun: Boolean(options.dryRun), ...result }, null, 2));
          return;
        }
        const verb = options.dryRun ? 'would remove' : 'removed';
        for (const [kind, label] of entriesOf(LABELS)) {
          const cutoff = result.cutoffs[kind === 'attemptResults' || kind === 'privacyNotices' ? 'attempts' : kind];
          out(cutoff ? `${label}: ${verb} ${result.removed[kind]} older than ${cutoff.toISOString()}` : `${label}: kept (retention 0 days)`);
        }
      });
    });
}
