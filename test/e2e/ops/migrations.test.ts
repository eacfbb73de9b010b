// Migrations outside the serving replicas: `proctor-lti migrate` applies them (under the migration lock, without
// the serving pool's statement timeout); a replica with DATABASE_MIGRATIONS=wait waits for the schema, saying so
// in JSON lines, and gives up with a JSON error after DATABASE_SCHEMA_WAIT_SECONDS; a replica that applies them
// itself waits out a lock held longer than the statement timeout. A build runs against the schema of the next
// release when that release only expands it (docs/operations.md, "Migrations: expand, then contract").
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { openDatabase } from '../../../src/db/index.js';
import { migrate, schemaStatus, waitForSchema } from '../../../src/db/migrate.js';
import { migrations, type Migration } from '../../../src/db/migrations/index.js';
import { STATEMENT_TIMEOUT_MS } from '../../../src/db/postgres.js';
import type { Database } from '../../../src/db/types.js';
import { startTestApp } from '../../helpers/app.js';
import { openTestDatabase } from '../../helpers/db.js';
import { launch } from '../../helpers/lti-flow.js';
import { freePort } from '../../helpers/ports.js';
import { sleep } from '../../helpers/wait.js';
import { entryArgs } from '../../helpers/entry-args.js';

const url = process.env.DATABASE_URL;
const needsPostgres = url ? false : 'needs PostgreSQL (DATABASE_URL): replicas and the migrate command share one database';
const MIGRATION_LOCK = 0x6d696772;

interface Replica {
  process: ChildProcess;
  port: number;
  lines: string[];
  exited: Promise<number | null>;
  /** Resolves with the first JSON line whose msg matches. */
  line(pattern: RegExp, timeoutMs?: number): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

function environment(schema: string, extra: Record<string, string> = {}): Record<string, string> {
  // A proctoring service that is never called (no launch here): not the sandbox, whose banner is plain text.
  const proctoring = { PROCTORING_BASE_URL: 'http://127.0.0.1:9/', PROCTORING_CONSUMER_KEY: 'unused', PROCTORING_SECRET: 'unused' };
  return { PATH: process.env.PATH ?? '', NODE_ENV: 'development', DATABASE_URL: url ?? '', DATABASE_SCHEMA: schema, LOG_LEVEL: 'info', SHUTDOWN_DELAY_SECONDS: '0', ...proctoring, ...extra };
}

async function startReplica(schema: string, extra: Record<string, string>): Promise<Replica> {
  const port = await freePort();
  const child = spawn(process.execPath, entryArgs('src/main.ts'), { env: environment(schema, { PORT: String(port), ...extra }), stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  const collect = (chunk: Buffer) => {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    for (const wake of waiters.splice(0)) wake();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const find = (pattern: RegExp) => lines.map((text) => JSON.parse(text) as Record<string, unknown>).find((entry) => pattern.test(String(entry.msg)));
  return {
    process: child,
    port,
    lines,
    exited,
    async line(pattern, timeoutMs = 120_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = find(pattern);
        if (found) return found;
        if (child.exitCode !== null || Date.now() > deadline) assert.fail(`no log line ${pattern} (exit ${child.exitCode}):\n${lines.join('\n')}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

const migrateCommand = (schema: string, ...args: string[]) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [...entryArgs('src/cli/index.ts'), 'migrate', ...args], { env: environment(schema), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });

const allJson = (lines: readonly string[]) => {
  for (const text of lines) assert.doesNotThrow(() => JSON.parse(text), `not a JSON line: ${text}`);
};

describe('migrations outside the replicas', { skip: needsPostgres, timeout: 300_000 }, () => {
  const schemas: string[] = [];
  const replicas: Replica[] = [];
  const newSchema = () => {
    const schema = `migr_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
    schemas.push(schema);
    return schema;
  };
  after(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    const db = await openDatabase({ url, dataDir: 'memory' });
    for (const schema of schemas) await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await db.close();
  });

  it('a waiting replica logs that it waits, in JSON, and gives up with a JSON error naming the fix', async () => {
    const replica = await startReplica(newSchema(), { DATABASE_MIGRATIONS: 'wait', DATABASE_SCHEMA_WAIT_SECONDS: '2' });
    replicas.push(replica);
    const waiting = await replica.line(/waiting for the database schema/);
    assert.equal(waiting.pending, migrations.length);
    assert.equal(await replica.exited, 1);
    allJson(replica.lines);
    const fatal = replica.lines.map((text) => JSON.parse(text) as Record<string, unknown>).find((entry) => entry.level === 60);
    assert.equal(fatal?.code, 'schema_not_ready');
    assert.match(String(fatal?.msg), /proctor-lti migrate/);
    assert.ok(fatal?.hostname && fatal.pid, 'the line names host and process');
  });

  it('`proctor-lti migrate` applies what a waiting replica needs; the replica then serves', async () => {
    const schema = newSchema();
    const replica = await startReplica(schema, { DATABASE_MIGRATIONS: 'wait', DATABASE_SCHEMA_WAIT_SECONDS: '120' });
    replicas.push(replica);
    await replica.line(/waiting for the database schema/);
    const pending = await migrateCommand(schema, '--status');
    assert.equal(pending.status, 1, 'status exits 1 while migrations are pending');
    assert.match(pending.stdout, new RegExp(`0 applied, ${migrations.length} pending`));

    const run = await migrateCommand(schema);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`Applied ${migrations.length} migrations`));
    await replica.line(/database schema ready/);
    await replica.line(/proctor-lti started/);
    const ready = await fetch(`http://127.0.0.1:${replica.port}/readyz`);
    assert.equal(ready.status, 200);
    assert.ok(!replica.lines.some((text) => /database migrations applied/.test(text)), 'the replica changed nothing itself');

    const again = await migrateCommand(schema);
    assert.equal(again.status, 0);
    assert.match(again.stdout, /up to date/);
    const status = await migrateCommand(schema, '--status', '--json');
    assert.equal(status.status, 0);
    assert.deepEqual((JSON.parse(status.stdout) as { pending: string[] }).pending, []);
    await replica.stop();
    allJson(replica.lines);
  });

  it(`a replica that migrates at start-up waits out a migration lock held longer than the statement timeout (${STATEMENT_TIMEOUT_MS / 1000} s)`, async () => {
    const schema = newSchema();
    const holder = await openDatabase({ url, dataDir: 'memory', schema });
    try {
      // The lock a `proctor-lti migrate` in progress holds (the same keys), on a connection of its own, held from
      // the moment the replica says it waits until longer than the statement timeout has passed: a replica slow to
      // start under load still meets the lock.
      const { rows } = await holder.query<{ key: number }>('SELECT hashtext(current_schema()) AS key');
      let locked!: () => void;
      const lockTaken = new Promise<void>((resolve) => (locked = resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const hold = holder.transaction(async (tx) => {
        await tx.query('SET LOCAL idle_in_transaction_session_timeout = 0');
        await tx.query('SELECT pg_advisory_xact_lock($1::int, $2::int)', [MIGRATION_LOCK, rows[0]!.key]);
        locked();
        await released;
      });
      await lockTaken;
      const replica = await startReplica(schema, { DATABASE_MIGRATIONS: 'apply', DATABASE_SCHEMA_WAIT_SECONDS: '120' });
      replicas.push(replica);
      const waiting = await replica.line(/waiting for the migration lock/);
      assert.equal(waiting.level, 40);
      await sleep(STATEMENT_TIMEOUT_MS + 2000);
      release();
      await hold;
      const applied = await replica.line(/database migrations applied/, 60_000);
      assert.equal((applied.applied as string[]).length, migrations.length);
      await replica.line(/proctor-lti started/);
      await replica.stop();
      assert.equal(await replica.exited, 0);
      allJson(replica.lines);
    } finally {
      await holder.close();
    }
  });
});

/** The next release's migration, as the expand rule allows: a table, a nullable column, a column with a default, an index. */
const nextRelease: Migration = {
  name: '9999_next_release_expands',
  async up(db) {
    await db.query('CREATE TABLE next_release_notes (id bigserial PRIMARY KEY, note text NOT NULL)');
    await db.query('ALTER TABLE exams ADD COLUMN next_release_label text');
    await db.query("ALTER TABLE attempts ADD COLUMN next_release_state text NOT NULL DEFAULT 'new'");
    await db.query('CREATE INDEX launch_log_next_release ON launch_log (outcome, at)');
  },
};

describe('a build next to the schema of the release after it', () => {
  let dbs: Database[] = [];
  after(async () => {
    for (const db of dbs) await db.close();
    dbs = [];
  });

  it('serves launches and sees its schema as ready, with the newer migration noted', async () => {
    const db = await openTestDatabase();
    await migrate(db, [...migrations, nextRelease]);
    const status = await schemaStatus(db);
    assert.deepEqual(status.pending, []);
    assert.deepEqual(status.unknown, [nextRelease.name]);
    assert.deepEqual((await waitForSchema(db, { timeoutMs: 1000 })).unknown, [nextRelease.name]);
    assert.deepEqual(await migrate(db), [], 'this build has nothing to apply and does not trip over the newer row');

    const app = await startTestApp({}, { db });
    try {
      for (const user of ['student', 'instructor'] as const) {
        const { response } = await launch(app, { user, presentation: 'window' });
        assert.ok(response.status === 302 || response.status === 200, `${user}: ${response.status} ${response.text.slice(0, 200)}`);
      }
      const rows = await db.query<{ state: string }>('SELECT next_release_state AS state FROM attempts');
      assert.ok(rows.rows.length > 0 && rows.rows.every((row) => row.state === 'new'), 'the old build wrote attempts the new columns accept');
    } finally {
      await app.close();
    }
  });

  it('no shipped migration contracts the schema (drops or renames) in the same release that stops using it', () => {
    const contracting = /\b(DROP\s+(TABLE|COLUMN)|RENAME\s+(COLUMN|TO)|ALTER\s+COLUMN\s+\w+\s+(TYPE|SET\s+NOT\s+NULL))\b/i;
    const files = readdirSync('src/db/migrations').filter((file) => /^\d{4}_.*\.ts$/.test(file)).map((file) => `src/db/migrations/${file}`);
    assert.ok(files.length > 10);
    const found = files.filter((file) => {
      const text = readFileSync(file, 'utf8');
      return contracting.test(text) && !/contract: /.test(text);
    });
    assert.deepEqual(found, [], 'a contracting migration must say which earlier release stopped using what it removes (a "contract:" comment)');
  });
});
