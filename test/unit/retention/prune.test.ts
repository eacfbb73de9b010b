// Retention: rows older than their setting go, newer ones stay, on the test database (PGlite, or PostgreSQL
// with DATABASE_URL); the schedule lets one replica at a time prune, and every prune that removed rows is audited.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createAuditLog } from '../../../src/admin/audit.js';
import { loadConfig, type RetentionSettings } from '../../../src/config.js';
import type { Database, Queryable } from '../../../src/db/types.js';
import { createLogger } from '../../../src/logger.js';
import { DEEP_LINK_PLACEHOLDER_PREFIX } from '../../../src/exams/store.js';
import { countExpired, pruneExpired } from '../../../src/retention/prune.js';
import { PRUNE_ACTION } from '../../../src/retention/record.js';
import { claimTurn, scheduleRetention } from '../../../src/retention/schedule.js';
import { migratedTestDatabase, openSecondHandle, type TestDatabase } from '../../helpers/db.js';

const DAY_MS = 86_400_000;
const SETTINGS: RetentionSettings = { launchLogDays: 90, attemptDays: 400, webhookDeliveryDays: 30, auditLogDays: 730, unclaimedExamDays: 400, courseStaffDays: 400, pruneIntervalMinutes: 60 };
const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS);

/** Rows of each pruned table, each at its own age (in days), so a test can see which went. */
async function seed(db: Queryable) {
  const examId = randomUUID();
  await db.query(`INSERT INTO exams (id, issuer, client_id, deployment_id, context_id, resource_link_id, title) VALUES ($1, 'https://lms.example.edu', 'c', '1', $2, 'r', 'Exam')`, [examId, `course-${examId}`]);
  const subscriptionId = `sub-${randomUUID()}`;
  await db.query(`INSERT INTO webhook_subscriptions (id, account_ref, version, receiver_url, key_sha256) VALUES ($1, 'env', '3', 'https://tool.example.edu/webhooks', 'x')`, [subscriptionId]);
  const attempt = async (ageDays: number, status = 'ended') => {
    const id = randomUUID();
    await db.query('INSERT INTO attempts (id, exam_id, user_id, status, started_at) VALUES ($1, $2, $3, $4, $5)', [id, examId, `user-${id}`, status, daysAgo(ageDays)]);
    return id;
  };
  const delivery = async (ageDays: number, attemptId: string | null) => {
    const id = randomUUID();
    await db.query(
      `INSERT INTO webhook_deliveries (id, subscription_id, data_sha256, received_at, verified_by, version, data_raw, attempt_id) VALUES ($1, $2, $3, $4, 'key', '3', '{}', $5)`,
      [id, subscriptionId, id, daysAgo(ageDays), attemptId],
    );
    return id;
  };
  const launch = async (ageDays: number) =>
    String((await db.query<{ id: number }>(`INSERT INTO launch_log (at, issuer, user_id, role, outcome, duration_ms) VALUES ($1, 'https://lms.example.edu', 'u', 'learner', 'redirected', 5) RETURNING id`, [daysAgo(ageDays)])).rows[0]!.id);
  const audit = async (ageDays: number) =>
    String((await db.query<{ id: number }>(`INSERT INTO admin_audit_log (at, actor, source, action) VALUES ($1, 'admin', 'console', 'platform.add') RETURNING id`, [daysAgo(ageDays)])).rows[0]!.id);

  // Exams made in the deep-linking picker: one whose link no launch claimed for 401 days goes; a newer one, a
  // claimed one of the same age, and a placeholder with an attempt (never left behind) stay.
  const exam = async (ageDays: number, resourceLinkId: string) => {
    const id = randomUUID();
    await db.query(`INSERT INTO exams (id, issuer, client_id, deployment_id, context_id, resource_link_id, title, updated_at) VALUES ($1, 'https://lms.example.edu', 'c', '1', 'course', $2, 'Exam', $3)`, [id, resourceLinkId, daysAgo(ageDays)]);
    return id;
  };
  const placeholder = () => `${DEEP_LINK_PLACEHOLDER_PREFIX}${randomUUID()}`;
  const unclaimed = { old: [await exam(401, placeholder())], kept: [await exam(399, placeholder()), await exam(401, `claimed-${randomUUID()}`), await exam(401, placeholder())] };
  await db.query("INSERT INTO attempts (id, exam_id, user_id, status, started_at) VALUES ($1, $2, 'u', 'ended', now())", [randomUUID(), unclaimed.kept[2]]);

  // Course staff by the later of their last staff launch and their naming as a proctor; an entry with neither
  // (a proctor named, then unnamed, who never launched) has nothing to keep it.
  const staff = async (launchAgeDays: number | null, namedAgeDays: number | null) => {
    const userId = `staff-${randomUUID()}`;
    await db.query(
      "INSERT INTO course_staff (issuer, client_id, deployment_id, context_id, user_id, staff_launch_at, proctor_named_at, proctor_named_by) VALUES ('https://lms.example.edu', 'c', '1', 'course', $1, $2, $3, CASE WHEN $3::timestamptz IS NULL THEN NULL ELSE 'teacher' END)",
      [userId, launchAgeDays === null ? null : daysAgo(launchAgeDays), namedAgeDays === null ? null : daysAgo(namedAgeDays)],
    );
    return userId;
  };
  const courseStaff = {
    old: [await staff(401, null), await staff(null, 401), await staff(null, null)],
    kept: [await staff(399, null), await staff(null, 399), await staff(401, 10), await staff(10, 700)],
  };
  const notice = async (ageDays: number) => {
    const userId = `student-${randomUUID()}`;
    await db.query('INSERT INTO privacy_notices (exam_id, user_id, shown_at) VALUES ($1, $2, $3)', [examId, userId, daysAgo(ageDays)]);
    return userId;
  };

  const oldAttempt = await attempt(401);
  const abandonedAttempt = await attempt(450, 'started');
  const recentAttempt = await attempt(399);
  return {
    attempts: { old: [oldAttempt, abandonedAttempt], kept: [recentAttempt] },
    deliveries: {
      // A result of an expired attempt goes with it however recent; an unmatched old delivery by its own setting.
      old: [await delivery(2, oldAttempt), await delivery(31, oldAttempt), await delivery(31, null), await delivery(31, recentAttempt)],
      kept: [await delivery(29, recentAttempt), await delivery(29, null)],
    },
    launches: { old: [await launch(91), await launch(365)], kept: [await launch(89), await launch(0)] },
    audits: { old: [await audit(731)], kept: [await audit(729)] },
    exams: unclaimed,
    courseStaff,
    // Who saw an exam's privacy notice goes by the attempts' setting, by when they first saw it.
    notices: { old: [await notice(401)], kept: [await notice(399)] },
  };
}

type Seeded = Awaited<ReturnType<typeof seed>>;

async function present(db: Queryable, table: string, ids: readonly string[]): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(`SELECT id::text AS id FROM ${table} WHERE id::text = ANY($1::text[])`, [ids]);
  return rows.map((row) => row.id).sort();
}

async function assertPruned(db: Queryable, seeded: Seeded): Promise<void> {
  for (const [table, rows] of [
    ['attempts', seeded.attempts],
    ['webhook_deliveries', seeded.deliveries],
    ['launch_log', seeded.launches],
    ['admin_audit_log', seeded.audits],
    ['exams', seeded.exams],
  ] as const) {
    assert.deepEqual(await present(db, table, rows.old), [], `${table}: the expired rows are gone`);
    assert.deepEqual(await present(db, table, rows.kept), [...rows.kept].sort(), `${table}: the newer rows stay`);
  }
  const staffLeft = async (ids: readonly string[]) => (await db.query<{ user_id: string }>('SELECT user_id FROM course_staff WHERE user_id = ANY($1::text[]) ORDER BY user_id', [ids])).rows.map((row) => row.user_id);
  assert.deepEqual(await staffLeft(seeded.courseStaff.old), [], 'course_staff: the expired entries are gone');
  assert.deepEqual(await staffLeft(seeded.courseStaff.kept), [...seeded.courseStaff.kept].sort(), 'course_staff: the newer entries stay');
  const notices = async (ids: readonly string[]) => (await db.query<{ user_id: string }>('SELECT user_id FROM privacy_notices WHERE user_id = ANY($1::text[])', [ids])).rows.map((row) => row.user_id);
  assert.deepEqual(await notices(seeded.notices.old), [], 'privacy_notices: the expired rows are gone');
  assert.deepEqual(await notices(seeded.notices.kept), seeded.notices.kept, 'privacy_notices: the newer rows stay');
}

const clear = async (db: Queryable) => {
  for (const table of ['course_staff', 'webhook_deliveries', 'attempts', 'privacy_notices', 'exams', 'webhook_subscriptions', 'launch_log', 'admin_audit_log', 'scheduled_tasks']) await db.query(`DELETE FROM ${table}`);
};

describe('retention', () => {
  let db: TestDatabase;
  before(async () => {
    db = await migratedTestDatabase();
  });
  after(async () => {
    await db.close();
  });
  beforeEach(() => clear(db));

  it('defaults: launch log 90 days, attempts and webhook deliveries 400, audit log 730, pruned every hour; 0 keeps', () => {
    assert.deepEqual(loadConfig({}).retention, { launchLogDays: 90, attemptDays: 400, webhookDeliveryDays: 400, auditLogDays: 730, unclaimedExamDays: 400, courseStaffDays: 400, pruneIntervalMinutes: 60 });
    assert.equal(loadConfig({ RETENTION_AUDIT_LOG_DAYS: '0' }).retention.auditLogDays, 0);
    assert.throws(() => loadConfig({ RETENTION_LAUNCH_LOG_DAYS: '-1' }), /RETENTION_LAUNCH_LOG_DAYS must be a whole number/);
  });

  it('removes the rows older than their setting and keeps the newer ones, an attempt with its results', async () => {
    const seeded = await seed(db);
    const counted = await countExpired(db, SETTINGS);
    const result = await pruneExpired(db, SETTINGS);
    assert.deepEqual(result.removed, { attempts: 2, attemptResults: 2, privacyNotices: 1, webhookDeliveries: 2, launchLog: 2, auditLog: 1, unclaimedExams: 1, courseStaff: 3 });
    assert.deepEqual(counted.removed, result.removed, 'the dry run counts what the prune removes');
    await assertPruned(db, seeded);
    assert.deepEqual((await pruneExpired(db, SETTINGS)).removed, { attempts: 0, attemptResults: 0, privacyNotices: 0, webhookDeliveries: 0, launchLog: 0, auditLog: 0, unclaimedExams: 0, courseStaff: 0 }, 'idempotent');
  });

  it('works through any number of rows in batches, and a setting of 0 keeps everything of its kind', async () => {
    for (let i = 0; i < 7; i++) await db.query(`INSERT INTO launch_log (at, issuer, user_id, role, outcome, duration_ms) VALUES ($1, 'i', 'u', 'learner', 'redirected', 1)`, [daysAgo(100)]);
    const result = await pruneExpired(db, { ...SETTINGS, auditLogDays: 0 }, { batchRows: 3 });
    assert.equal(result.removed.launchLog, 7);
    assert.equal(result.cutoffs.auditLog, undefined);
    await db.query(`INSERT INTO admin_audit_log (at, actor, source, action) VALUES ($1, 'admin', 'console', 'platform.add')`, [daysAgo(5000)]);
    assert.equal((await pruneExpired(db, { ...SETTINGS, auditLogDays: 0 })).removed.auditLog, 0);
  });

  it('the schedule prunes on one replica per interval and audits what it removed', async () => {
    const seeded = await seed(db);
    const second: Database = await openSecondHandle(db);
    try {
      const logger = createLogger('silent');
      const replicas = [scheduleRetention({ db, settings: SETTINGS, audit: createAuditLog(db), logger }), scheduleRetention({ db: second, settings: SETTINGS, audit: createAuditLog(second), logger })];
      const results = await Promise.all(replicas.map((replica) => replica.runIfDue()));
      assert.equal(results.filter((result) => result !== undefined).length, 1, 'one replica takes the turn');
      assert.equal(await replicas[0]!.runIfDue(), undefined, 'the next turn is an interval later');
      await Promise.all(replicas.map((replica) => replica.stop()));
      await assertPruned(db, seeded);

      const entries = await createAuditLog(db).list({ action: PRUNE_ACTION });
      assert.equal(entries.length, 1);
      assert.equal(entries[0]!.source, 'schedule');
      assert.deepEqual(
        entries[0]!.changes.map((change) => `${change.field}: ${change.old?.replace(/ older than .*/, '')}`),
        ['launch_log: 2 rows', 'attempts: 2 rows', 'webhook_deliveries: 2 rows', 'admin_audit_log: 1 rows', 'exams (unclaimed deep-linking placeholders): 1 rows', 'course_staff: 3 rows', 'webhook_deliveries (results of those attempts): 2 rows', 'privacy_notices: 1 rows'],
      );
      const { rows } = await db.query<{ last_finished_at: Date | null }>("SELECT last_finished_at FROM scheduled_tasks WHERE name = 'retention.prune'");
      assert.ok(rows[0]?.last_finished_at, 'the finished prune is noted');
    } finally {
      await second.close();
    }
  });

  it('a prune that removes nothing writes no audit entry; a turn is free again once the interval has passed', async () => {
    const result = await scheduleRetention({ db, settings: SETTINGS, audit: createAuditLog(db), logger: createLogger('silent') }).runIfDue();
    assert.equal(result?.removed.launchLog, 0);
    assert.equal((await createAuditLog(db).list({ action: PRUNE_ACTION })).length, 0);
    assert.equal(await claimTurn(db, 60), false);
    await db.query("UPDATE scheduled_tasks SET last_started_at = now() - interval '61 minutes'");
    assert.equal(await claimTurn(db, 60), true);
  });

  it('two prunes at once on two connections split the rows and both finish', async () => {
    for (let i = 0; i < 40; i++) await db.query(`INSERT INTO launch_log (at, issuer, user_id, role, outcome, duration_ms) VALUES ($1, 'i', 'u', 'learner', 'redirected', 1)`, [daysAgo(100)]);
    const second = await openSecondHandle(db);
    try {
      const results = await Promise.all([pruneExpired(db, SETTINGS, { batchRows: 5 }), pruneExpired(second, SETTINGS, { batchRows: 5 })]);
      assert.equal(results[0].removed.launchLog + results[1].removed.launchLog, 40);
      assert.equal((await db.query('SELECT 1 FROM launch_log')).rowCount, 0);
    } finally {
      await second.close();
    }
  });
});
