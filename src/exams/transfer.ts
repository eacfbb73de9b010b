import type { Database } from '../db/types.js';
import { createSettingsChangeLog } from './settings/changes.js';
import { diffSettings, readSettingsDocument, type ExamSettingsDocument } from './settings/document.js';
import { createExamStore, type ExamStatus } from './store.js';
import { isRecord, isUuid } from '../values.js';
import { INITIAL_TOOL_SETTINGS, parseToolSettings, toolSettingChanges, toolSettingsWire, type ExamViolation, type ToolSettingsWire, type ToolSettingValues } from './tool-settings/registry.js';
import { TOOL_SETTING_GROUPS } from './tool-settings/row.js';
import { applyOverride, type AccommodationOverride } from './accommodations/override.js';
import { overridesOf, replaceOverrides } from './accommodations/store.js';

/**
 * Exams as data (`npm run cli -- exam export|import`): keyed by platform issuer, client id, deployment
 * id, context id and resource link id, with title, availability and settings in the Launch API's own
 * field names. Import checks every exam with the settings rules first and writes all or nothing.
 */
export const EXPORT_FORMAT = 'proctor-lti/exams';
export const EXPORT_VERSION = 1;

/**
 * Its tool-side settings are in the objects of the settings API (`availability`: when students may start, in
 * wall-clock times in `time_zone`, and the practice flag); an object absent: its settings left as they are.
 */
export interface ExportedExam extends ToolSettingsWire {
  issuer: string;
  client_id: string;
  deployment_id: string;
  context_id: string;
  resource_link_id: string;
  /** The tool's exam id (resource links created by deep linking carry it); kept on import when free. */
  id?: string;
  title: string;
  status: ExamStatus;
  /** null: not configured yet. A document of any version (older ones are upgraded on import). */
  settings: Record<string, unknown> | null;
  /**
   * Per-student overrides, by pseudonymous user_id (valid on the same installation and platform: the ids
   * derive from its secret); absent: left as they are, present: the exam's accommodations become exactly these.
   */
  accommodations?: ExportedAccommodation[];
}

export interface ExportedAccommodation {
  user_id: string;
  override: AccommodationOverride;
}

/** An exam of a checked file: its settings parsed and brought to the current version. */
export type CheckedExam = Omit<ExportedExam, 'settings' | keyof ToolSettingsWire | 'accommodations'> & {
  settings: ExamSettingsDocument | null;
  toolSettings: Partial<ToolSettingValues>;
  accommodations?: Map<string, AccommodationOverride>;
};

export interface ExamsFile {
  format: typeof EXPORT_FORMAT;
  version: typeof EXPORT_VERSION;
  exported_at: string;
  exams: ExportedExam[];
}

export async function exportExams(db: Database, filter: { issuer?: string; contextId?: string } = {}, now = new Date()): Promise<ExamsFile> {
  const exams = await createExamStore(db).listAll(filter);
  const accommodations = new Map(await Promise.all(exams.map(async (exam) => [exam.id, await overridesOf(db, exam.id)] as const)));
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exported_at: now.toISOString(),
    exams: exams.map((exam) => ({
      issuer: exam.issuer,
      client_id: exam.clientId,
      deployment_id: exam.deploymentId,
      context_id: exam.contextId,
      resource_link_id: exam.resourceLinkId,
      id: exam.id,
      title: exam.title,
      status: exam.status,
      // A stored document that no longer passes is exported as stored, so nothing is lost (import names what is wrong).
      settings: exam.settings ?? exam.invalidSettings?.stored ?? null,
      ...toolSettingsWire(exam, 'UTC'),
      accommodations: [...(accommodations.get(exam.id) ?? new Map<string, AccommodationOverride>())].map(([userId, override]) => ({ user_id: userId, override })),
    })),
  };
}

/** One refused exam: its key (or its place in the file when the key itself is broken) and what is wrong. */
export interface ImportRefusal {
  index: number;
  key: string;
  violations: ExamViolation[];
}

export type ImportResult = { ok: true; created: number; updated: number } | { ok: false; refusals: ImportRefusal[]; message?: string };

const KEY_FIELDS = ['issuer', 'client_id', 'deployment_id', 'context_id', 'resource_link_id'] as const;
const EXAM_FIELDS: readonly string[] = [...KEY_FIELDS, 'id', 'title', 'status', 'settings', ...TOOL_SETTING_GROUPS, 'accommodations'];

/** A file's accommodations of one exam, each checked with every rule against the exam's settings in the same file. */
function checkAccommodations(raw: unknown, settings: ExamSettingsDocument | undefined): { ok: true; value: Map<string, AccommodationOverride> } | { ok: false; violations: ExamViolation[] } {
  if (!Array.isArray(raw)) return { ok: false, violations: [{ path: 'accommodations', rule: 'type', message: "'accommodations' must be a list." }] };
  const violations: ExamViolation[] = [];
  const value = new Map<string, AccommodationOverride>();
  raw.forEach((entry: unknown, index) => {
    const at = `accommodations[${index}]`;
    if (!isRecord(entry) || typeof entry.user_id !== 'string' || !isUuid(entry.user_id) || Object.keys(entry).some((key) => key !== 'user_id' && key !== 'override')) {
      violations.push({ path: at, rule: 'type', message: `${at} must be an object with 'user_id' (a pseudonymous id) and 'override'.` });
      return;
    }
    if (value.has(entry.user_id)) violations.push({ path: `${at}.user_id`, rule: 'type', message: `${at}: the same student appears twice.` });
    if (!settings) {
      violations.push({ path: at, rule: 'required', message: `${at}: an exam without settings cannot have accommodations.` });
      return;
    }
    const applied = applyOverride(settings, entry.override);
    if (applied.ok) value.set(entry.user_id, applied.override);
    else violations.push(...applied.violations.map((v) => ({ ...v, path: v.path ? `${at}.override.${v.path}` : `${at}.override` })));
  });
  return violations.length > 0 ? { ok: false, violations } : { ok: true, value };
}

function keyText(exam: Record<string, unknown>): string {
  return KEY_FIELDS.map((field) => `${field}=${typeof exam[field] === 'string' ? exam[field] : '?'}`).join(' ');
}

/** Checks a parsed exams file; every exam is checked, so the report lists all refusals at once (pure). */
export function checkExamsFile(input: unknown): { ok: true; exams: CheckedExam[] } | { ok: false; refusals: ImportRefusal[]; message?: string } {
  if (!isRecord(input) || input.format !== EXPORT_FORMAT || input.version !== EXPORT_VERSION || !Array.isArray(input.exams)) {
    return { ok: false, refusals: [], message: `This is not an exams file of this tool (expected "format": "${EXPORT_FORMAT}", "version": ${EXPORT_VERSION} and an "exams" list).` };
  }
  const refusals: ImportRefusal[] = [];
  const seen = new Map<string, number>();
  const documents = new Map<number, ExamSettingsDocument>();
  const toolSettings = new Map<number, Partial<ToolSettingValues>>();
  const overrides = new Map<number, Map<string, AccommodationOverride>>();
  input.exams.forEach((raw: unknown, index) => {
    const violations: ExamViolation[] = [];
    if (!isRecord(raw)) {
      refusals.push({ index, key: `exam #${index + 1}`, violations: [{ path: '', rule: 'type', message: 'Each exam must be a JSON object.' }] });
      return;
    }
    for (const key of Object.keys(raw)) if (!EXAM_FIELDS.includes(key)) violations.push({ path: key, rule: 'unknown_field', message: `'${key}' is not a field of an exported exam.` });
    for (const field of KEY_FIELDS) {
      const value = raw[field];
      if (typeof value !== 'string' || value.length === 0 || value.length > 255) violations.push({ path: field, rule: 'required', message: `'${field}' must be a non-empty text of at most 255 characters.` });
    }
    if (typeof raw.title !== 'string' || raw.title.trim().length === 0 || raw.title.length > 255) violations.push({ path: 'title', rule: 'required', message: "'title' must be a non-empty text of at most 255 characters." });
    if (raw.status !== 'open' && raw.status !== 'closed') violations.push({ path: 'status', rule: 'enum', message: "'status' must be 'open' or 'closed'." });
    if (raw.id !== undefined && (typeof raw.id !== 'string' || !isUuid(raw.id))) violations.push({ path: 'id', rule: 'pattern', message: "'id' must be a UUID." });
    if (raw.settings !== null) {
      const checked = readSettingsDocument(raw.settings);
      if (checked.ok) documents.set(index, checked.value);
      else violations.push(...checked.violations.map((v) => ({ ...v, path: v.path ? `settings.${v.path}` : 'settings' })));
    }
    const tool = parseToolSettings(raw);
    if (tool.ok) toolSettings.set(index, tool.value);
    else violations.push(...tool.violations);
    if (raw.accommodations !== undefined) {
      const accommodations = checkAccommodations(raw.accommodations, documents.get(index));
      if (accommodations.ok) overrides.set(index, accommodations.value);
      else violations.push(...accommodations.violations);
    }
    const key = keyText(raw);
    const previous = seen.get(key);
    if (previous !== undefined) violations.push({ path: 'resource_link_id', rule: 'type', message: `The same exam appears twice in the file (also exam #${previous + 1}).` });
    seen.set(key, index);
    if (violations.length > 0) refusals.push({ index, key, violations });
  });
  if (refusals.length > 0) return { ok: false, refusals };
  // Every exam passed the checks above: its fields have their exported types.
  const exams = (input.exams as ExportedExam[]).map((exam, index): CheckedExam => ({ ...exam, settings: documents.get(index) ?? null, toolSettings: toolSettings.get(index) ?? {}, accommodations: overrides.get(index) }));
  return { ok: true, exams };
}

export async function importExams(db: Database, input: unknown): Promise<ImportResult> {
  const checked = checkExamsFile(input);
  if (!checked.ok) return checked;
  return db.transaction(async (tx) => {
    const store = createExamStore(tx);
    const changes = createSettingsChangeLog(tx);
    let created = 0;
    let updated = 0;
    for (const exam of checked.exams) {
      const key = { issuer: exam.issuer, clientId: exam.client_id, deploymentId: exam.deployment_id, contextId: exam.context_id, resourceLinkId: exam.resource_link_id };
      const before = await store.find(key);
      const saved = await store.upsert({ ...key, id: exam.id, title: exam.title, settings: exam.settings, status: exam.status });
      if (before) updated += 1;
      else created += 1;
      const previousTool = before ?? INITIAL_TOOL_SETTINGS;
      const toolChanges = toolSettingChanges(previousTool, { ...previousTool, ...exam.toolSettings });
      await store.setToolSettings(saved.id, exam.toolSettings);
      const accommodationChanges = exam.accommodations ? await replaceOverrides(tx, saved.id, exam.accommodations) : [];
      await changes.record(saved.id, {
        source: 'import',
        changes: [...diffSettings({ ...(before?.settings ?? {}), status: before?.status ?? null }, { ...(exam.settings ?? {}), status: exam.status }), ...toolChanges, ...accommodationChanges],
      });
    }
    return { ok: true as const, created, updated };
  });
}
