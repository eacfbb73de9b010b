// A launch answers before its launch-log row is written: the row follows at once, the instructor's hub of the
// same process waits for rows still queued, the app waits for them before it closes, and a database slower than
// the launches makes launches wait for their rows rather than queue without bound.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Queryable } from '../../../src/db/types.js';
import type { LaunchLog, LaunchRecord } from '../../../src/launches/log.js';
import { createLaunchRecorder, MAX_UNSTORED_RECORDS } from '../../../src/launches/recorder.js';
import type { LaunchSession } from '../../../src/launches/service.js';
import { createLogger } from '../../../src/logger.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { migratedTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { demoExam, launchAs } from '../../helpers/launches.js';

/** A gate the test opens: launch-log inserts wait at it while it is shut. */
function gate() {
  let open: () => void = () => undefined;
  let opened = new Promise<void>((resolve) => (open = resolve));
  return {
    shut: () => (opened = new Promise<void>((resolve) => (open = resolve))),
    open: () => open(),
    passed: () => opened,
  };
}

/** The test database, with launch-log inserts held at the gate. */
function holdingLaunchLog(db: TestDatabase, held: ReturnType<typeof gate>): TestDatabase {
  const hold: Queryable['query'] = async (sql, params) => {
    if (sql.includes('INSERT INTO launch_log')) await held.passed();
    return db.query(sql, params);
  };
  return Object.assign(Object.create(db) as TestDatabase, { query: hold });
}

const settledWithin = async (promise: Promise<unknown>, ms: number) =>
  Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);

const rows = async (db: TestDatabase) => (await db.query<{ count: number }>('SELECT count(*)::int AS count FROM launch_log')).rows[0]?.count;

/**
 * The suite's app on a database whose launch-log inserts wait at `held`, started in `before` (then `warmUp` on it)
 * and closed in `after`; `db` and `app` are read through the returned object once `before` has run.
 */
function appBehindGate(warmUp: (app: TestApp) => Promise<void> = async () => {}) {
  const held = gate();
  let db: TestDatabase | undefined;
  let app: TestApp | undefined;
  before(async () => {
    db = await migratedTestDatabase();
    app = await startTestApp({}, { db: holdingLaunchLog(db, held) });
    await demoExam(app);
    held.open();
    await warmUp(app);
  });
  after(async () => {
    held.open();
    await app?.close();
  });
  const started = <T>(value: T | undefined): T => {
    assert.ok(value, 'the suite has started');
    return value;
  };
  return {
    held,
    get db() {
      return started(db);
    },
    get app() {
      return started(app);
    },
  };
}

describe('launch records written after the answer', { timeout: 60_000 }, () => {
  const suite = appBehindGate();

  it('answers the launch while its row waits, and the row follows', async () => {
    // The student has seen the exam's privacy notice: the launch below is one step, answered with the redirect.
    await launchAs(suite.app, { user: 'student', flavor: 'moodle', presentation: 'window' });
    await suite.app.tool.launchesRecorded();
    suite.held.shut();
    const before = await rows(suite.db);
    const { response } = await launchAs(suite.app, { user: 'student', flavor: 'moodle', presentation: 'window', stopAtNotice: true });
    assert.equal(response.status, 302);
    assert.match(String(response.headers.location), /\/sandbox\/proctoring\/session\//);
    assert.equal(await rows(suite.db), before, 'the row is not written yet');
    assert.equal(await settledWithin(suite.app.tool.launchesRecorded(), 100), false, 'a record is still queued');
    suite.held.open();
    await suite.app.tool.launchesRecorded();
    assert.equal(await rows(suite.db), (before ?? 0) + 1);
  });

  it("the instructor's hub waits for the rows still queued, then lists the launch", async () => {
    suite.held.shut();
    await launchAs(suite.app, { user: 'student', flavor: 'moodle', presentation: 'window' });
    const hub = launchAs(suite.app, { user: 'instructor', flavor: 'moodle', presentation: 'window' });
    assert.equal(await settledWithin(hub, 300), false, 'the hub waits for the queued row');
    suite.held.open();
    const { response } = await hub;
    assert.equal(response.status, 200, response.text.slice(0, 300));
    const recent = response.text.slice(response.text.indexOf('Recent launches'));
    assert.match(recent, /data-cell="endpoint">Exam session</, 'the student launch is listed');
  });
});

// A suite of its own: its test closes the app, which the tests above still need.
describe('launch records written after the answer: closing the app', { timeout: 60_000 }, () => {
  // The student has seen the exam's privacy notice: the launch in the test is one step, and one row.
  const suite = appBehindGate(async (app) => {
    await launchAs(app, { user: 'student', flavor: 'canvas', presentation: 'window' });
    await app.tool.launchesRecorded();
  });

  it('the app closes only once the queued rows are written', async () => {
    suite.held.shut();
    const before = await rows(suite.db);
    await launchAs(suite.app, { user: 'student', flavor: 'canvas', presentation: 'window' });
    const closing = suite.app.tool.close();
    assert.equal(await settledWithin(closing, 150), false, 'close waits for the queued row');
    suite.held.open();
    await closing;
    assert.equal(await rows(suite.db), (before ?? 0) + 1);
  });
});

describe('launch recorder', () => {
  const session = { launch: { issuer: 'https://lms.example', context: { id: 'course-1' } }, userId: 'user-1', decision: { kind: 'candidate' }, logger: createLogger('silent') } as unknown as LaunchSession;
  const settings = async () => ({ kind: 'settings' as const, examId: 'exam-1' });

  /** A launch log whose records are stored only when the test says so, with `unstored` records already queued. */
  function pendingLog(unstored: number) {
    const records: LaunchRecord[] = [];
    let store: () => void = () => undefined;
    const stored = new Promise<void>((resolve) => (store = resolve));
    const log: LaunchLog = {
      record: (entry) => {
        records.push(entry);
        return stored;
      },
      unstored: () => unstored + records.length,
      settled: () => stored,
      recentForExam: async () => [],
    };
    return { log, records, store };
  }

  it('returns the outcome before the record is stored while the queue is short', async () => {
    const { log, records } = pendingLog(0);
    const step = createLaunchRecorder({ log })(session, { endpoint: 'candidate' }, settings);
    assert.equal(await settledWithin(step, 200), true);
    assert.equal(records[0]?.outcome, 'shown');
  });

  it('waits for its own record once more than the bound are queued', async () => {
    const { log, records, store } = pendingLog(MAX_UNSTORED_RECORDS);
    const step = createLaunchRecorder({ log })(session, { endpoint: 'candidate' }, settings);
    assert.equal(await settledWithin(step, 200), false, 'the launch waits for the database');
    assert.equal(records.length, 1);
    store();
    assert.deepEqual(await step, await settings());
  });

  it('a record that cannot be stored does not fail the launch', async () => {
    const log: LaunchLog = { record: () => Promise.reject(new Error('database down')), unstored: () => MAX_UNSTORED_RECORDS + 1, settled: async () => undefined, recentForExam: async () => [] };
    assert.deepEqual(await createLaunchRecorder({ log })(session, { endpoint: 'candidate' }, settings), await settings());
  });
});
