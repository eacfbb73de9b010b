import { randomUUID } from 'node:crypto';
import { prepared } from '../db/prepared.js';
import type { Database } from '../db/types.js';
import { LIMITS } from '../proctoring/contract.js';

/**
 * `abandoned`: still open when its proctoring link expired (nobody came back through a return link); a later
 * return still records how it ended.
 */
export type AttemptStatus = 'started' | 'submitted' | 'ended' | 'abandoned';

export interface Attempt {
  id: string;
  examId: string;
  userId: string;
  status: AttemptStatus;
  isTest: boolean;
  /** An attempt of a practice exam (a setup check, not the real exam); read attempts always say. */
  practice?: boolean;
  /** The student was exempted from proctoring (an accommodation) and sent straight to the quiz. */
  exempt?: boolean;
  startedAt: Date;
  endedAt?: Date;
  /** When its latest proctoring link stops being valid; unset for attempts from before it was recorded. */
  expiresAt?: Date;
  /** The proctoring account of its latest launch (`default` or a per-platform account); unset before it was recorded. */
  accountRef?: string;
  /** The platform's attempt number, for an attempt started by LTI Proctoring Services. */
  ltiAttemptNumber?: number;
  /** The error the platform reported when it ended the attempt (LTI Proctoring Services), for staff. */
  platformError?: string;
}

interface AttemptRow {
  id: string;
  exam_id: string;
  user_id: string;
  status: AttemptStatus;
  is_test: boolean;
  practice?: boolean;
  exempt?: boolean;
  started_at: Date;
  ended_at: Date | null;
  expires_at?: Date | null;
  account_ref: string | null;
  lti_attempt_number?: number | null;
  platform_error?: string | null;
}

const toAttempt = (row: AttemptRow): Attempt => ({
  id: row.id,
  examId: row.exam_id,
  userId: row.user_id,
  status: row.status,
  isTest: row.is_test,
  practice: row.practice === true,
  exempt: row.exempt === true,
  startedAt: new Date(row.started_at),
  endedAt: row.ended_at ? new Date(row.ended_at) : undefined,
  expiresAt: row.expires_at ? new Date(row.expires_at) : undefined,
  accountRef: row.account_ref ?? undefined,
  ltiAttemptNumber: row.lti_attempt_number ?? undefined,
  platformError: row.platform_error ?? undefined,
});

export interface AttemptStore {
  /**
   * The candidate's unfinished attempt (a resume keeps its id), or a new one after a finished attempt. The
   * proctoring account of this launch, when given, becomes the attempt's. `validForSeconds`: how long this
   * launch's proctoring link is valid (default: the service's); an open attempt whose links all expired is abandoned, not resumed.
   */
  startOrResume(input: StartAttempt): Promise<Attempt>;
  /**
   * The attempt of a platform's attempt number (LTI Proctoring Services): the same number resumes it, a new number
   * starts a new attempt and ends the candidate's unfinished attempt of another number.
   */
  startOrResumeNumbered(input: StartAttempt & { ltiAttemptNumber: number }): Promise<Attempt>;
  /**
   * The end a platform reported (LTI Proctoring Services' `LtiEndAssessment`) of the attempt with this number:
   * finished as submitted when it was still running, its error kept for staff. Undefined when there is none.
   */
  endNumbered(input: { examId: string; userId: string; ltiAttemptNumber: number; platformError?: string }): Promise<Attempt | undefined>;
  /**
   * Records how the attempt ended. A submission outranks an ungraceful end (two windows of one attempt may
   * end either way, in any order) and either outranks "abandoned"; anything else changes nothing.
   */
  finish(attemptId: string, outcome: 'submitted' | 'ended'): Promise<{ attempt: Attempt; returnUrl?: string } | undefined>;
  get(attemptId: string): Promise<Attempt | undefined>;
  recent(examId: string, limit: number): Promise<Attempt[]>;
}

/** Ends the exam's open attempts whose proctoring links all expired, at the moment the last one did. */
const ABANDON_EXPIRED = "UPDATE attempts SET status = 'abandoned', ended_at = expires_at WHERE exam_id = $1 AND status = 'started' AND expires_at < now()";

export interface StartAttempt {
  examId: string;
  userId: string;
  isTest: boolean;
  practice?: boolean;
  exempt?: boolean;
  returnUrl?: string;
  accountRef?: string;
  validForSeconds?: number;
}

const MAX_PLATFORM_ERROR = 4000;

/** What an `Attempt` is read from. */
const ATTEMPT_COLUMNS = 'id, exam_id, user_id, status, is_test, practice, exempt, started_at, ended_at, expires_at, account_ref, lti_attempt_number, platform_error';

/**
 * A candidate's launch, in one statement: their expired attempt is abandoned first (the insert reads the update's
 * count, so the update has run before the insert meets the index), then the partial unique index (one 'started'
 * attempt per exam and user) makes concurrent launches of the candidate converge on one attempt; a resume's new
 * link extends its validity.
 */
const START_OR_RESUME = prepared(`WITH abandoned AS (${ABANDON_EXPIRED} AND user_id = $2 RETURNING 1)
  INSERT INTO attempts (exam_id, user_id, id, is_test, return_url, account_ref, practice, exempt, expires_at)
    SELECT $1::uuid, $2::text, $3::uuid, $4::boolean, $5::text, $6::text, $7::boolean, $8::boolean, now() + make_interval(secs => $9::double precision)
      FROM (SELECT count(*) FROM abandoned) AS after_abandoning
  ON CONFLICT (exam_id, user_id) WHERE status = 'started'
    DO UPDATE SET return_url = COALESCE(EXCLUDED.return_url, attempts.return_url), account_ref = COALESCE(EXCLUDED.account_ref, attempts.account_ref),
      exempt = EXCLUDED.exempt, expires_at = GREATEST(attempts.expires_at, EXCLUDED.expires_at)
  RETURNING ${ATTEMPT_COLUMNS}`);

export function createAttemptStore(db: Database): AttemptStore {
  return {
    async startOrResumeNumbered({ examId, userId, isTest, practice = false, exempt = false, returnUrl, accountRef, validForSeconds = LIMITS.candidateExpire.default, ltiAttemptNumber }) {
      // Another number's attempt still running (the platform started a new one without ending it) ends, so the
      // index of one unfinished attempt per exam and user admits the new one.
      await db.query(
        `UPDATE attempts SET status = 'ended', ended_at = now()
         WHERE exam_id = $1 AND user_id = $2 AND status = 'started' AND lti_attempt_number IS DISTINCT FROM $3`,
        [examId, userId, ltiAttemptNumber],
      );
      const result = await db.query<AttemptRow>(
        `INSERT INTO attempts (id, exam_id, user_id, is_test, return_url, account_ref, practice, exempt, expires_at, lti_attempt_number)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() + make_interval(secs => $9), $10)
         ON CONFLICT (exam_id, user_id, lti_attempt_number) WHERE lti_attempt_number IS NOT NULL
           DO UPDATE SET return_url = COALESCE(EXCLUDED.return_url, attempts.return_url), account_ref = COALESCE(EXCLUDED.account_ref, attempts.account_ref),
             exempt = EXCLUDED.exempt, expires_at = GREATEST(attempts.expires_at, EXCLUDED.expires_at)
         RETURNING *`,
        [randomUUID(), examId, userId, isTest, returnUrl ?? null, accountRef ?? null, practice, exempt, validForSeconds, ltiAttemptNumber],
      );
      const row = result.rows[0];
      if (!row) throw new Error('attempt upsert returned nothing');
      return toAttempt(row);
    },
    async endNumbered({ examId, userId, ltiAttemptNumber, platformError }) {
      const result = await db.query<AttemptRow>(
        `UPDATE attempts SET status = CASE WHEN status IN ('started', 'abandoned', 'ended') THEN 'submitted' ELSE status END,
           ended_at = COALESCE(ended_at, now()), platform_error = COALESCE($4, platform_error)
         WHERE exam_id = $1 AND user_id = $2 AND lti_attempt_number = $3 RETURNING *`,
        [examId, userId, ltiAttemptNumber, platformError?.slice(0, MAX_PLATFORM_ERROR) ?? null],
      );
      return result.rows[0] ? toAttempt(result.rows[0]) : undefined;
    },
    async startOrResume({ examId, userId, isTest, practice = false, exempt = false, returnUrl, accountRef, validForSeconds = LIMITS.candidateExpire.default }) {
      const result = await db.query<AttemptRow>(
        START_OR_RESUME,
        [examId, userId, randomUUID(), isTest, returnUrl ?? null, accountRef ?? null, practice, exempt, validForSeconds],
      );
      const row = result.rows[0];
      if (!row) throw new Error('attempt upsert returned nothing');
      return toAttempt(row);
    },
    async finish(attemptId, outcome) {
      const result = await db.query<AttemptRow & { return_url: string | null }>(
        `UPDATE attempts SET status = $2, ended_at = now()
          WHERE id = $1 AND (status IN ('started', 'abandoned') OR (status = 'ended' AND $2 = 'submitted')) RETURNING *`,
        [attemptId, outcome],
      );
      const row = result.rows[0];
      if (row) return { attempt: toAttempt(row), returnUrl: row.return_url ?? undefined };
      const existing = await db.query<AttemptRow & { return_url: string | null }>('SELECT * FROM attempts WHERE id = $1', [attemptId]);
      const found = existing.rows[0];
      return found ? { attempt: toAttempt(found), returnUrl: found.return_url ?? undefined } : undefined;
    },
    async get(attemptId) {
      const result = await db.query<AttemptRow>('SELECT * FROM attempts WHERE id = $1', [attemptId]);
      return result.rows[0] ? toAttempt(result.rows[0]) : undefined;
    },
    async recent(examId, limit) {
      await db.query(ABANDON_EXPIRED, [examId]);
      const result = await db.query<AttemptRow>('SELECT * FROM attempts WHERE exam_id = $1 ORDER BY started_at DESC LIMIT $2', [examId, limit]);
      return result.rows.map(toAttempt);
    },
  };
}
