import type { Command } from 'commander';
import type { WithDatabase } from './context.js';
import { out } from './io.js';

/** `audit`: the newest entries of the administrators' audit log (console and CLI). */
export function addAuditCommand(program: Command, withDatabase: WithDatabase): void {
  program
    .command('audit')
    .description('show the newest entries of the audit log of administrative changes (console and CLI)')
    .option('--search <text>', 'only entries whose action, target or values contain this text')
    .option('--limit <n>', 'how many entries (1–500)', '20')
    .option('--json', 'print JSON')
    .action(async (options: { search?: string; limit: string; json?: boolean }) => {
      await withDatabase(async ({ db }) => {
        const { createAuditLog } = await import('../admin/audit.js');
        const entries = await createAuditLog(db).list({ text: options.search, limit: Number.parseInt(options.limit, 10) || 20 });
        if (options.json) {
          out(JSON.stringify(entries, null, 2));
          return;
        }
        if (entries.length === 0) out('No entries.');
        for (const entry of entries) {
          out(`${entry.at.toISOString()}  ${entry.source} ${entry.actor}${entry.remoteAddress ? `@${entry.remoteAddress}` : ''}  ${entry.action}${entry.target ? `  ${entry.target}` : ''}`);
          for (const change of entry.changes) out(`    ${change.field}: ${change.old ?? '—'} → ${change.new ?? '—'}`);
        }
      });
    });
}
