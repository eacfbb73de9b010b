import type { Database, Queryable } from '../../db/types.js';
import type { Violation } from '../../proctoring/contract.js';
import { createSettingsChangeLog } from '../settings/changes.js';
import { diffSettings, readSettingsDocument, type SettingsChange } from '../settings/document.js';
import { applyOverride, type AccommodationOverride } from './override.js';
import { invalidateReadCaches } from '../../db/read-cache.js';

export interface Accommodation {
  userId: string;
  override: AccommodationOverride;
  updatedAt: Date;
}

export type SetResult = { ok: true; accommodation: AccommodationOverride } | { ok: false; violations: Violation[] };

/** Where an override's changes appear in the exam's change history: under the student's pseudonymous id. */
export const historyPrefix = (userId: string): string => `accommodations.${userId}`;

/** The change-history entries of one student's override going from `before` to `after` (absent: `{}`). */
function overrideChanges(userId: string, before: AccommodationOverride | undefined, after: AccommodationOverride | undefined): SettingsChange[] {
  return diffSettings(before ?? {}, after ?? {}).map((c) => ({ ...c, path: `${historyPrefix(userId)}.${c.path}` }));
}

export interface AccommodationStore {
  list(examId: string): Promise<Accommodation[]>;
  get(examId: string, userId: string): Promise<AccommodationOverride | undefined>;
  /** Validates the effective settings, saves and records the change in the exam's history, in one transaction. */
  set(examId: string, userId: string, input: unknown, actor: { userId?: string }): Promise<SetResult>;
  remove(examId: string, userId: string, actor: { userId?: string }): Promise<boolean>;
  /**
   * Copies another exam's accommodations to this one (a course copy: the same students keep theirs, the
   * pseudonymous ids being per platform, not per course); an accommodation the exam already has is kept.
   * Returns the history changes it made.
   */
  copy(fromExamId: string, toExamId: string): Promise<SettingsChange[]>;
}

/** Every accommodation of an exam, by student (pseudonymous id). */
export async function overridesOf(db: Queryable, examId: string): Promise<Map<string, AccommodationOverride>> {
  const result = await db.query<Row>('SELECT user_id, override, updated_at FROM exam_accommodations WHERE exam_id = $1 ORDER BY user_id', [examId]);
  return new Map(result.rows.map((r) => [r.user_id, r.override]));
}

/**
 * Sets an exam's accommodations to exactly `next` (already checked) and returns the history changes; in the
 * caller's transaction (an import writes all or nothing).
 */
export async function replaceOverrides(db: Queryable, examId: string, next: ReadonlyMap<string, AccommodationOverride>): Promise<SettingsChange[]> {
  const before = await overridesOf(db, examId);
  const changes: SettingsChange[] = [];
  for (const userId of new Set([...before.keys(), ...next.keys()])) {
    const old = before.get(userId);
    const now = next.get(userId);
    changes.push(...overrideChanges(userId, old, now));
    if (now === undefined) await db.query('DELETE FROM exam_accommodations WHERE exam_id = $1 AND user_id = $2', [examId, userId]);
    else if (JSON.stringify(old) !== JSON.stringify(now)) {
      await db.query(
        `INSERT INTO exam_accommodations (exam_id, user_id, override) VALUES ($1, $2, $3::jsonb)
         ON CONFLICT (exam_id, user_id) DO UPDATE SET override = EXCLUDED.override, updated_at = now()`,
        [examId, userId, JSON.stringify(now)],
      );
    }
  }
  invalidateReadCaches();
  return changes;
}

interface Row {
  user_id: string;
  override: AccommodationOverride;
  updated_at: Date;
}

/** One student's accommodation in an exam, if they have one. */
export async function accommodationOf(db: Queryable, examId: string, userId: string): Promise<AccommodationOverride | undefined> {
  const result = await db.query<{ override: AccommodationOverride }>('SELECT override FROM exam_accommodations WHERE exam_id = $1 AND user_id = $2', [examId, userId]);
  return result.rows[0]?.override;
}

export function createAccommodationStore(db: Database): AccommodationStore {
  return {
    async list(examId) {
      const result = await db.query<Row>('SELECT user_id, override, updated_at FROM exam_accommodations WHERE exam_id = $1 ORDER BY user_id', [examId]);
      return result.rows.map((r) => ({ userId: r.user_id, override: r.override, updatedAt: new Date(r.updated_at) }));
    },
    get: (examId, userId) => accommodationOf(db, examId, userId),
    async set(examId, userId, input, actor) {
      const result = await db.transaction(async (tx) => {
        const exam = await tx.query<{ settings: unknown }>('SELECT settings FROM exams WHERE id = $1 FOR UPDATE', [examId]);
        const row = exam.rows[0];
        if (!row || row.settings === null) return { ok: false as const, violations: [{ path: '', rule: 'type' as const, message: 'The exam has no settings yet: save its settings first.' }] };
        const document = readSettingsDocument(row.settings);
        if (!document.ok) return { ok: false as const, violations: document.violations };
        const applied = applyOverride(document.value, input);
        if (!applied.ok) return applied;
        const before = await accommodationOf(tx, examId, userId);
        await tx.query(
          `INSERT INTO exam_accommodations (exam_id, user_id, override) VALUES ($1, $2, $3::jsonb)
           ON CONFLICT (exam_id, user_id) DO UPDATE SET override = EXCLUDED.override, updated_at = now()`,
          [examId, userId, JSON.stringify(applied.override)],
        );
        const changes = overrideChanges(userId, before, applied.override);
        await createSettingsChangeLog(tx).record(examId, { userId: actor.userId, source: 'settings', changes });
        return { ok: true as const, accommodation: applied.override };
      });
      invalidateReadCaches();
      return result;
    },
    async copy(fromExamId, toExamId) {
      const copied = await db.query<{ user_id: string; override: AccommodationOverride }>(
        `INSERT INTO exam_accommodations (exam_id, user_id, override)
           SELECT $2, user_id, override FROM exam_accommodations WHERE exam_id = $1
         ON CONFLICT (exam_id, user_id) DO NOTHING
         RETURNING user_id, override`,
        [fromExamId, toExamId],
      );
      invalidateReadCaches();
      return copied.rows.flatMap((row) => overrideChanges(row.user_id, undefined, row.override));
    },
    async remove(examId, userId, actor) {
      const removed = await db.transaction(async (tx) => {
        const before = await accommodationOf(tx, examId, userId);
        if (before === undefined) return false;
        await tx.query('DELETE FROM exam_accommodations WHERE exam_id = $1 AND user_id = $2', [examId, userId]);
        const changes = overrideChanges(userId, before, undefined);
        await createSettingsChangeLog(tx).record(examId, { userId: actor.userId, source: 'settings', changes });
        return true;
      });
      invalidateReadCaches();
      return removed;
    },
  };
}
