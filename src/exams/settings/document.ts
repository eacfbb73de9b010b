import { z } from 'zod';
import {
  behaviorSettingsSchema,
  CANDIDATE_PREREQUISITES,
  candidateLaunchObject,
  isAbsoluteHttpUrl,
  proctorSettingsSchema,
  run,
  withPrerequisites,
  type Violation,
} from '../../proctoring/contract.js';
import { isRecord } from '../../values.js';
import { SETTINGS_DOCUMENT_VERSION, upgrade } from './versions.js';

/**
 * The settings document of one exam, as stored in exams.settings: a `version`, the Launch API's own field
 * names for what the exam sends (the candidate launch request's page fields, exam_settings, breaks, expire,
 * pre-authentication; behaviour settings and proctor permissions for staff launches) and the tool's own
 * options under `tool`. One zod schema, derived from the contract's: the store parses every document it
 * reads and writes only documents that pass. Launch requests are built from the parsed document by one
 * mapping function per endpoint (src/launches/requests.ts).
 */

/** Where the candidate goes after the exam (the tool's return endpoint reads this). */
export const REDIRECT_MODES = ['lms', 'message', 'url'] as const;
export type RedirectMode = (typeof REDIRECT_MODES)[number];

const MAX_PRESET_ID = 50;
const MAX_QUIZ_URL = 2000;
const MAX_REDIRECT_URL = 600;

const presetId = z.string().max(MAX_PRESET_ID);

/** The tool's own options: never sent to the proctoring service. */
export const toolOptionsSchema = z
  .strictObject({
    /** Id of the LMS exam-page preset (presets/lms.ts) the pages were derived with. */
    lms_preset: presetId.optional(),
    /** The quiz URL the instructor pasted. */
    quiz_url: z.string().max(MAX_QUIZ_URL).optional(),
    /** Id of the security preset (presets/security.ts) last applied. */
    security_preset: presetId.optional(),
    /** lms: back to the course (launch_presentation.return_url); message: a "you may close this window" page; url: redirect_url. */
    redirect: z.enum(REDIRECT_MODES).optional(),
    redirect_url: z.string().optional(),
  })
  .superRefine((tool, ctx) => {
    if (tool.redirect !== 'url' && tool.redirect_url === undefined) return;
    const url = tool.redirect_url;
    if (url === undefined || url.length > MAX_REDIRECT_URL || !isAbsoluteHttpUrl(url)) {
      const message = "'Address after the exam' must be a full web address starting with https:// (or http://).";
      ctx.addIssue({ code: 'custom', path: ['redirect_url'], message, params: { rule: 'absolute_url', message } });
    }
  });
export type ToolOptions = z.infer<typeof toolOptionsSchema>;

const page = candidateLaunchObject.shape;

export const examSettingsDocumentSchema = withPrerequisites(
  z.strictObject({
    version: z.literal(SETTINGS_DOCUMENT_VERSION),
    launch_url: page.launch_url,
    exam_start: page.exam_start,
    exam_take: page.exam_take,
    exam_end: page.exam_end,
    exam_settings: page.exam_settings,
    break_settings: page.break_settings,
    expire: page.expire,
    pre_auth: page.pre_auth,
    post_auth: page.post_auth,
    pre_auth_bypass: page.pre_auth_bypass,
    /** For reviewer and live launches (the candidate request does not take them). */
    behavior_settings: behaviorSettingsSchema.optional(),
    /** For live launches and the launchpad; each member absent: the institution's default. */
    proctor_settings: proctorSettingsSchema.optional(),
    tool: toolOptionsSchema.optional(),
  }),
  // The candidate request's prerequisites: mobile needs pre_auth, post_auth needs pre_auth, exam_start matches launch_url.
  CANDIDATE_PREREQUISITES,
  '',
);

export type ExamSettingsDocument = z.infer<typeof examSettingsDocumentSchema>;

export type DocumentResult = { ok: true; value: ExamSettingsDocument } | { ok: false; violations: Violation[] };

function parse(input: unknown): DocumentResult {
  const result = run(examSettingsDocumentSchema, input);
  if (result.ok) return result;
  // A top-level field the document does not have is one the tool sets per launch, or none at all.
  const violations = result.violations.map((v) =>
    v.rule === 'unknown_field' && !v.path.includes('.') ? { ...v, message: `'${v.path}' is not a setting of an exam (the tool sets it for each launch, or it does not exist).` } : v,
  );
  return { ok: false, violations };
}

/**
 * Validates a document sent to the tool (the settings form, the API) with every rule of the contract
 * (each field rule and each prerequisite) plus the tool's own options. A document of the current version,
 * or without `version`, must carry every setting; one of an older version is upgraded first. Paths are
 * the document's dotted paths.
 */
export function validateSettingsDocument(input: unknown): DocumentResult {
  if (!isRecord(input)) return { ok: false, violations: [{ path: '', rule: 'type', message: 'The settings must be a JSON object.' }] };
  if (input.version === undefined) return parse({ version: SETTINGS_DOCUMENT_VERSION, ...input });
  return parse(input.version === SETTINGS_DOCUMENT_VERSION ? input : upgrade(input));
}

/**
 * Reads a stored (or exported) document of any version: brought forward by the upgrade chain, then
 * validated like a new one. A document without `version` was written before versions existed (version 1).
 */
export function readSettingsDocument(stored: unknown): DocumentResult {
  if (!isRecord(stored)) return { ok: false, violations: [{ path: '', rule: 'type', message: 'The stored settings are not a JSON object.' }] };
  return parse(upgrade(stored));
}

/** A document that passes, or an Error naming what does not: for code that must only ever write valid documents. */
export function checkedDocument(document: ExamSettingsDocument): ExamSettingsDocument {
  const result = parse(document);
  if (!result.ok) throw new Error(`refusing to store exam settings that do not pass: ${result.violations.map((v) => `${v.path}: ${v.message}`).join('; ')}`);
  return result.value;
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
    if (path === 'version') continue; // the document's format, not a setting
    const x = a.get(path);
    const y = b.get(path);
    if (JSON.stringify(x) !== JSON.stringify(y)) changes.push({ path, before: x ?? null, after: y ?? null });
  }
  return changes;
}
