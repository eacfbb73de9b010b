import type { Database } from '../db/types.js';
import { createSettingsChangeLog } from './settings/changes.js';
import { diffSettings, readSettingsDocument, type ExamSettingsDocument } from './settings/document.js';
import { createExamStore, type ExamStatus } from './store.js';
import { registeredPlatforms } from '../lti/store/registered-platforms.js';
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
  /** The exam's title as the file gives it (when it gives one): how a person recognises the exam. */
  title?: string;
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

/** What checking an exams file has found so far. */
interface CheckState {
  refusals: ImportRefusal[];
  seen: Map<string, number>;
  documents: Map<number, ExamSettingsDocument>;
  toolSettings: Map<number, Partial<ToolSettingValues>>;
  overrides: Map<number, Map<string, AccommodationOverride>>;
}

type Refused = { ok: false; refusals: ImportRefusal[]; message?: string };
type CheckedFile = { ok: true; exams: CheckedExam[] } | Refused;

function notAnExamsFile(input: unknown): CheckedFile | undefined {
  if (!isRecord(input) || input.format !== EXPORT_FORMAT || input.version !== EXPORT_VERSION || !Array.isArray(input.exams)) {
    return { ok: false, refusals: [], message: `This is not an exams file of this tool (expected "format": "${EXPORT_FORMAT}", "version": ${EXPORT_VERSION} and an "exams" list).` };
  }
  return undefined;
}

const newCheckState = (): CheckState => ({ refusals: [], seen: new Map(), documents: new Map(), toolSettings: new Map(), overrides: new Map() });

function checkExam(raw: unknown, index: number, state: CheckState): void {
  const violations: ExamViolation[] = [];
  if (!isRecord(raw)) {
    state.refusals.push({ index, key: `exam #${index + 1}`, violations: [{ path: '', rule: 'type', message: 'Each exam must be a JSON object.' }] });
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
    if (checked.ok) state.documents.set(index, checked.value);
    else violations.push(...checked.violations.map((v) => ({ ...v, path: v.path ? `settings.${v.path}` : 'settings' })));
  }
  const tool = parseToolSettings(raw);
  if (tool.ok) state.toolSettings.set(index, tool.value);
  else violations.push(...tool.violations);
  if (raw.accommodations !== undefined) {
    const accommodations = checkAccommodations(raw.accommodations, state.documents.get(index));
    if (accommodations.ok) state.overrides.set(index, accommodations.value);
    else violations.push(...accommodations.violations);
  }
  const key = keyText(raw);
  const previous = state.seen.get(key);
  if (previous !== undefined) violations.push({ path: 'resource_link_id', rule: 'type', message: `The same exam appears twice in the file (also exam #${previous + 1}).` });
  state.seen.set(key, index);
  const title = typeof raw.title === 'string' && raw.title.trim() ? raw.title.trim().slice(0, 255) : undefined;
  if (violations.length > 0) state.refusals.push({ index, key, title, violations });
}

function checkedFile(exams: unknown[], state: CheckState): CheckedFile {
  if (state.refusals.length > 0) return { ok: false, refusals: state.refusals };
  // Every exam passed the checks: its fields have their exported types.
  return { ok: true, exams: (exams as ExportedExam[]).map((exam, index): CheckedExam => ({ ...exam, settings: state.documents.get(index) ?? null, toolSettings: state.toolSettings.get(index) ?? {}, accommodations: state.overrides.get(index) })) };
}

/** Checks a parsed exams file; every exam is checked, so the report lists all refusals at once (pure). */
export function checkExamsFile(input: unknown): CheckedFile {
  const refused = notAnExamsFile(input);
  if (refused || !isRecord(input) || !Array.isArray(input.exams)) return refused ?? { ok: false, refusals: [] };
  const state = newCheckState();
  input.exams.forEach((raw: unknown, index) => checkExam(raw, index, state));
  return checkedFile(input.exams, state);
}

/**
 * Exams checked between two turns of the event loop: a large file never holds the process for long. Writing
 * yields after every exam: the embedded database answers without giving other requests a turn.
 */
const EXAMS_PER_TURN = 100;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** `checkExamsFile`, letting other requests run between batches of exams. */
async function checkExamsFileInTurns(input: unknown): Promise<CheckedFile> {
  const refused = notAnExamsFile(input);
  if (refused || !isRecord(input) || !Array.isArray(input.exams)) return refused ?? { ok: false, refusals: [] };
  const exams: unknown[] = input.exams;
  const state = newCheckState();
  for (let index = 0; index < exams.length; index += 1) {
    if (index > 0 && index % EXAMS_PER_TURN === 0) await nextTurn();
    checkExam(exams[index], index, state);
  }
  return checkedFile(exams, state);
}

/** Exams of platforms this tool has no registration of would never be launched: refused, naming the platforms. */
async function unregisteredPlatforms(db: Database, exams: readonly CheckedExam[]): Promise<Refused | undefined> {
  const registered = new Set((await registeredPlatforms(db)).map((platform) => `${platform.issuer}\0${platform.clientId}`));
  const missing = new Map<string, number>();
  for (const exam of exams) {
    const key = `${exam.issuer}\0${exam.client_id}`;
    if (!registered.has(key)) missing.set(key, (missing.get(key) ?? 0) + 1);
  }
  if (missing.size === 0) return undefined;
  const names = [...missing].map(([key, count]) => {
    const [issuer, clientId] = key.split('\0');
    return `${issuer} (client id ${clientId}, ${count} exam${count === 1 ? '' : 's'})`;
  });
  return {
    ok: false,
    refusals: [],
    message: `Exams of platforms that are not registered in this tool: ${names.join('; ')}. Register each platform first (the console's Platforms page, or proctor-lti platform add), then import the file again.`,
  };
}

/** One exam of a file as an import would treat it: new, or replacing an exam that exists (named by its current title). */
export interface PreviewedExam {
  title: string;
  issuer: string;
  contextId: string;
  /** The title of the exam the import would overwrite. */
  replaces?: string;
}

export type ImportPreview = { ok: true; creates: PreviewedExam[]; overwrites: PreviewedExam[] } | Refused;

/** What `importExams` would do with a file, with every check, writing nothing (a dry run). */
export async function previewImport(db: Database, input: unknown): Promise<ImportPreview> {
  const checked = await checkExamsFileInTurns(input);
  if (!checked.ok) return checked;
  const unregistered = await unregisteredPlatforms(db, checked.exams);
  if (unregistered) return unregistered;
  const store = createExamStore(db);
  const creates: PreviewedExam[] = [];
  const overwrites: PreviewedExam[] = [];
  for (const [index, exam] of checked.exams.entries()) {
    // As in importExams: the embedded database answers without giving other requests a turn.
    if (index > 0) await nextTurn();
    const before = await store.find({ issuer: exam.issuer, clientId: exam.client_id, deploymentId: exam.deployment_id, contextId: exam.context_id, resourceLinkId: exam.resource_link_id });
    const previewed = { title: exam.title, issuer: exam.issuer, contextId: exam.context_id };
    if (before) overwrites.push({ ...previewed, replaces: before.title });
    else creates.push(previewed);
  }
  return { ok: true, creates, overwrites };
}

export async function importExams(db: Database, input: unknown): Promise<ImportResult> {
  const checked = await checkExamsFileInTurns(input);
  if (!checked.ok) return checked;
  const unregistered = await unregisteredPlatforms(db, checked.exams);
  if (unregistered) return unregistered;
  return db.transaction(async (tx) => {
    const store = createExamStore(tx);
    const changes = createSettingsChangeLog(tx);
    let created = 0;
    let updated = 0;
    for (const [index, exam] of checked.exams.entries()) {
      if (index > 0) await nextTurn();
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
