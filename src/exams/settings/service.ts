import type { Database } from '../../db/types.js';
import { EXAM_SETTINGS_OFF, type Violation } from '../../proctoring/contract.js';
import { changed, createExamStore, type Exam, type ExamStatus, type ExamStore } from '../store.js';
import { QUIZ_ADDRESS_CHECK } from '../course-copy.js';
import { createSettingsChangeLog, type ChangeSource, type RecordedChange, type SettingsChangeLog } from './changes.js';
import { diffSettings, readSettingsDocument, validateSettingsDocument, type ExamSettingsDocument } from './document.js';
import { isRecord } from '../../values.js';
import { english } from '../../proctoring/english.js';
import { availabilityChanges, parseAvailability, type AvailabilityViolation, type StoredAvailability } from '../availability.js';
import type { LmsPresetCatalog } from './presets/lms.js';
import { applySecurityPreset, securityPreset } from './presets/security.js';

export const EXAM_STATUSES: readonly ExamStatus[] = ['open', 'closed'];

/** The JSON the API reads and writes: the settings document, the exam's status and its availability window. */
export interface SettingsPayload {
  settings: ExamSettingsDocument;
  status: ExamStatus;
  availability?: StoredAvailability;
}

/** An availability violation with the contract's English sentence (the page shows it in the reader's language). */
export function availabilityViolation(v: AvailabilityViolation): Violation {
  const sentence = english.has(`settings:rules.${v.rule}`) ? english(`settings:rules.${v.rule}`, v.params) : `'${v.path}' is not valid.`;
  return { path: v.path, rule: v.rule, message: sentence, ...(v.params ? { params: v.params } : {}) };
}

export type SaveResult = { ok: true; exam: Exam; settings: ExamSettingsDocument } | { ok: false; violations: Violation[] };

/** What the form starts from for an exam never configured: the LMS's preset and the Standard security preset. */
export function initialDocument(platformFamily: string | undefined, lmsPresets: LmsPresetCatalog): Partial<ExamSettingsDocument> {
  const standard = securityPreset('standard');
  return {
    launch_url: '',
    exam_start: '',
    exam_take: '',
    exam_end: '',
    exam_settings: standard ? applySecurityPreset(standard).exam_settings : { ...EXAM_SETTINGS_OFF },
    tool: { lms_preset: lmsPresets.forPlatform(platformFamily).id, security_preset: standard?.id, redirect: 'lms' },
  };
}

function parsePayload(body: unknown): { settings: unknown; status: ExamStatus | undefined; availability?: StoredAvailability; violations: Violation[] } {
  const violations: Violation[] = [];
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { settings: undefined, status: undefined, violations: [{ path: '', rule: 'type', message: 'Send a JSON object with "settings" (and optionally "status" and "availability").' }] };
  }
  const { settings, status, availability: availabilityInput, ...rest } = body as Record<string, unknown>;
  let availability: StoredAvailability | undefined;
  if (availabilityInput !== undefined) {
    const parsed = parseAvailability(availabilityInput);
    if (parsed.ok) availability = parsed.value;
    else violations.push(...parsed.violations.map(availabilityViolation));
  }
  for (const key of Object.keys(rest)) violations.push({ path: key, rule: 'unknown_field', message: `'${key}' is not part of an exam's settings.` });
  if (status !== undefined && !(EXAM_STATUSES as readonly unknown[]).includes(status)) {
    violations.push({ path: 'status', rule: 'enum', message: "'Availability' must be 'open' or 'closed'." });
  }
  return { settings, status: status as ExamStatus | undefined, availability, violations };
}

interface StoredWindow {
  opens_at: Date | null;
  closes_at: Date | null;
  time_zone: string | null;
  practice: boolean;
}

const windowOf = (row: StoredWindow): StoredAvailability => ({
  opensAt: row.opens_at ? new Date(row.opens_at) : undefined,
  closesAt: row.closes_at ? new Date(row.closes_at) : undefined,
  timeZone: row.time_zone ?? undefined,
  practice: row.practice,
});

export interface ExamSettingsService {
  get(examId: string): Promise<Exam | undefined>;
  history(examId: string, limit?: number): Promise<RecordedChange[]>;
  /** Validates with the contract and saves settings and status together, recording what changed. */
  save(examId: string, body: unknown, actor: { userId?: string; source?: ChangeSource }): Promise<SaveResult>;
  /** An instructor confirms a copied exam's quiz address as this course's: students may start it again. */
  confirmQuizAddress(examId: string, actor: { userId?: string }): Promise<void>;
}

const quizAddressCleared = { path: QUIZ_ADDRESS_CHECK, before: true, after: false };

/** `exams` and `changes` read; a save writes both in one transaction of `db`. */
export function createExamSettingsService(deps: { db: Database; exams: ExamStore; changes: SettingsChangeLog }): ExamSettingsService {
  const { exams, changes } = deps;
  return {
    get: (examId) => exams.get(examId),
    history: (examId, limit = 20) => changes.recent(examId, limit),
    async save(examId, body, actor) {
      const payload = parsePayload(body);
      const checked = validateSettingsDocument(payload.settings);
      const violations = [...payload.violations, ...(checked.ok ? [] : checked.violations)];
      if (!checked.ok || violations.length > 0) return { ok: false, violations };
      const settings = checked.value;
      const saved = await deps.db.transaction(async (tx) => {
        const store = createExamStore(tx);
        const before = await tx.query<{ settings: unknown; status: ExamStatus; quiz_address_check: boolean } & StoredWindow>(
          'SELECT settings, status, quiz_address_check, opens_at, closes_at, time_zone, practice FROM exams WHERE id = $1 FOR UPDATE',
          [examId],
        );
        const row = before.rows[0];
        if (!row) throw new Error(`exam ${examId} vanished while saving`);
        const status = payload.status ?? row.status;
        await store.saveSettings(examId, settings);
        if (status !== row.status) await store.setStatus(examId, status);
        // The stored document as read (brought to the current version), so an upgrade is not reported as a change.
        const read = row.settings === null ? undefined : readSettingsDocument(row.settings);
        const previous = read === undefined ? {} : read.ok ? read.value : row.settings;
        const diff = diffSettings({ ...(isRecord(previous) ? previous : {}), status: row.status }, { ...settings, status });
        // A copied exam's quiz address replaced by another: the copy now points at its own quiz.
        const previousUrl = (row.settings as { launch_url?: unknown } | null)?.launch_url;
        if (row.quiz_address_check && settings.launch_url !== previousUrl) {
          await store.setQuizAddressCheck(examId, false);
          diff.push(quizAddressCleared);
        }
        if (payload.availability) {
          await store.setAvailability(examId, payload.availability);
          diff.push(...availabilityChanges(windowOf(row), payload.availability));
        }
        await createSettingsChangeLog(tx).record(examId, { userId: actor.userId, source: actor.source ?? 'settings', changes: diff });
        const exam = await store.get(examId);
        if (!exam) throw new Error(`exam ${examId} vanished while saving`);
        return { ok: true as const, exam, settings };
      });
      // Committed now: what a launch read meanwhile (before the commit) is read again.
      return changed(saved);
    },
    async confirmQuizAddress(examId, actor) {
      changed(
        await deps.db.transaction(async (tx) => {
          const result = await tx.query('UPDATE exams SET quiz_address_check = false, updated_at = now() WHERE id = $1 AND quiz_address_check', [examId]);
          if (result.rowCount > 0) await createSettingsChangeLog(tx).record(examId, { userId: actor.userId, source: 'settings', changes: [quizAddressCleared] });
        }),
      );
    },
  };
}
