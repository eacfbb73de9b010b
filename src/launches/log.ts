import { prepared } from '../db/prepared.js';
import type { Queryable } from '../db/types.js';

/** One line per launch and its outcome: who (pseudonymous), which exam, role, endpoint, how long it took. */
export interface LaunchRecord {
  issuer: string;
  contextId?: string;
  examId?: string;
  userId: string;
  role: string;
  endpoint?: string;
  outcome: 'redirected' | 'refused' | 'upstream_error' | 'shown';
  errorCode?: string;
  incidentId?: string;
  durationMs: number;
}

/** The launch_log columns every reader maps the same way. */
export interface LaunchLogColumns<Outcome extends string = string> {
  at: Date;
  issuer: string;
  context_id: string | null;
  exam_id: string | null;
  role: string;
  endpoint: string | null;
  outcome: Outcome;
  error_code: string | null;
  incident_id: string | null;
  duration_ms: number;
}

/** A launch_log row in the tool's terms (absent values undefined, times as dates). */
export function launchLogEntryOf<Outcome extends string>(row: LaunchLogColumns<Outcome>) {
  return {
    at: new Date(row.at),
    issuer: row.issuer,
    contextId: row.context_id ?? undefined,
    examId: row.exam_id ?? undefined,
    role: row.role,
    endpoint: row.endpoint ?? undefined,
    outcome: row.outcome,
    errorCode: row.error_code ?? undefined,
    incidentId: row.incident_id ?? undefined,
    durationMs: row.duration_ms,
  };
}

export interface LaunchLog {
  /** Queues the record; resolves once it is stored, rejects if its statement failed. */
  record(entry: LaunchRecord): Promise<void>;
  /** Records queued and not stored yet. */
  unstored(): number;
  /** Resolves once every record queued so far is stored or has failed: before the database closes. */
  settled(): Promise<void>;
  recentForExam(examId: string, limit: number): Promise<Array<LaunchRecord & { at: Date }>>;
}

/** Records as columns, one array per column: the same text for any number of records. */
const INSERT_RECORDS = prepared(`INSERT INTO launch_log (at, issuer, context_id, exam_id, user_id, role, endpoint, outcome, error_code, incident_id, duration_ms)
  SELECT at, issuer, context_id, exam_id, user_id, role, endpoint, outcome, error_code, incident_id, duration_ms
    FROM unnest($1::timestamptz[], $2::text[], $3::text[], $4::uuid[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::integer[])
      AS records (at, issuer, context_id, exam_id, user_id, role, endpoint, outcome, error_code, incident_id, duration_ms)`);

/** Most launch records written by one statement. */
const MAX_BATCH = 500;

/**
 * Launch records are written as launches end: one statement for one record when the database is idle, one
 * statement for all records that ended meanwhile when a write is under way (a class starting at once writes a
 * few statements, not one per student). `record` resolves once its record is stored; `settled` once every
 * record queued so far is stored or has failed.
 */
export function createLaunchLog(db: Queryable): LaunchLog {
  const waiting: Array<{ entry: LaunchRecord; at: Date; stored: () => void; failed: (error: unknown) => void }> = [];
  let unstored = 0;
  // Statements run one at a time, in order: once the last queued record is settled, every earlier one is.
  let lastQueued: Promise<void> = Promise.resolve();
  let writing = false;

  function writeWaiting(): void {
    if (writing || waiting.length === 0) return;
    writing = true;
    const batch = waiting.splice(0, MAX_BATCH);
    const column = <T>(pick: (entry: LaunchRecord) => T) => batch.map(({ entry }) => pick(entry));
    db.query(
      INSERT_RECORDS,
      [
        batch.map(({ at }) => at.toISOString()),
        column((e) => e.issuer),
        column((e) => e.contextId ?? null),
        column((e) => e.examId ?? null),
        column((e) => e.userId),
        column((e) => e.role),
        column((e) => e.endpoint ?? null),
        column((e) => e.outcome),
        column((e) => e.errorCode ?? null),
        column((e) => e.incidentId ?? null),
        column((e) => Math.round(e.durationMs)),
      ],
    ).then(
      () => batch.forEach(({ stored }) => stored()),
      (error: unknown) => batch.forEach(({ failed }) => failed(error)),
    ).finally(() => {
      writing = false;
      writeWaiting();
    });
  }

  const settled = () => lastQueued;

  return {
    record(entry) {
      const stored = new Promise<void>((resolve, reject) => {
        waiting.push({ entry, at: new Date(), stored: resolve, failed: reject });
        writeWaiting();
      });
      unstored += 1;
      const settle = () => {
        unstored -= 1;
      };
      lastQueued = stored.then(settle, settle);
      return stored;
    },
    unstored: () => unstored,
    settled,
    async recentForExam(examId, limit) {
      // A page of this process shows the launches it has answered, including those whose rows are still queued.
      await settled();
      const result = await db.query<LaunchLogColumns<LaunchRecord['outcome']> & { user_id: string }>(
        'SELECT * FROM launch_log WHERE exam_id = $1 ORDER BY at DESC LIMIT $2',
        [examId, limit],
      );
      return result.rows.map((row) => ({ ...launchLogEntryOf(row), userId: row.user_id }));
    },
  };
}
