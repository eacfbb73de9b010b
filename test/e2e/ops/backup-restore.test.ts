// The restore drill of docs/operations.md: a tool with data (a platform, an exam, a launch) is backed up with
// pg_dump, restored with pg_restore into a new database, and started there with the ENCRYPTION_KEY kept beside
// the backup: a launch works and the installation secrets are the same. Started with another key, the restored
// tool refuses to start and says why.
// Needs PostgreSQL (DATABASE_URL) and Debian's postgresql-client (pg_dump, pg_restore); skipped with a message without either.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openDatabase } from '../../../src/db/index.js';
import { installationSecret } from '../../helpers/app.js';
import { httpCandidateLaunch } from '../../helpers/http-launch.js';
import { startToolProcess, type ToolProcess } from '../../helpers/tool-process.js';

const KEY = 'backup-drill-key-0123456789-abcdefghijklmnopqrstuvwxyz';
const OTHER = 'another-installations-key-0123456789-abcdefghijklmnop';
const clientPresent = ['pg_dump', 'pg_restore'].every((command) => spawnSync(command, ['--version']).status === 0);
const skip = !process.env.DATABASE_URL
  ? 'needs PostgreSQL: set DATABASE_URL'
  : !clientPresent
    ? "pg_dump and pg_restore are not installed (apt-get install postgresql-client): the restore drill is not run"
    : false;

function run(command: string, args: readonly string[]): string {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  assert.equal(result.status, 0, `${command} ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

describe('backup and restore drill', { skip, timeout: 600_000 }, () => {
  const source = process.env.DATABASE_URL ?? '';
  const schema = `drill_${randomBytes(4).toString('hex')}`;
  const restoredName = `drill_restore_${randomBytes(4).toString('hex')}`;
  const restored = Object.assign(new URL(source), { pathname: `/${restoredName}` }).href;
  const folder = mkdtempSync(join(tmpdir(), 'proctor-lti-drill-'));
  const tools: ToolProcess[] = [];
  const start = async (url: string, key: string) => {
    const tool = await startToolProcess({ NODE_ENV: 'development', SANDBOX: '1', DATABASE_URL: url, DATABASE_SCHEMA: schema, ENCRYPTION_KEY: key });
    tools.push(tool);
    return tool;
  };

  after(async () => {
    await Promise.all(tools.map((tool) => tool.stop()));
    const admin = await openDatabase({ url: source, dataDir: 'memory' });
    try {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.query(`DROP DATABASE IF EXISTS "${restoredName}" WITH (FORCE)`);
    } finally {
      await admin.close();
    }
    rmSync(folder, { recursive: true, force: true });
  });

  it('restores into a new database where a launch works with the kept key, and refuses another key clearly', async (t) => {
    // The installation backed up: started once (migrations, keys, the sandbox's platform and exam) and launched.
    const original = await start(source, KEY);
    await httpCandidateLaunch(original.baseUrl);
    assert.equal(await original.stop(), 0, original.output());
    const sourceDb = await openDatabase({ url: source, dataDir: 'memory', schema });
    const secretsBefore = { pseudonyms: await installationSecret(sourceDb, 'pseudonyms', [KEY]), hostedLinks: await installationSecret(sourceDb, 'hosted-links', [KEY]) };
    await sourceDb.close();

    // The backup: the tool's schema in pg_dump's custom format (ENCRYPTION_KEY is kept elsewhere).
    const dump = join(folder, 'proctor-lti.dump');
    const started = performance.now();
    run('pg_dump', ['--format=custom', '--no-owner', `--schema=${schema}`, `--file=${dump}`, source]);
    // The restore: a new, empty database.
    const admin = await openDatabase({ url: source, dataDir: 'memory' });
    await admin.query(`CREATE DATABASE "${restoredName}"`).finally(() => admin.close());
    run('pg_restore', ['--no-owner', '--exit-on-error', `--dbname=${restored}`, dump]);
    t.diagnostic(`pg_dump and pg_restore took ${Math.round(performance.now() - started)} ms`);

    const wrong = await start(restored, OTHER);
    assert.equal(await wrong.exited, 1, 'another key: the restored tool does not start');
    assert.match(wrong.output(), /Cannot start: ENCRYPTION_KEY does not open the data of this database.*kept with that backup/);

    const back = await start(restored, KEY);
    const { proctoringUrl } = await httpCandidateLaunch(back.baseUrl);
    assert.ok(proctoringUrl.startsWith(`${back.baseUrl}/sandbox/proctoring/`), proctoringUrl);
    assert.equal(await back.stop(), 0, back.output());

    const restoredDb = await openDatabase({ url: restored, dataDir: 'memory', schema });
    try {
      const secretsAfter = { pseudonyms: await installationSecret(restoredDb, 'pseudonyms', [KEY]), hostedLinks: await installationSecret(restoredDb, 'hosted-links', [KEY]) };
      assert.deepEqual(secretsAfter, secretsBefore, 'the same pseudonym and hosted-link keys: ids and links continue');
      const launches = await restoredDb.query<{ count: number }>('SELECT count(*)::int AS count FROM launch_log');
      assert.ok(launches.rows[0]!.count >= 2, 'the launch before the backup and the one after the restore');
    } finally {
      await restoredDb.close();
    }
  });
});
