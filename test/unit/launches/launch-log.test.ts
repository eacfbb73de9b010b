// The launch log's writer: every record stored with what it says, concurrent records sharing statements.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Queryable } from '../../../src/db/types.js';
import { createLaunchLog, type LaunchRecord } from '../../../src/launches/log.js';
import { migratedTestDatabase, type TestDatabase } from '../../helpers/db.js';

const EXAM = '7f0c2a1e-1b2c-4d3e-8f40-5a6b7c8d9e0f';

describe('launch log', () => {
  let db: TestDatabase;
  before(async () => {
    db = await migratedTestDatabase();
  });
  beforeEach(() => db.query('DELETE FROM launch_log'));
  after(() => db.close());

  /** The database, counting the statements that insert launch records. */
  function counting(): { db: Queryable; inserts: () => number } {
    let inserts = 0;
    return {
      db: {
        query: (sql, params) => {
          if (sql.includes('INSERT INTO launch_log')) inserts += 1;
          return db.query(sql, params);
        },
      },
      inserts: () => inserts,
    };
  }

  const record = (i: number): LaunchRecord => ({
    issuer: 'https://lms.example',
    contextId: i % 2 ? `course-${i}` : undefined,
    examId: i % 3 ? EXAM : undefined,
    userId: `user-${i}`,
    role: 'candidate',
    endpoint: 'candidate',
    outcome: i % 5 ? 'redirected' : 'upstream_error',
    errorCode: i % 5 ? undefined : 'upstream_unavailable',
    incidentId: i % 5 ? undefined : `incident-${i}`,
    durationMs: i + 0.4,
  });

  it('stores each record with every field, absent ones as null', async () => {
    const log = createLaunchLog(db);
    await log.record(record(0));
    await log.record(record(1));
    const { rows } = await db.query<Record<string, unknown>>('SELECT issuer, context_id, exam_id, user_id, outcome, error_code, incident_id, duration_ms FROM launch_log ORDER BY id');
    assert.deepEqual(rows, [
      { issuer: 'https://lms.example', context_id: null, exam_id: null, user_id: 'user-0', outcome: 'upstream_error', error_code: 'upstream_unavailable', incident_id: 'incident-0', duration_ms: 0 },
      { issuer: 'https://lms.example', context_id: 'course-1', exam_id: EXAM, user_id: 'user-1', outcome: 'redirected', error_code: null, incident_id: null, duration_ms: 1 },
    ]);
    const recent = await log.recentForExam(EXAM, 10);
    assert.deepEqual(recent.map((entry) => entry.userId), ['user-1']);
  });

  it('stores 200 concurrent records, all of them, in far fewer statements; each promise resolves once its record is stored', async () => {
    const { db: countingDb, inserts } = counting();
    const log = createLaunchLog(countingDb);
    await Promise.all(Array.from({ length: 200 }, (_, i) => log.record(record(i))));
    const { rows } = await db.query<{ user_id: string }>('SELECT user_id FROM launch_log');
    assert.deepEqual(rows.map((row) => row.user_id).sort(), Array.from({ length: 200 }, (_, i) => `user-${i}`).sort());
    assert.ok(inserts() <= 3, `${inserts()} statements for 200 records`);
  });

  it('counts the records not stored yet; settled resolves once every record queued so far is stored or failed', async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    const log = createLaunchLog({
      query: async (sql, params) => {
        calls += 1;
        if (calls === 1) {
          await released;
          throw new Error('database down');
        }
        return db.query(sql, params);
      },
    });
    const first = log.record(record(1)).catch(() => 'failed');
    const rest = Promise.all([log.record(record(2)), log.record(record(3))]);
    assert.equal(log.unstored(), 3);
    let settled = false;
    const settling = log.settled().then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(settled, false, 'the first statement is still held');
    release();
    await settling;
    assert.equal(await first, 'failed');
    await rest;
    assert.equal(log.unstored(), 0);
    const { rows } = await db.query<{ user_id: string }>('SELECT user_id FROM launch_log ORDER BY user_id');
    assert.deepEqual(rows.map((row) => row.user_id), ['user-2', 'user-3']);
  });

  it('fails the records of a failed statement, and writes the next ones', async () => {
    let fail = true;
    const log = createLaunchLog({
      query: (sql, params) => {
        if (fail) return Promise.reject(new Error('database down'));
        return db.query(sql, params);
      },
    });
    await assert.rejects(log.record(record(1)), /database down/);
    fail = false;
    await log.record(record(2));
    const { rows } = await db.query<{ user_id: string }>('SELECT user_id FROM launch_log');
    assert.deepEqual(rows.map((row) => row.user_id), ['user-2']);
  });
});
