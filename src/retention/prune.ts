import type { RetentionSettings } from '../config.js';
import type { Queryable } from '../db/types.js';

/** What a prune removes, each kind by its own setting. */
export const RETAINED = ['launchLog', 'attempts', 'webhookDeliveries', 'auditLog', 'unclaimedExams', 'courseStaff'] as const;
export type Retained = (typeof RETAINED)[number];

const DAYS_SETTING: Record<Retained, keyof RetentionSettings> = {
  launchLog: 'launchLogDays',
  attempts: 'attemptDays',
  webhookDeliveries: 'webhookDeliveryDays',
  auditLog: 'auditLogDays',
  unclaimedExams: 'unclaimedExamDays',
  courseStaff: 'courseStaffDays',
};

/**
 * Rows removed (or, for a dry run, that would be): attempts count the results received for them separately; the
 * records of who has seen an exam's privacy notice go by the attempts' setting too.
 */
export interface PruneCounts {
  launchLog: number;
  attempts: number;
  attemptResults: number;
  privacyNotices: number;
  webhookDeliveries: number;
  auditLog: number;
  unclaimedExams: number;
  courseStaff: number;
}

export interface PruneResult {
  /** Rows older than this went, per kind; absent for a kind kept for ever (0 days). */
  cutoffs: Partial<Record<Retained, Date>>;
  removed: PruneCounts;
  /** The prune was asked to stop between two batches before it had finished. */
  interrupted: boolean;
}

/** Rows deleted per statement: short statements hold few locks and never meet the statement timeout. */
export const PRUNE_BATCH_ROWS = 2000;

/**
 * An exam still on its deep-linking placeholder link (`exams/store.ts`, `DEEP_LINK_PLACEHOLDER_PREFIX`) that
 * nothing used since `$1`: its teacher left the LMS's activity form after the tool's picker, so no launch ever
 * claimed it. `updated_at` moves when the exam is created, edited, or its settings are copied into a course copy
 * (a template course's exam may never be launched itself). An exam with attempts is never one.
 */
const UNCLAIMED = `e.resource_link_id LIKE 'deep-link:%' AND e.updated_at < $1 AND NOT EXISTS (SELECT 1 FROM attempts a WHERE a.exam_id = e.id)`;

/**
 * A course's staff entry (`course_staff`: who launched as staff, whom an instructor named a proctor) by its
 * last event: the person's latest staff launch (noted at most daily) or naming, whichever is later.
 */
const STAFF_LAST_SEEN = "COALESCE(GREATEST(staff_launch_at, proctor_named_at), '-infinity')";
const STAFF_KEY = 'issuer, client_id, deployment_id, context_id, user_id';

/**
 * One batch per kind: at most `$2` rows older than `$1`, skipping rows another pruner (a replica, the CLI) has
 * locked, so concurrent prunes split the work instead of waiting on each other. Every statement is idempotent:
 * run twice, the second finds nothing.
 */
const BATCH: Record<Exclude<Retained, 'attempts'>, string> = {
  launchLog: 'DELETE FROM launch_log WHERE id IN (SELECT id FROM launch_log WHERE at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)',
  webhookDeliveries: 'DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries WHERE received_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)',
  auditLog: 'DELETE FROM admin_audit_log WHERE id IN (SELECT id FROM admin_audit_log WHERE at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)',
  unclaimedExams: `DELETE FROM exams WHERE id IN (SELECT id FROM exams e WHERE ${UNCLAIMED} LIMIT $2 FOR UPDATE SKIP LOCKED)`,
  courseStaff: `DELETE FROM course_staff WHERE (${STAFF_KEY}) IN (SELECT ${STAFF_KEY} FROM course_staff WHERE ${STAFF_LAST_SEEN} < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)`,
};

/** An attempt goes with the results the proctoring service sent for it (its matched webhook deliveries). */
const ATTEMPTS_BATCH = `
  WITH expired AS (SELECT id FROM attempts WHERE started_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED),
       results AS (DELETE FROM webhook_deliveries WHERE attempt_id IN (SELECT id FROM expired) RETURNING 1),
       attempts_gone AS (DELETE FROM attempts WHERE id IN (SELECT id FROM expired) RETURNING 1)
  SELECT (SELECT count(*) FROM attempts_gone)::int AS attempts, (SELECT count(*) FROM results)::int AS results`;

/**
 * Who has seen an exam's privacy notice, by when they first saw it: kept as long as attempts are (a student whose
 * record went sees the notice once more on their next launch).
 */
const NOTICES_BATCH = `DELETE FROM privacy_notices WHERE (exam_id, user_id) IN
  (SELECT exam_id, user_id FROM privacy_notices WHERE shown_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)`;
const COUNT_NOTICES = 'SELECT count(*)::int AS n FROM privacy_notices WHERE shown_at < $1';

const COUNT: Record<Retained, string> = {
  launchLog: 'SELECT count(*)::int AS n FROM launch_log WHERE at < $1',
  attempts: 'SELECT count(*)::int AS n FROM attempts WHERE started_at < $1',
  webhookDeliveries: 'SELECT count(*)::int AS n FROM webhook_deliveries WHERE received_at < $1',
  auditLog: 'SELECT count(*)::int AS n FROM admin_audit_log WHERE at < $1',
  unclaimedExams: `SELECT count(*)::int AS n FROM exams e WHERE ${UNCLAIMED}`,
  courseStaff: `SELECT count(*)::int AS n FROM course_staff WHERE ${STAFF_LAST_SEEN} < $1`,
};
const COUNT_ATTEMPT_RESULTS = 'SELECT count(*)::int AS n FROM webhook_deliveries d JOIN attempts a ON a.id = d.attempt_id WHERE a.started_at < $1';
/** Deliveries that go by their own setting: not those that go with an expired attempt (counted as its results). */
const COUNT_OTHER_DELIVERIES = `SELECT count(*)::int AS n FROM webhook_deliveries d
  WHERE d.received_at < $1 AND NOT EXISTS (SELECT 1 FROM attempts a WHERE a.id = d.attempt_id AND a.started_at < $2)`;

const DAY_MS = 86_400_000;

/** The moment before which each kind's rows have expired, for the kinds not kept for ever. */
export function cutoffsOf(settings: RetentionSettings, now: Date): Partial<Record<Retained, Date>> {
  const cutoffs: Partial<Record<Retained, Date>> = {};
  for (const kind of RETAINED) {
    const days = settings[DAYS_SETTING[kind]];
    if (days > 0) cutoffs[kind] = new Date(now.getTime() - days * DAY_MS);
  }
  return cutoffs;
}

const noneRemoved = (): PruneCounts => ({ launchLog: 0, attempts: 0, attemptResults: 0, privacyNotices: 0, webhookDeliveries: 0, auditLog: 0, unclaimedExams: 0, courseStaff: 0 });

/**
 * Deletes every row older than its kind's setting, in batches until none is left. Safe to run on several
 * replicas at once and to interrupt: `shouldStop` is asked between batches.
 */
export async function pruneExpired(
  db: Queryable,
  settings: RetentionSettings,
  options: { now?: Date; batchRows?: number; shouldStop?: () => boolean } = {},
): Promise<PruneResult> {
  const cutoffs = cutoffsOf(settings, options.now ?? new Date());
  const batchRows = options.batchRows ?? PRUNE_BATCH_ROWS;
  const removed = noneRemoved();
  const stop = options.shouldStop ?? (() => false);
  // Attempts first: their results go with them, before the deliveries' own (possibly shorter) setting applies.
  for (const kind of ['attempts', 'privacyNotices', 'launchLog', 'webhookDeliveries', 'auditLog', 'unclaimedExams', 'courseStaff'] as const) {
    const cutoff = cutoffs[kind === 'privacyNotices' ? 'attempts' : kind];
    if (!cutoff) continue;
    for (;;) {
      if (stop()) return { cutoffs, removed, interrupted: true };
      let deleted: number;
      if (kind === 'attempts') {
        const { rows } = await db.query<{ attempts: number; results: number }>(ATTEMPTS_BATCH, [cutoff, batchRows]);
        deleted = Number(rows[0]?.attempts ?? 0);
        removed.attemptResults += Number(rows[0]?.results ?? 0);
      } else {
        deleted = (await db.query(kind === 'privacyNotices' ? NOTICES_BATCH : BATCH[kind], [cutoff, batchRows])).rowCount;
      }
      removed[kind] += deleted;
      if (deleted < batchRows) break;
    }
  }
  return { cutoffs, removed, interrupted: false };
}

/** What `pruneExpired` would remove now, without removing anything. */
export async function countExpired(db: Queryable, settings: RetentionSettings, now = new Date()): Promise<PruneResult> {
  const cutoffs = cutoffsOf(settings, now);
  const removed = noneRemoved();
  for (const kind of RETAINED) {
    const cutoff = cutoffs[kind];
    if (!cutoff) continue;
    const count = kind === 'webhookDeliveries' && cutoffs.attempts ? db.query<{ n: number }>(COUNT_OTHER_DELIVERIES, [cutoff, cutoffs.attempts]) : db.query<{ n: number }>(COUNT[kind], [cutoff]);
    removed[kind] = Number((await count).rows[0]?.n ?? 0);
    if (kind === 'attempts') {
      removed.attemptResults = Number((await db.query<{ n: number }>(COUNT_ATTEMPT_RESULTS, [cutoff])).rows[0]?.n ?? 0);
      removed.privacyNotices = Number((await db.query<{ n: number }>(COUNT_NOTICES, [cutoff])).rows[0]?.n ?? 0);
    }
  }
  return { cutoffs, removed, interrupted: false };
}

export const totalRemoved = (counts: PruneCounts): number =>
  counts.launchLog + counts.attempts + counts.attemptResults + counts.privacyNotices + counts.webhookDeliveries + counts.auditLog + counts.unclaimedExams + counts.courseStaff;
