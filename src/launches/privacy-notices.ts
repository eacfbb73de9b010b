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

export function createPrivacyNoticeStore(db: Queryable): PrivacyNoticeStore {
  return {
    async seen(examId, userId) {
      const result = await db.query('SELECT 1 FROM privacy_notices WHERE exam_id = $1 AND user_id = $2', [examId, userId]);
      return result.rows.length > 0;
    },
    async record(examId, userId) {
      await db.query('INSERT INTO privacy_notices (exam_id, user_id) VALUES ($1, $2) ON CONFLICT (exam_id, user_id) DO NOTHING', [examId, userId]);
    },
  };
}
