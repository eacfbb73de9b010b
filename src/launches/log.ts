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
  record(entry: LaunchRecord): Promise<void>;
  recentForExam(examId: string, limit: number): Promise<Array<LaunchRecord & { at: Date }>>;
}

export function createLaunchLog(db: Queryable): LaunchLog {
  return {
    async record(entry) {
      await db.query(
        `INSERT INTO launch_log (issuer, context_id, exam_id, user_id, role, endpoint, outcome, error_code, incident_id, duration_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [
          entry.issuer,
          entry.contextId ?? null,
          entry.examId ?? null,
          entry.userId,
          entry.role,
          entry.endpoint ?? null,
          entry.outcome,
          entry.errorCode ?? null,
          entry.incidentId ?? null,
          Math.round(entry.durationMs),
        ],
      );
    },
    async recentForExam(examId, limit) {
      const result = await db.query<LaunchLogColumns<LaunchRecord['outcome']> & { user_id: string }>(
        'SELECT * FROM launch_log WHERE exam_id = $1 ORDER BY at DESC LIMIT $2',
        [examId, limit],
      );
      return result.rows.map((row) => ({ ...launchLogEntryOf(row), userId: row.user_id }));
    },
  };
}
