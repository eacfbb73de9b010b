import type { Database } from '../../db/types.js';
import { EXAM_SETTINGS_OFF, type Violation } from '../../proctoring/contract.js';
import { createExamStore, type Exam, type ExamStatus } from '../store.js';
import { createSettingsChangeLog, type ChangeSource, type RecordedChange } from './changes.js';
import { diffSettings, validateSettingsDocument, type ExamSettingsDocument } from './document.js';
import { presetForPlatform } from './presets/lms.js';
import { applySecurityPreset, securityPreset } from './presets/security.js';

export const EXAM_STATUSES: readonly ExamStatus[] = ['open', 'closed'];

/** The JSON the API reads and writes: the settings document and the exam's availability. */
export interface SettingsPayload {
  settings: ExamSettingsDocument;
  status: ExamStatus;
}

export type SaveResult = { ok: true; exam: Exam; settings: ExamSettingsDocument } | { ok: false; violations: Violation[] };

/** What the form starts from for an exam never configured: the LMS's preset and the Standard security preset. */
export function initialDocument(platformFamily: string | undefined, sandbox: boolean): Partial<ExamSettingsDocument> {
  const standard = securityPreset('standard');
  return {
    launch_url: '',
    exam_start: '',
    exam_take: '',
    exam_end: '',
    exam_settings: standard ? applySecurityPreset(standard).exam_settings : { ...EXAM_SETTINGS_OFF },
    tool: { lms_preset: presetForPlatform(platformFamily, sandbox).id, security_preset: standard?.id, redirect: 'lms' },
  };
}

function parsePayload(body: unknown): { settings: unknown; status: ExamStatus | undefined; violations: Violation[] } {
  const violations: Violation[] = [];
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { settings: undefined, status: undefined, violations: [{ path: '', rule: 'type', message: 'Send a JSON object with "settings" (and optionally "status").' }] };
  }
  const { settings, status, ...rest } = body as Record<string, unknown>;
  for (const key of Object.keys(rest)) violations.push({ path: key, rule: 'unknown_field', message: `'${key}' is not part of an exam's settings.` });
  if (status !== undefined && !(EXAM_STATUSES as readonly unknown[]).includes(status)) {
    violations.push({ path: 'status', rule: 'enum', message: "'Availability' must be 'open' or 'closed'." });
  }
  return { settings, status: status as ExamStatus | undefined, violations };
}

export interface ExamSettingsService {
  get(examId: string): Promise<Exam | undefined>;
  history(examId: string, limit?: number): Promise<RecordedChange[]>;
  /** Validates with the contract and saves settings and status together, recording what changed. */
  save(examId: string, body: unknown, actor: { userId?: string; source?: ChangeSource }): Promise<SaveResult>;
}

export function createExamSettingsService(deps: { db: Database }): ExamSettingsService {
  const exams = createExamStore(deps.db);
  const changes = createSettingsChangeLog(deps.db);
  return {
    get: (examId) => exams.get(examId),
    history: (examId, limit = 20) => changes.recent(examId, limit),
    async save(examId, body, actor) {
      const payload = parsePayload(body);
      const checked = validateSettingsDocument(payload.settings);
      const violations = [...payload.violations, ...(checked.ok ? [] : checked.violations)];
      if (!checked.ok || violations.length > 0) return { ok: false, violations };
      const settings = checked.value;
      return deps.db.transaction(async (tx) => {
        const store = createExamStore(tx);
        const before = await tx.query<{ settings: unknown; status: ExamStatus }>('SELECT settings, status FROM exams WHERE id = $1 FOR UPDATE', [examId]);
        const row = before.rows[0];
        if (!row) throw new Error(`exam ${examId} vanished while saving`);
        const status = payload.status ?? row.status;
        await store.saveSettings(examId, settings as unknown as Record<string, unknown>);
        if (status !== row.status) await store.setStatus(examId, status);
        const diff = diffSettings({ ...(row.settings as object | null), status: row.status }, { ...settings, status });
        await createSettingsChangeLog(tx).record(examId, { userId: actor.userId, source: actor.source ?? 'settings', changes: diff });
        const exam = await store.get(examId);
        if (!exam) throw new Error(`exam ${examId} vanished while saving`);
        return { ok: true as const, exam, settings };
      });
    },
  };
}
