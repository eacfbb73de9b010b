// Read caches follow changes other processes make: each watched table's change (made here through a second
// handle, as a replica or the CLI on PostgreSQL would) invalidates them as soon as its notice arrives.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { CHANGE_CHANNEL, watchChanges } from '../../../src/db/change-notices.js';
import { readGeneration } from '../../../src/db/read-cache.js';
import type { Database } from '../../../src/db/types.js';
import { createExamStore } from '../../../src/exams/store.js';
import { LtijsStore } from '../../../src/lti/store/ltijs-store.js';
import { migratedTestDatabase, openSecondHandle, type TestDatabase } from '../../helpers/db.js';
import { waitFor } from '../../helpers/wait.js';

const onPostgres = Boolean(process.env.DATABASE_URL);
const EXAM_ID = '7d1f6c7e-5b1a-4c36-9d0e-3f4f1b2a9c01';
const quietLogger = { warn: () => {} };

/** Sends a marker change on the other handle and waits for its notice: every notice sent before it has arrived. */
async function marked(other: Database): Promise<void> {
  const start = readGeneration();
  await other.query('DELETE FROM institution_logos WHERE false');
  await waitFor('the marker notice', () => readGeneration() > start, { timeoutMs: 3000 });
  // Notices arrive in commit order: anything sent before the marker came before the marker's.
  await new Promise((resolve) => setTimeout(resolve, 100));
}

/**
 * Runs `change` on the other handle, then a marker change, and answers how many notices arrived for `change`.
 * Notices of earlier changes (another test's set-up or clean-up) have arrived before it starts counting.
 */
async function noticesFor(other: Database, change: () => Promise<unknown>): Promise<number> {
  await marked(other);
  const start = readGeneration();
  await change();
  await marked(other);
  return readGeneration() - start - 1;
}

describe('change notices', () => {
  let db: TestDatabase;
  let other: Database;
  let stopWatching: () => Promise<void>;

  before(async () => {
    db = await migratedTestDatabase();
    other = await openSecondHandle(db);
    stopWatching = watchChanges(db, quietLogger);
    // Listening starts in the background: wait until a notice gets through.
    const start = readGeneration();
    for (let i = 0; readGeneration() === start; i += 1) {
      assert.ok(i < 300, 'the listener never started');
      await other.query('DELETE FROM institution_logos WHERE false');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  });
  after(async () => {
    await stopWatching();
    await other.close();
    await db.close();
  });

  const insertExam = `INSERT INTO exams (id, issuer, client_id, deployment_id, context_id, resource_link_id, title) VALUES ('${EXAM_ID}', 'https://lms.example', 'c1', 'd1', 'course', 'link', 'Quiz')`;
  const noExam = [`DELETE FROM exam_accommodations WHERE exam_id = '${EXAM_ID}'`, `DELETE FROM exams WHERE id = '${EXAM_ID}'`];
  const openExam = [...noExam, insertExam];
  const deployment = "INSERT INTO lti_deployments (issuer, client_id, deployment_id) VALUES ('https://lms.example', 'c1', 'd1')";
  const noDeployment = "DELETE FROM lti_deployments WHERE issuer = 'https://lms.example'";
  const noPlatform = "DELETE FROM ltijs_documents WHERE collection = 'platform'";
  const platform = `INSERT INTO ltijs_documents (collection, doc) VALUES ('platform', '{"platformUrl":"https://lms.example","clientId":"c1"}')`;
  const accommodation = `INSERT INTO exam_accommodations (exam_id, user_id, override) VALUES ('${EXAM_ID}', 'u1', '{}')`;
  /** What is changed, the statements that make the state it starts from (whatever ran before), and the change. */
  const watchedChanges: Array<[string, string[], string]> = [
    ['a deployment added', [noDeployment], deployment],
    ['a deployment removed', [noDeployment, deployment], noDeployment],
    ['institution settings changed', [], 'UPDATE institution_settings SET issuer = issuer WHERE false'],
    ['a proctoring account changed', [], 'UPDATE proctoring_accounts SET name = name WHERE false'],
    ['a platform moved to another account', [], 'DELETE FROM platform_proctoring_accounts WHERE false'],
    ['a platform registered', [noPlatform], platform],
    ['a platform renamed', [noPlatform, platform], `UPDATE ltijs_documents SET doc = doc || '{"name":"Renamed"}' WHERE collection = 'platform'`],
    ['a platform removed', [noPlatform, platform], noPlatform],
    ['an exam created', noExam, insertExam],
    ['an exam closed', openExam, `UPDATE exams SET status = 'closed' WHERE id = '${EXAM_ID}'`],
    ['an accommodation given', openExam, accommodation],
    ['an accommodation removed', [...openExam, accommodation], `DELETE FROM exam_accommodations WHERE exam_id = '${EXAM_ID}'`],
    ['an exam removed', openExam, `DELETE FROM exams WHERE id = '${EXAM_ID}'`],
  ];
  for (const [what, setup, sql] of watchedChanges) {
    it(`sends one notice when ${what}`, async () => {
      for (const statement of setup) await other.query(statement);
      assert.equal(await noticesFor(other, () => other.query(sql)), 1);
    });
  }

  it('sends one notice for a key pair written or removed in one statement (a transaction sends each notice once)', async () => {
    assert.equal(await noticesFor(other, () => other.query(`INSERT INTO ltijs_documents (collection, doc) VALUES ('publickey', '{"kid":"k1"}'), ('privatekey', '{"kid":"k1"}')`)), 1);
    assert.equal(await noticesFor(other, () => other.query("DELETE FROM ltijs_documents WHERE collection IN ('publickey', 'privatekey')")), 1);
  });

  it('sends nothing for the writes every launch makes (tokens, nonces)', async () => {
    const sent = await noticesFor(other, async () => {
      await other.query(`INSERT INTO ltijs_documents (collection, doc) VALUES ('idtoken', '{"iss":"https://lms.example","user":"u1"}')`);
      await other.query(`INSERT INTO ltijs_documents (collection, doc) VALUES ('nonce', '{"nonce":"n1"}')`);
      await other.query(`UPDATE ltijs_documents SET doc = doc || '{"x":1}' WHERE collection = 'idtoken'`);
      await other.query("DELETE FROM ltijs_documents WHERE collection IN ('idtoken', 'nonce')");
    });
    assert.equal(sent, 0);
  });

  it("sends nothing when an instructor's launch writes an exam's title unchanged", async () => {
    for (const statement of noExam) await other.query(statement);
    assert.equal(await noticesFor(other, () => other.query(insertExam)), 1);
    try {
      assert.equal(await noticesFor(other, () => other.query(`UPDATE exams SET title = 'Quiz', updated_at = updated_at WHERE id = '${EXAM_ID}'`)), 0);
      assert.equal(await noticesFor(other, () => other.query(`UPDATE exams SET title = 'Quiz 2' WHERE id = '${EXAM_ID}'`)), 1);
    } finally {
      await other.query(`DELETE FROM exams WHERE id = '${EXAM_ID}'`);
    }
  });

  it("an exam and an accommodation changed by another process reach this process's next student launch", async () => {
    const here = createExamStore(db);
    const key = { issuer: 'https://lms.example', clientId: 'c1', deploymentId: 'd1', contextId: 'course', resourceLinkId: 'shared' };
    const exam = await createExamStore(other).ensure(key, 'Shared quiz');
    try {
      assert.equal((await here.findForStudent(key, 'u1'))?.exam.status, 'open');
      let start = readGeneration();
      await other.query("UPDATE exams SET status = 'closed' WHERE id = $1", [exam.id]);
      await waitFor('the exam notice', () => readGeneration() > start, { timeoutMs: 3000 });
      assert.equal((await here.findForStudent(key, 'u1'))?.exam.status, 'closed');
      assert.equal((await here.findForStudent(key, 'u1'))?.accommodation, undefined);
      start = readGeneration();
      await other.query(`INSERT INTO exam_accommodations (exam_id, user_id, override) VALUES ($1, 'u1', '{"expire": 5400}')`, [exam.id]);
      await waitFor('the accommodation notice', () => readGeneration() > start, { timeoutMs: 3000 });
      assert.deepEqual((await here.findForStudent(key, 'u1'))?.accommodation, { expire: 5400 });
    } finally {
      await other.query('DELETE FROM exams WHERE id = $1', [exam.id]);
    }
  });

  it('a platform registered by another process is known at once despite a cached "unknown"', async () => {
    const here = new LtijsStore(db, { cacheSeconds: 600 });
    const there = new LtijsStore(other, { cacheSeconds: 600 });
    await Promise.all([here.setup(), there.setup()]);
    const query = { platformUrl: 'https://new.lms.example', clientId: 'c9' };
    assert.equal(await here.Get(false, 'platform', query), false);
    const start = readGeneration();
    await there.Insert(false, 'platform', { ...query, name: 'New LMS', kid: 'k9' });
    await waitFor('the notice', () => readGeneration() > start, { timeoutMs: 3000 });
    assert.equal(((await here.Get(false, 'platform', query)) || [])[0]?.name, 'New LMS');
  });

  it("ignores notices of another installation's schema", { skip: !onPostgres && 'PGlite is one installation' }, async () => {
    const sent = await noticesFor(other, () => other.query('SELECT pg_notify($1, $2)', [CHANGE_CHANNEL, `elsewhere_${randomBytes(3).toString('hex')}`]));
    assert.equal(sent, 0);
  });

  it('listens again after its connection is lost, and reports the gap', { skip: !onPostgres && 'PGlite listens in its own process' }, async () => {
    const channel = `test_${randomBytes(6).toString('hex')}`;
    const notices: string[] = [];
    let gaps = 0;
    const errors: string[] = [];
    const stop = db.listen(channel, { onNotice: (payload) => notices.push(payload), onGap: () => (gaps += 1), onError: (err) => errors.push(err.message) });
    try {
      const listenerPid = async () =>
        (await other.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE query = $1 AND state = 'idle'", [`LISTEN "${channel}"`])).rows[0]?.pid;
      let pid: number | undefined;
      for (let i = 0; pid === undefined; i += 1) {
        assert.ok(i < 300, 'the listening connection never appeared');
        pid = await listenerPid();
        if (pid === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await other.query('SELECT pg_notify($1, $2)', [channel, 'before']);
      await waitFor('the first notice', () => notices.includes('before'), { timeoutMs: 3000 });
      await other.query('SELECT pg_terminate_backend($1)', [pid]);
      await waitFor('the gap after reconnecting', () => gaps === 1, { timeoutMs: 10_000 });
      assert.ok(errors.length >= 1, 'the lost connection is reported');
      await other.query('SELECT pg_notify($1, $2)', [channel, 'after']);
      await waitFor('a notice after reconnecting', () => notices.includes('after'), { timeoutMs: 3000 });
    } finally {
      await stop();
    }
  });
});
