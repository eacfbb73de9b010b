// The PostgreSQL pool under the faults a restart and a burst bring: a connection ended by the server in the
// middle of a transaction, every pooled connection busy, and the server-side deadlines each connection carries.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DatabaseUnavailableError, type Database } from '../../../src/db/index.js';
import { IDLE_CONNECTION_MS, openPostgres, STATEMENT_TIMEOUT_MS, IDLE_IN_TRANSACTION_TIMEOUT_MS } from '../../../src/db/postgres.js';
import { ownClusterUnavailable, startOwnCluster, type OwnCluster } from '../../helpers/pg-cluster.js';
import { waitFor } from '../../helpers/wait.js';

const unavailable = ownClusterUnavailable();

describe('the PostgreSQL pool', { timeout: 120_000, skip: unavailable ? `skipped: ${unavailable}` : false }, () => {
  let cluster: OwnCluster;
  const opened: Database[] = [];
  const uncaught: unknown[] = [];
  const record = (error: unknown) => uncaught.push(error);

  before(async () => {
    process.on('uncaughtException', record);
    process.on('unhandledRejection', record);
    cluster = await startOwnCluster();
  });
  after(async () => {
    process.off('uncaughtException', record);
    process.off('unhandledRejection', record);
    await Promise.all(opened.map((db) => db.close().catch(() => {})));
    cluster?.destroy();
  });

  const open = async (options: { max?: number; connectTimeoutMs?: number } = {}) => {
    const db = await openPostgres({ url: cluster.url, ...options });
    opened.push(db);
    return db;
  };

  it('a connection the server ends between two queries of a transaction fails that transaction, not the process', async () => {
    const db = await open();
    const other = await open();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let pid = 0;
    const transaction = db.transaction(async (tx) => {
      pid = (await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      await held;
      await tx.query('SELECT 1');
    });
    transaction.catch(() => {});
    while (pid === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    // The connection sits idle inside the transaction when the server ends it (as a restart does).
    await other.query('SELECT pg_terminate_backend($1)', [pid]);
    await waitFor('the terminated connection gone', async () => (await other.query<{ n: number }>('SELECT count(*) AS n FROM pg_stat_activity WHERE pid = $1', [pid])).rows[0]!.n === 0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    release();
    await assert.rejects(transaction, DatabaseUnavailableError);
    assert.deepEqual(uncaught.map(String), [], 'no uncaught exception');
    assert.equal((await db.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one, 1, 'the pool serves the next query on a new connection');
  });

  it('waiting for a busy pool is not an outage: a query queued behind slow ones is answered', async () => {
    // Two connections, each opened within 300 ms, both busy for longer than that.
    const db = await open({ max: 2, connectTimeoutMs: 300 });
    const slow = [db.query('SELECT pg_sleep(1.5)'), db.query('SELECT pg_sleep(1.5)')];
    await new Promise((resolve) => setTimeout(resolve, 100));
    const queued = await db.query<{ one: number }>('SELECT 1 AS one');
    assert.equal(queued.rows[0]!.one, 1);
    await Promise.all(slow);
  });

  it('every connection carries server-side deadlines for statements and idle transactions', async () => {
    const db = await open();
    const setting = async (name: string) => (await db.query<{ setting: string }>('SELECT setting FROM pg_settings WHERE name = $1', [name])).rows[0]!.setting;
    assert.equal(Number(await setting('statement_timeout')), STATEMENT_TIMEOUT_MS);
    assert.equal(Number(await setting('idle_in_transaction_session_timeout')), IDLE_IN_TRANSACTION_TIMEOUT_MS);
  });

  it("keeps an unused connection open past node-postgres's 10 s, so the first launches after a pause open none", async () => {
    assert.ok(IDLE_CONNECTION_MS >= 60_000);
    const db = await open({ max: 1 });
    const backend = async () => (await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const first = await backend();
    await new Promise((resolve) => setTimeout(resolve, 11_000));
    assert.equal(await backend(), first, 'the same connection serves the query after 11 s idle');
  });
});

