import {
  validateBehaviorSettings,
  validateCandidateLaunch,
  validateProctorSettings,
  type BehaviorSettings,
  type BreakSettings,
  type ExamSettings,
  type ProctorSettings,
  type Violation,
} from '../../proctoring/contract.js';

/**
 * The settings document of one exam, as stored in exams.settings: the Launch API's own field names
 * (the Launch API specification, candidate launch request) plus the tool's own options under `tool`.
 * Launch code takes the API fields with candidateLaunchFields / reviewerLaunchFields, never the whole
 * document: `tool` is not an API field, and the candidate request accepts neither behavior_settings nor
 * proctor_settings.
 */
export interface ExamSettingsDocument {
  launch_url: string;
  exam_start: string;
  exam_take: string;
  exam_end: string;
  exam_settings: ExamSettings;
  behavior_settings?: BehaviorSettings;
  /** For live launches and the launchpad; each member absent: the institution's default. */
  proctor_settings?: ProctorSettings;
  break_settings?: BreakSettings;
  expire?: number;
  pre_auth?: string;
  post_auth?: string;
  pre_auth_bypass?: boolean;
  tool?: ToolOptions;
}

/** Where the candidate goes after the exam (the tool's return endpoint reads this). */
export const REDIRECT_MODES = ['lms', 'message', 'url'] as const;
export type RedirectMode = (typeof REDIRECT_MODES)[number];

/** The tool's own options: never sent to the proctoring service. */
export interface ToolOptions {
  /** Id of the LMS exam-page preset (presets/lms.ts) the pages were derived with. */
  lms_preset?: string;
  /** The quiz URL the instructor pasted. */
  quiz_url?: string;
  /** Id of the security preset (presets/security.ts) last applied. */
  security_preset?: string;
  /** lms: back to the course (launch_presentation.return_url); message: a "you may close this window" page; url: redirect_url. */
  redirect?: RedirectMode;
  redirect_url?: string;
}

/** The candidate-launch fields an exam's settings may carry (the rest are set per launch). */
export const CANDIDATE_SETTING_FIELDS = [
  'launch_url',
  'exam_start',
  'exam_take',
  'exam_end',
  'exam_settings',
  'break_settings',
  'expire',
  'pre_auth',
  'post_auth',
  'pre_auth_bypass',
] as const;

const DOCUMENT_FIELDS: readonly string[] = [...CANDIDATE_SETTING_FIELDS, 'behavior_settings', 'proctor_settings', 'tool'];
const TOOL_FIELDS: readonly string[] = ['lms_preset', 'quiz_url', 'security_preset', 'redirect', 'redirect_url'];

/** The fields a candidate launch takes from the exam's settings. */
export function candidateLaunchFields(document: ExamSettingsDocument): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of CANDIDATE_SETTING_FIELDS) if (document[field] !== undefined) out[field] = document[field];
  return out;
}

/** The fields a reviewer launch takes from the exam's settings. */
export function reviewerLaunchFields(document: ExamSettingsDocument): { exam_settings: ExamSettings; behavior_settings?: BehaviorSettings } {
  return { exam_settings: document.exam_settings, ...(document.behavior_settings ? { behavior_settings: document.behavior_settings } : {}) };
}

/** A placeholder user id so the candidate schema checks the exam's part of a request. */
const PLACEHOLDER_USER_ID = 'settings-check';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

function validateToolOptions(tool: unknown, violations: Violation[]): ToolOptions | undefined {
  if (tool === undefined) return undefined;
  if (!isRecord(tool)) {
    violations.push({ path: 'tool', rule: 'type', message: "'Tool options' must be a group of settings (an object)." });
    return undefined;
  }
  for (const key of Object.keys(tool)) {
    if (!TOOL_FIELDS.includes(key)) violations.push({ path: `tool.${key}`, rule: 'unknown_field', message: `'${key}' is not an option of this tool.` });
  }
  const shortText = (key: string, max: number) => {
    const value = tool[key];
    if (value === undefined) return;
    if (typeof value !== 'string' || value.length > max) violations.push({ path: `tool.${key}`, rule: 'type', message: `'${key}' must be text of at most ${max} characters.` });
  };
  shortText('lms_preset', 50);
  shortText('security_preset', 50);
  shortText('quiz_url', 2000);
  if (tool.redirect !== undefined && !(REDIRECT_MODES as readonly unknown[]).includes(tool.redirect)) {
    violations.push({ path: 'tool.redirect', rule: 'enum', message: "'After the exam' must be one of: back to the course, a closing message, a web address." });
  }
  if (tool.redirect === 'url' || tool.redirect_url !== undefined) {
    const url = tool.redirect_url;
    if (typeof url !== 'string' || url.length > 600 || !isHttpUrl(url)) {
      violations.push({ path: 'tool.redirect_url', rule: 'absolute_url', message: "'Address after the exam' must be a full web address starting with https:// (or http://)." });
    }
  }
  return tool as ToolOptions;
}

export type DocumentResult = { ok: true; value: ExamSettingsDocument } | { ok: false; violations: Violation[] };

/**
 * Validates a settings document with the Launch API contract's rules (every field rule and every
 * prerequisite, including "mobile needs pre_auth" and "exam_start must match launch_url"), plus the
 * tool's own options. Paths are the document's (= the request's) dotted paths.
 */
export function validateSettingsDocument(input: unknown): DocumentResult {
  if (!isRecord(input)) return { ok: false, violations: [{ path: '', rule: 'type', message: 'The settings must be a JSON object.' }] };
  const violations: Violation[] = [];
  for (const key of Object.keys(input)) {
    if (!DOCUMENT_FIELDS.includes(key)) {
      violations.push({ path: key, rule: 'unknown_field', message: `'${key}' is not a setting of an exam (the tool sets it for each launch, or it does not exist).` });
    }
  }
  const request: Record<string, unknown> = { user_id: PLACEHOLDER_USER_ID };
  for (const field of CANDIDATE_SETTING_FIELDS) if (input[field] !== undefined) request[field] = input[field];
  const candidate = validateCandidateLaunch(request);
  if (!candidate.ok) violations.push(...candidate.violations);
  if (input.behavior_settings !== undefined) {
    const behavior = validateBehaviorSettings(input.behavior_settings);
    if (!behavior.ok) violations.push(...behavior.violations);
  }
  if (input.proctor_settings !== undefined) {
    const proctor = validateProctorSettings(input.proctor_settings);
    if (!proctor.ok) violations.push(...proctor.violations);
  }
  validateToolOptions(input.tool, violations);
  if (violations.length > 0) return { ok: false, violations };
  return { ok: true, value: structuredClone(input) as unknown as ExamSettingsDocument };
}

export interface SettingsChange {
  path: string;
  before: unknown;
  after: unknown;
}

function flatten(value: unknown, prefix: string, out: Map<string, unknown>): void {
  if (isRecord(value)) {
    for (const [key, inner] of Object.entries(value)) flatten(inner, prefix ? `${prefix}.${key}` : key, out);
    return;
  }
  if (prefix) out.set(prefix, value);
}

/** What changed between two documents, leaf by leaf (lists compare as a whole), sorted by path. */
export function diffSettings(before: unknown, after: unknown): SettingsChange[] {
  const a = new Map<string, unknown>();
  const b = new Map<string, unknown>();
  flatten(before ?? {}, '', a);
  flatten(after ?? {}, '', b);
  const paths = [...new Set([...a.keys(), ...b.keys()])].sort();
  const changes: SettingsChange[] = [];
  for (const path of paths) {
    const x = a.get(path);
    const y = b.get(path);
    if (JSON.stringify(x) !== JSON.stringify(y)) changes.push({ path, before: x ?? null, after: y ?? null });
  }
  return changes;
}
