import { prepared } from '../db/prepared.js';
import type { Queryable } from '../db/types.js';

/**
 * Which students have seen an exam's privacy notice (the start page that says what is recorded and checked, and
 * what the proctoring service receives), by the student's pseudonymous id. A launch in a window of its own shows
 * the start page until the student has continued from it once; a framed launch shows it every time (its button
 * moves the top window) and records it too.
 */
export interface PrivacyNoticeStore {
  /** Whether the student has seen the exam's notice. */
  seen(examId: string, userId: string): Promise<boolean>;
  /** Records that the student has seen the exam's notice; a second record keeps the first one's time. */
  record(examId: string, userId: string): Promise<void>;
}

/**
 * What a student's launch does about the exam's privacy notice: `none` (exempted from proctoring: nothing is recorded
 * or sent), `record-then-session` (the notice's button was pressed), `session-then-record` (a framed launch: its start
 * page is the notice), `notice-unless-seen` (a launch in a window of its own).
 */
export type NoticeStep = 'none' | 'record-then-session' | 'session-then-record' | 'notice-unless-seen';

export function noticeStep(view: { framed: boolean; continued?: boolean }, exempt: boolean): NoticeStep {
  if (exempt) return 'none';
  if (view.continued) return 'record-then-session';
  return view.framed ? 'session-then-record' : 'notice-unless-seen';
}

const SEEN = prepared('SELECT 1 FROM privacy_notices WHERE exam_id = $1 AND user_id = $2');
const RECORD = prepared('INSERT INTO privacy_notices (exam_id, user_id) VALUES ($1, $2) ON CONFLICT (exam_id, user_id) DO NOTHING');

export function createPrivacyNoticeStore(db: Queryable): PrivacyNoticeStore {
  return {
    async seen(examId, userId) {
      const result = await db.query(SEEN, [examId, userId]);
      return result.rows.length > 0;
    },
    async record(examId, userId) {
      await db.query(RECORD, [examId, userId]);
    },
  };
}
