// A candidate's attempts: a launch resumes the unfinished attempt, or abandons the one whose links all expired and
// starts another, in one statement.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAttemptStore } from '../../../src/exams/attempts.js';
import { createExamStore } from '../../../src/exams/store.js';
import type { Database } from '../../../src/db/types.js';
import { migratedTestDatabase, type TestDatabase } from '../../helpers/db.js';

describe('attempts', () => {
  let db: TestDatabase;
  let examId: string;
  before(async () => {
    db = await migratedTestDatabase();
    examId = (await createExamStore(db).ensure({ issuer: 'https://lms.example', clientId: 'c1', deploymentId: 'd1', contextId: 'course', resourceLinkId: 'attempts' }, 'Quiz')).id;
  });
  after(() => db.close());

  /** The database, counting statements. */
  function counting(): { db: Database; statements: () => number } {
    let statements = 0;
    const query: Database['query'] = (sql, params) => {
      statements += 1;
      return db.query(sql, params);
    };
    return { db: { ...db, query }, statements: () => statements };
  }

  const start = (store: ReturnType<typeof createAttemptStore>, userId: string, returnUrl?: string) => store.startOrResume({ examId, userId, isTest: false, returnUrl, validForSeconds: 3600 });

  it('starts an attempt, then resumes it while its link is valid, in one statement each', async () => {
    const { db: countingDb, statements } = counting();
    const attempts = createAttemptStore(countingDb);
    const first = await start(attempts, 'u-resume');
    assert.equal(statements(), 1);
    const again = await start(attempts, 'u-resume', 'https://lms.example/back');
    assert.equal(statements(), 2);
    assert.equal(again.id, first.id);
    assert.equal(again.status, 'started');
    const stored = await db.query<{ return_url: string }>('SELECT return_url FROM attempts WHERE id = $1', [first.id]);
    assert.equal(stored.rows[0]?.return_url, 'https://lms.example/back', "a resume keeps the launch's return address");
  });

  it('abandons an attempt whose links all expired, at the moment they did, and starts another in the same statement', async () => {
    const attempts = createAttemptStore(db);
    const first = await start(attempts, 'u-expired');
    await db.query("UPDATE attempts SET expires_at = now() - interval '1 hour' WHERE id = $1", [first.id]);

    const { db: countingDb, statements } = counting();
    const next = await start(createAttemptStore(countingDb), 'u-expired');
    assert.equal(statements(), 1);
    assert.notEqual(next.id, first.id);
    assert.equal(next.status, 'started');
    const old = (await db.query<{ status: string; ended: boolean }>('SELECT status, ended_at = expires_at AS ended FROM attempts WHERE id = $1', [first.id])).rows[0];
    assert.deepEqual(old, { status: 'abandoned', ended: true });
  });

  it("leaves other candidates' expired attempts to their own launches", async () => {
    const attempts = createAttemptStore(db);
    const other = await start(attempts, 'u-other');
    await db.query("UPDATE attempts SET expires_at = now() - interval '1 hour' WHERE id = $1", [other.id]);
    await start(attempts, 'u-someone-else');
    assert.equal((await attempts.get(other.id))?.status, 'started');
  });

  it('concurrent launches of one candidate converge on one attempt, also when an expired one is abandoned', async () => {
    const attempts = createAttemptStore(db);
    const first = await start(attempts, 'u-burst');
    await db.query("UPDATE attempts SET expires_at = now() - interval '1 hour' WHERE id = $1", [first.id]);
    const started = await Promise.all(Array.from({ length: 8 }, () => start(attempts, 'u-burst')));
    assert.equal(new Set(started.map((attempt) => attempt.id)).size, 1);
    assert.notEqual(started[0]?.id, first.id);
    const open = await db.query("SELECT id FROM attempts WHERE exam_id = $1 AND user_id = 'u-burst' AND status = 'started'", [examId]);
    assert.equal(open.rows.length, 1);
  });
});
