import type { Database } from '../../db/types.js';
import { EXAM_SETTINGS_OFF } from '../../proctoring/contract.js';
import { changed, createExamStore, type Exam, type ExamStatus, type ExamStore } from '../store.js';
import { createSettingsChangeLog, type ChangeSource, type RecordedChange, type SettingsChangeLog } from './changes.js';
import { diffSettings, readSettingsDocument, validateSettingsDocument, type ExamSettingsDocument } from './document.js';
import { isRecord } from '../../values.js';
import { INITIAL_TOOL_SETTINGS, parseToolSettings, toolSettingChanges, toolSettingsFromColumns, type ExamViolation, type ToolSettingValues } from '../tool-settings/registry.js';
import type { LmsPresetCatalog } from './presets/lms.js';
import { TOOL_SETTING_GROUPS } from '../tool-settings/row.js';
import { applySecurityPreset, securityPreset } from './presets/security.js';

export const EXAM_STATUSES: readonly ExamStatus[] = ['open', 'closed'];

/**
 * `attemptsToConfirm`: nothing saved, because the proctoring settings would change under attempts that ran
 * with the old ones and the caller did not confirm that number (`actor.confirmAttempts`).
 */
export type SaveResult = { ok: true; exam: Exam; settings: ExamSettingsDocument } | { ok: false; violations: ExamViolation[]; attemptsToConfirm?: number };

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

function parsePayload(body: unknown): { settings: unknown; status: ExamStatus | undefined; toolSettings: Partial<ToolSettingValues>; violations: ExamViolation[] } {
  const violations: ExamViolation[] = [];
  if (!isRecord(body)) {
    return { settings: undefined, status: undefined, toolSettings: {}, violations: [{ path: '', rule: 'type', message: 'Send a JSON object with "settings" (and optionally "status" and "availability").' }] };
  }
  const { settings, status, ...rest } = body;
  const toolSettings = parseToolSettings(rest);
  if (!toolSettings.ok) violations.push(...toolSettings.violations);
  const groups: readonly string[] = TOOL_SETTING_GROUPS;
  for (const key of Object.keys(rest)) if (!groups.includes(key)) violations.push({ path: key, rule: 'unknown_field', message: `'${key}' is not part of an exam's settings.` });
  const known = EXAM_STATUSES.find((candidate) => candidate === status);
  if (status !== undefined && known === undefined) {
    violations.push({ path: 'status', rule: 'enum', message: "'Availability' must be 'open' or 'closed'." });
  }
  return { settings, status: known, toolSettings: toolSettings.ok ? toolSettings.value : {}, violations };
}

export interface ExamSettingsService {
  get(examId: string): Promise<Exam | undefined>;
  history(examId: string, limit?: number): Promise<RecordedChange[]>;
  /** Validates with the contract and saves settings and status together, recording what changed. */
  /**
   * `confirmAttempts`: the settings page's save, which confirms how many attempts ran under the old settings; a
   * change of the proctoring settings without the current number is not saved (`attemptsToConfirm`). Absent (an
   * import, a course copy): saved without asking. The number is recorded with the change either way.
   */
  save(examId: string, body: unknown, actor: { userId?: string; source?: ChangeSource; confirmAttempts?: number | 'ask' }): Promise<SaveResult>;
  /** An instructor confirms a copied exam's quiz address as this course's: students may start it again. */
  confirmQuizAddress(examId: string, actor: { userId?: string }): Promise<void>;
}

const quizAddressCleared = toolSettingChanges({ ...INITIAL_TOOL_SETTINGS, quizAddressCheck: true }, INITIAL_TOOL_SETTINGS);

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
        const before = await tx.query<{ settings: unknown; status: ExamStatus }>('SELECT * FROM exams WHERE id = $1 FOR UPDATE', [examId]);
        const row = before.rows[0];
        if (!row) throw new Error(`exam ${examId} vanished while saving`);
        const previousTool = toolSettingsFromColumns(row);
        const status = payload.status ?? row.status;
        // The stored document as read (brought to the current version), so an upgrade is not reported as a change.
        const read = row.settings === null ? undefined : readSettingsDocument(row.settings);
        const previous = read === undefined ? {} : read.ok ? read.value : row.settings;
        const diff = diffSettings({ ...(isRecord(previous) ? previous : {}), status: row.status }, { ...settings, status });
        // What the proctoring service gets changes (not only whether students may start): attempts so far ran under the old settings.
        const proctoringChanged = row.settings !== null && diff.some((change) => change.path !== 'status');
        const attempts = proctoringChanged ? ((await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM attempts WHERE exam_id = $1', [examId])).rows[0]?.n ?? 0) : 0;
        if (attempts > 0 && actor.confirmAttempts !== undefined && actor.confirmAttempts !== attempts) return { ok: false as const, violations: [], attemptsToConfirm: attempts };
        await store.saveSettings(examId, settings);
        if (status !== row.status) await store.setStatus(examId, status);
        const tool = { ...previousTool, ...payload.toolSettings };
        // A copied exam's quiz address replaced by another: the copy now points at its own quiz.
        const previousUrl = isRecord(row.settings) ? row.settings.launch_url : undefined;
        if (previousTool.quizAddressCheck && settings.launch_url !== previousUrl) tool.quizAddressCheck = false;
        await store.setToolSettings(examId, tool);
        diff.push(...toolSettingChanges(previousTool, tool));
        await createSettingsChangeLog(tx).record(examId, { userId: actor.userId, source: actor.source ?? 'settings', changes: diff, ...(attempts > 0 ? { attemptsBefore: attempts } : {}) });
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
          const result = await tx.query('UPDATE exams SET quiz_address_check = false, quiz_address_course = NULL, updated_at = now() WHERE id = $1 AND quiz_address_check', [examId]);
          if (result.rowCount > 0) await createSettingsChangeLog(tx).record(examId, { userId: actor.userId, source: 'settings', changes: quizAddressCleared });
        }),
      );
    },
  };
}
