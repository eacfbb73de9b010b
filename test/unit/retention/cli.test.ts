// `proctor-lti retention prune` (for cron) in its own process, on its own embedded database, with the default settings.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../../src/db/index.js';
import { migrate } from '../../../src/db/migrate.js';
import { runCliHere, tempDataDir } from '../../helpers/cli.js';

const DAY_MS = 86_400_000;

describe('retention CLI', () => {
  const data = tempDataDir('retention-cli');
  after(() => data.remove());
  const cli = (...args: string[]) => runCliHere(data.dir, args);

  before(async () => {
    const db = await openDatabase({ dataDir: data.dir });
    try {
      await migrate(db);
      for (const ageDays of [91, 200, 89, 1]) {
        await db.query(`INSERT INTO launch_log (at, issuer, user_id, role, outcome, duration_ms) VALUES ($1, 'https://lms.example.edu', 'u', 'learner', 'redirected', 5)`, [new Date(Date.now() - ageDays * DAY_MS)]);
      }
    } finally {
      await db.close();
    }
  });

  it('--dry-run counts, prune removes what is older than the settings and is audited, a second prune finds nothing', async () => {
    const dry = await cli('retention', 'prune', '--dry-run');
    assert.equal(dry.status, 0, dry.stderr);
    assert.match(dry.stdout, /^launch log: would remove 2 older than \d{4}-/m);
    assert.match(dry.stdout, /^audit log entries: would remove 0 older than/m);

    const pruned = await cli('retention', 'prune', '--json');
    assert.equal(pruned.status, 0, pruned.stderr);
    const result = JSON.parse(pruned.stdout) as { dryRun: boolean; removed: Record<string, number>; cutoffs: Record<string, string> };
    assert.equal(result.dryRun, false);
    assert.deepEqual(result.removed, { launchLog: 2, attempts: 0, attemptResults: 0, privacyNotices: 0, webhookDeliveries: 0, auditLog: 0, unclaimedExams: 0, courseStaff: 0 });
    assert.ok(Date.now() - Date.parse(result.cutoffs.launchLog!) >= 90 * DAY_MS - 60_000, 'the default keeps 90 days of launch log');

    const audit = await cli('audit', '--search', 'retention.prune');
    assert.equal(audit.status, 0, audit.stderr);
    assert.match(audit.stdout, /cli \S+@\S+ {2}retention\.prune/);
    assert.match(audit.stdout, /launch_log: 2 rows older than \S+ → removed/);

    const again = await cli('retention', 'prune');
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /^launch log: removed 0 older than/m);
  });
});
