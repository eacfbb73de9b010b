import type { Database, Queryable } from '../../db/types.js';
import type { Violation } from '../../proctoring/contract.js';
import { createSettingsChangeLog } from '../settings/changes.js';
import { diffSettings, readSettingsDocument } from '../settings/document.js';
import { applyOverride, type AccommodationOverride } from './override.js';

export interface Accommodation {
  userId: string;
  override: AccommodationOverride;
  updatedAt: Date;
}

export type SetResult = { ok: true; accommodation: AccommodationOverride } | { ok: false; violations: Violation[] };

/** Where an override's changes appear in the exam's change history: under the student's pseudonymous id. */
export const historyPrefix = (userId: string): string => `accommodations.${userId}`;

export interface AccommodationStore {
  list(examId: string): Promise<Accommodation[]>;
  get(examId: string, userId: string): Promise<AccommodationOverride | undefined>;
  /** Validates the effective settings, saves and records the change in the exam's history, in one transaction. */
  set(examId: string, userId: string, input: unknown, actor: { userId?: string }): Promise<SetResult>;
  remove(examId: string, userId: string, actor: { userId?: string }): Promise<boolean>;
}

interface Row {
  user_id: string;
  override: AccommodationOverride;
  updated_at: Date;
}

async function current(db: Queryable, examId: string, userId: string): Promise<AccommodationOverride | undefined> {
  const result = await db.query<{ override: AccommodationOverride }>('SELECT override FROM exam_accommodations WHERE exam_id = $1 AND user_id = $2', [examId, userId]);
  return result.rows[0]?.override;
}

export function createAccommodationStore(db: Database): AccommodationStore {
  return {
    async list(examId) {
      const result = await db.query<Row>('SELECT user_id, override, updated_at FROM exam_accommodations WHERE exam_id = $1 ORDER BY user_id', [examId]);
      return result.rows.map((r) => ({ userId: r.user_id, override: r.override, updatedAt: new Date(r.updated_at) }));
    },
    get: (examId, userId) => current(db, examId, userId),
    async set(examId, userId, input, actor) {
      return db.transaction(async (tx) => {
        const exam = await tx.query<{ settings: unknown }>('SELECT settings FROM exams WHERE id = $1 FOR UPDATE', [examId]);
        const row = exam.rows[0];
        if (!row || row.settings === null) return { ok: false as const, violations: [{ path: '', rule: 'type' as const, message: 'The exam has no settings yet: save its settings first.' }] };
        const document = readSettingsDocument(row.settings);
        if (!document.ok) return { ok: false as const, violations: document.violations };
        const applied = applyOverride(document.value, input);
        if (!applied.ok) return applied;
        const before = await current(tx, examId, userId);
        await tx.query(
          `INSERT INTO exam_accommodations (exam_id, user_id, override) VALUES ($1, $2, $3::jsonb)
           ON CONFLICT (exam_id, user_id) DO UPDATE SET override = EXCLUDED.override, updated_at = now()`,
          [examId, userId, JSON.stringify(applied.override)],
        );
        const changes = diffSettings(before ?? {}, applied.override).map((c) => ({ ...c, path: `${historyPrefix(userId)}.${c.path}` }));
        await createSettingsChangeLog(tx).record(examId, { userId: actor.userId, source: 'settings', changes });
        return { ok: true as const, accommodation: applied.override };
      });
    },
    async remove(examId, userId, actor) {
      return db.transaction(async (tx) => {
        const before = await current(tx, examId, userId);
        if (before === undefined) return false;
        await tx.query('DELETE FROM exam_accommodations WHERE exam_id = $1 AND user_id = $2', [examId, userId]);
        const changes = diffSettings(before, {}).map((c) => ({ ...c, path: `${historyPrefix(userId)}.${c.path}` }));
        await createSettingsChangeLog(tx).record(examId, { userId: actor.userId, source: 'settings', changes });
        return true;
      });
    },
  };
}
