import type { Queryable } from '../../db/types.js';
import type { SettingsChange } from './document.js';

/** Where a settings change came from. */
export type ChangeSource = 'settings' | 'deep-linking' | 'course-copy' | 'import' | 'platform-move';

export interface RecordedChange {
  at: Date;
  /** The pseudonymous id of who changed it (as sent to the proctoring service); absent for the CLI. */
  userId?: string;
  source: ChangeSource;
  changes: SettingsChange[];
  /** Attempts of the exam when its proctoring settings changed: they ran under the settings before. */
  attemptsBefore?: number;
}

export interface SettingsChangeLog {
  record(examId: string, entry: { userId?: string; source: ChangeSource; changes: SettingsChange[]; attemptsBefore?: number }): Promise<void>;
  recent(examId: string, limit: number): Promise<RecordedChange[]>;
}

interface ChangeRow {
  at: Date;
  user_id: string | null;
  source: ChangeSource;
  changes: SettingsChange[];
  attempts_before: number | null;
}

export function createSettingsChangeLog(db: Queryable): SettingsChangeLog {
  return {
    async record(examId, entry) {
      if (entry.changes.length === 0) return;
      await db.query('INSERT INTO exam_settings_changes (exam_id, user_id, source, changes, attempts_before) VALUES ($1, $2, $3, $4::jsonb, $5)', [
        examId,
        entry.userId ?? null,
        entry.source,
        JSON.stringify(entry.changes),
        entry.attemptsBefore ?? null,
      ]);
    },
    async recent(examId, limit) {
      const result = await db.query<ChangeRow>('SELECT at, user_id, source, changes, attempts_before FROM exam_settings_changes WHERE exam_id = $1 ORDER BY at DESC, id DESC LIMIT $2', [examId, limit]);
      return result.rows.map((row) => ({ at: new Date(row.at), userId: row.user_id ?? undefined, source: row.source, changes: row.changes, ...(row.attempts_before ? { attemptsBefore: row.attempts_before } : {}) }));
    },
  };
}
