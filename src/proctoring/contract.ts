import { z } from 'zod';
import { ASSUMED_LIMITS, WEBHOOK_TYPES, WEBHOOK_VERSIONS } from './assumptions.js';
import { CHOICE_LABELS, fieldLabel, labelKey } from './labels.js';
import { english } from './english.js';
import { isOneOf, isRecord } from '../values.js';
import { pagePatternProblem, patternMatches } from './patterns.js';
import {
  breaksPrerequisite,
  EXAM_SETTING_PREREQUISITES,
  EXAM_SETTING_ROWS,
  EXAM_SETTING_RULES,
  MAX_ALLOWED_APPS,
  memberNames,
  memberRows,
  type ExamSettingName,
  type ExamSettingRow,
  type MemberRowOf,
  type MemberSection,
  type MemberSettingRow,
} from './exam-settings.js';

/**
 * The Launch API contract (the Launch API specification): one zod schema per request, used by the client before
 * sending, by the settings view and by the emulator. Validation returns every violation, each with the
 * field path, a stable rule code and a sentence an instructor understands.
 * Gaps in the spec are filled in assumptions.ts.
 */

/** Stable rule codes of violations. */
export const RULES = [
  'required',
  'type',
  'integer',
  'min_length',
  'max_length',
  'length',
  'pattern',
  'range',
  'enum',
  'max_items',
  'unknown_field',
  'absolute_url',
  'regex',
  'reserved_word',
  'ascii_no_spaces',
  'hostname',
  'type_mismatch',
  'invalid_json',
  // Prerequisites between fields (spec: exam_settings table, candidate launch request).
  ...EXAM_SETTING_RULES,
  'mobile_requires_pre_auth',
  'post_auth_requires_pre_auth',
  'section_id_requires_roster_url',
  'exam_start_must_match_launch_url',
] as const;
export type Rule = (typeof RULES)[number];

/** `R`: the contract's rules, or (for the tool's own settings, exams/tool-settings) those and the tool's. */
export interface Violation<R extends string = Rule> {
  /** Dotted path in the request, e.g. `exam_settings.full_screen`, `exam_settings.allowed_windows_apps.0.binary_name`. */
  path: string;
  rule: R;
  message: string;
  /** The rule's bounds or allowed values, when it has any: for sentences in other languages. */
  params?: Readonly<Record<string, string | number>>;
}

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; violations: Violation[] };

/** The limits the spec states (Limits table and field tables). */
export const LIMITS = {
  userId: { min: 1, max: 36 },
  attemptId: { min: 1, max: 36 },
  launchUrl: { min: 1, max: 600 },
  examStart: { min: 1, max: 600 },
  examTake: { min: 1, max: 1000 },
  preAuth: { min: 1, max: 600 },
  rosterUrl: { max: 600 },
  logoUrl: { max: 600 },
  domain: { min: 1, max: 100 },
  displayName: { min: 1, max: 100 },
  examTag: { min: 1, max: 100 },
  color: { min: 6, max: 6 },
  appField: { min: 1, max: 50 },
  allowedApps: MAX_ALLOWED_APPS,
  redirectUrl: { min: 1 },
  candidateExpire: { min: 1, max: 18000, default: 18000 },
  staffExpire: { min: 1, max: 3600, default: 3600 },
  weight: { min: 0, max: 5 },
  breakNumber: { min: 1, max: 10 },
  breakDuration: { min: 1, max: 30 },
} as const;

/** The value exam_take / exam_end carry when a single-page exam posts its state (the API's spelling). */
export const POST_MESSAGE_NOTIFICATION = 'post_message_nofication';

export const RESERVED_EXAM_TAGS = ['goodbye', 'support', 'update', 'setup', 'invalid'] as const;

const ID_PATTERN = /^[a-zA-Z0-9-]*$/;
const HEX_COLOUR = /^[0-9a-fA-F]*$/;
const ASCII_NO_SPACES = /^[\x21-\x7e]*$/;
export const HOSTNAME = /^[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*$/;

// ---------------------------------------------------------------------------------------------------
// Field builders. Custom checks carry their rule in `params`; toViolations turns them into sentences.

interface RuleParams {
  rule: Rule;
  /** Whole sentence, used as is. */
  message?: string;
  /** Sentence ending, after the field's label. */
  text?: string;
  min?: number;
  max?: number;
}

/** The params a rule of this module puts on its issue. */
const ruleParamsSchema: z.ZodType<RuleParams> = z.object({
  rule: z.enum(RULES),
  message: z.string().optional(),
  text: z.string().optional(),
  min: z.number().optional(),
  max: z.number().optional(),
});

function check(rule: Rule, extra: Omit<RuleParams, 'rule'> = {}): { params: RuleParams } {
  return { params: { rule, ...extra } };
}

function text(limits: { min?: number; max?: number }) {
  const { min, max } = limits;
  let schema = z.string();
  if (min !== undefined && min === max) {
    return schema.refine((v) => v.length === min, check('length', { min, max }));
  }
  if (min !== undefined) schema = schema.refine((v) => v.length >= min, check('min_length', { min }));
  if (max !== undefined) schema = schema.refine((v) => v.length <= max, check('max_length', { max }));
  return schema;
}

export function isAbsoluteHttpUrl(value: string): boolean {
  if (!/^https?:\/\//i.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

function url(limits: { min?: number; max?: number }) {
  return text(limits).refine(isAbsoluteHttpUrl, check('absolute_url', { text: 'must be a full web address starting with https:// (or http://).' }));
}

function identifier(limits: { min: number; max: number }) {
  return text(limits).refine((v) => ID_PATTERN.test(v), check('pattern', { text: 'may contain only letters, digits and hyphens.' }));
}

/** A page pattern: a regular expression the tool can evaluate safely (patterns.ts). */
function pagePattern(limits: { min: number; max: number }, allowPostMessage: boolean) {
  return text(limits).superRefine((v, ctx) => {
    if ((allowPostMessage && v === POST_MESSAGE_NOTIFICATION) || v.length > limits.max) return;
    const problem = pagePatternProblem(v);
    if (!problem) return;
    const ending = allowPostMessage && problem.reason.startsWith('must be a valid') ? problem.reason.replace(/\.$/, ' (or a post-message notification, for single-page exams).') : problem.reason;
    ctx.addIssue({ code: 'custom', message: ending, params: { rule: 'regex', text: ending } satisfies RuleParams });
  });
}

// Not z.int(): its failure aborts the parent's refinements, and the prerequisites must still run.
function integer() {
  return z.number().refine(Number.isInteger, check('integer', { text: 'must be a whole number.' }));
}

function intRange(min: number, max: number) {
  return integer().refine((v) => v >= min && v <= max, check('range', { min, max }));
}

const bool = z.boolean();
const userId = identifier(LIMITS.userId);
const candidateExpire = intRange(LIMITS.candidateExpire.min, LIMITS.candidateExpire.max);
const staffExpire = intRange(LIMITS.staffExpire.min, LIMITS.staffExpire.max);
const examTag = text(LIMITS.examTag)
  .refine((v) => ASCII_NO_SPACES.test(v), check('ascii_no_spaces', { text: 'may contain only ASCII letters, digits and symbols, without spaces.' }))
  .refine((v) => !isOneOf(RESERVED_EXAM_TAGS, v), check('reserved_word', { text: `must not be one of the reserved words ${RESERVED_EXAM_TAGS.join(', ')}.` }));
const sectionId = text(ASSUMED_LIMITS.sectionIdLength);
const rosterUrl = url({ min: 1, max: LIMITS.rosterUrl.max });
const domain = text(LIMITS.domain).refine((v) => HOSTNAME.test(v), check('hostname', { text: 'must be a host name such as exams.example.edu, without https:// or a path.' }));
const colour = text(LIMITS.color).refine((v) => HEX_COLOUR.test(v), check('pattern', { text: "must be a hexadecimal colour without '#', such as 1a73e8." }));

// ---------------------------------------------------------------------------------------------------
// Nested objects.

export const brandingSchema = z.strictObject({
  primary_color: colour.optional(),
  secondary_color: colour.optional(),
  logo_url: url({ min: 1, max: LIMITS.logoUrl.max }).optional(),
});

const weight = intRange(LIMITS.weight.min, LIMITS.weight.max);

/** The zod schema of one member row's value. */
function memberSchema(row: MemberSettingRow): z.ZodType {
  switch (row.kind) {
    case 'weight':
      return weight;
    case 'boolean':
    case 'tristate':
      return bool;
    case 'integer':
      return intRange(row.min, row.max);
    case 'choice':
      return z.literal([...row.choices]);
  }
}

/** The value type of one member row. */
type MemberValue<R> = R extends { kind: 'boolean' | 'tristate' } ? boolean : R extends { kind: 'choice'; choices: infer C extends readonly number[] } ? C[number] : number;
type SectionShape<S extends MemberSection> = {
  [R in MemberRowOf<S> as R['name']]: R extends { required: true } ? z.ZodType<MemberValue<R>, MemberValue<R>> : z.ZodOptional<z.ZodType<MemberValue<R>, MemberValue<R>>>;
};

/** One object of the member rows: every member optional but those the row marks required. */
function sectionSchema<S extends MemberSection>(section: S) {
  // Object.fromEntries cannot see that every row's schema checks that row's value type; memberSchema does.
  const shape = Object.fromEntries(
    memberRows(section).map((row: MemberSettingRow) => [row.name, row.kind === 'integer' && row.required ? memberSchema(row) : memberSchema(row).optional()]),
  ) as SectionShape<S>;
  return z.strictObject(shape);
}

export const FRAME_METRICS = memberNames('frame_metrics');
export const frameMetricsSchema = sectionSchema('frame_metrics');
export const EXAM_METRICS = memberNames('exam_metrics');
export const examMetricsSchema = sectionSchema('exam_metrics');

export const behaviorSettingsSchema = z.strictObject({
  frame_metrics: frameMetricsSchema.optional(),
  exam_metrics: examMetricsSchema.optional(),
});

export const PROCTOR_SETTINGS = memberNames('proctor_settings');
export const proctorSettingsSchema = sectionSchema('proctor_settings');
export const breakSettingsSchema = sectionSchema('break_settings');

export const redirectSettingsSchema = z.strictObject({
  graceful_submission_url: url(ASSUMED_LIMITS.redirectUrlLength).optional(),
  ungraceful_submission_url: url(ASSUMED_LIMITS.redirectUrlLength).optional(),
});

export const windowsAppSchema = z.strictObject({
  binary_name: text(LIMITS.appField),
  product_name: text(LIMITS.appField),
  company_name: text(LIMITS.appField),
});

type Loose = Record<string, unknown>;

/**
 * The prerequisites between fields (spec: exam_settings table; candidate launch request). `path` is
 * where the violation is reported: the setting that needs the others.
 */
export interface Prerequisite {
  rule: Rule;
  path: string;
  message: string;
  /** True when the (possibly malformed) object breaks the rule. */
  violated(value: Loose): boolean;
}

/** The sentence of a prerequisite rule, in English (`settings:rules.<rule>`; the settings page shows it in the reader's language). */
export const ruleSentence = (rule: Rule): string => english(`settings:rules.${rule}`);

/** The prerequisites between exam settings, from the table in exam-settings.ts. */
export const EXAM_SETTINGS_PREREQUISITES: readonly Prerequisite[] = EXAM_SETTING_PREREQUISITES.map((p) => ({
  rule: p.rule,
  path: `exam_settings.${p.field}`,
  message: ruleSentence(p.rule),
  violated: (s: Loose) => breaksPrerequisite(p, s),
}));

const hasText = (value: unknown) => typeof value === 'string' && value.length > 0;

const SECTION_NEEDS_ROSTER: Prerequisite = {
  rule: 'section_id_requires_roster_url',
  path: 'section_id',
  message: "'Section id' can only be sent together with a roster URL.",
  violated: (r) => r.section_id !== undefined && !hasText(r.roster_url),
};

export const CANDIDATE_PREREQUISITES: readonly Prerequisite[] = [
  {
    rule: 'mobile_requires_pre_auth',
    path: 'exam_settings.mobile',
    message: ruleSentence('mobile_requires_pre_auth'),
    violated: (r) => isRecord(r.exam_settings) && r.exam_settings.mobile === true && !hasText(r.pre_auth),
  },
  {
    rule: 'post_auth_requires_pre_auth',
    path: 'post_auth',
    message: ruleSentence('post_auth_requires_pre_auth'),
    violated: (r) => r.post_auth !== undefined && !hasText(r.pre_auth),
  },
  SECTION_NEEDS_ROSTER,
  {
    rule: 'exam_start_must_match_launch_url',
    path: 'exam_start',
    message: ruleSentence('exam_start_must_match_launch_url'),
    violated: (r) => {
      if (typeof r.launch_url !== 'string' || typeof r.exam_start !== 'string' || !isAbsoluteHttpUrl(r.launch_url)) return false;
      // Never run with a backtracking engine: an instructor's pattern could stall the process.
      return patternMatches(r.exam_start, r.launch_url) === false;
    },
  },
];

/** Adds the prerequisites as one refinement that runs even when other fields are malformed. */
export function withPrerequisites<T extends z.ZodType>(schema: T, prerequisites: readonly Prerequisite[], prefix: string) {
  return schema.superRefine(
    (value, ctx) => {
      if (!isRecord(value)) return;
      for (const p of prerequisites) {
        if (!p.violated(value)) continue;
        const relative = prefix && p.path.startsWith(`${prefix}.`) ? p.path.slice(prefix.length + 1) : p.path;
        ctx.addIssue({ code: 'custom', path: relative.split('.'), message: p.message, params: { rule: p.rule, message: p.message } satisfies RuleParams });
      }
    },
    { when: () => true },
  );
}

export const EXAM_SETTINGS_MEMBERS: readonly ExamSettingName[] = EXAM_SETTING_ROWS.map((row) => row.name);

const allowedMacosApps = z.array(text(ASSUMED_LIMITS.macosBundleIdLength)).max(LIMITS.allowedApps);
const allowedWindowsApps = z.array(windowsAppSchema).max(LIMITS.allowedApps);

/** The zod schema of one row's value. */
function rowSchema(row: ExamSettingRow): z.ZodType {
  switch (row.type) {
    case 'boolean':
      return bool;
    case 'choice':
      return z.literal([...row.choices]);
    case 'bundle-ids':
      return allowedMacosApps;
    case 'windows-apps':
      return allowedWindowsApps;
  }
}

/** The value type of one row. */
type RowValue<R> = R extends { type: 'boolean' }
  ? boolean
  : R extends { type: 'choice'; choices: infer C extends readonly number[] }
    ? C[number]
    : R extends { type: 'bundle-ids' }
      ? string[]
      : WindowsApp[];
type ExamSettingsShape = { [R in (typeof EXAM_SETTING_ROWS)[number] as R['name']]: z.ZodType<RowValue<R>> };
// Object.fromEntries cannot see that every row's schema checks that row's value type; rowSchema does.
const examSettingsShape = Object.fromEntries(EXAM_SETTING_ROWS.map((row) => [row.name, rowSchema(row)])) as ExamSettingsShape;

/** All 30 members, each required (assumptions.ts), with the prerequisites between them. */
export const examSettingsSchema = withPrerequisites(
  z.strictObject(examSettingsShape),
  EXAM_SETTINGS_PREREQUISITES,
  'exam_settings',
);

// ---------------------------------------------------------------------------------------------------
// Requests.

/** The candidate request's fields, before the prerequisites between them (an exam's settings document reuses them). */
export const candidateLaunchObject = z.strictObject({
  launch_url: url(LIMITS.launchUrl),
  exam_start: pagePattern(LIMITS.examStart, false),
  exam_take: pagePattern(LIMITS.examTake, true),
  exam_end: pagePattern(ASSUMED_LIMITS.examEndLength, true),
  exam_settings: examSettingsSchema,
  user_id: userId,
  expire: candidateExpire.optional(),
  pre_auth: url(LIMITS.preAuth).optional(),
  post_auth: url(ASSUMED_LIMITS.postAuthLength).optional(),
  pre_auth_bypass: bool.optional(),
  redirect_url: url(ASSUMED_LIMITS.redirectUrlLength).optional(),
  redirect_settings: redirectSettingsSchema.optional(),
  attempt_id: identifier(LIMITS.attemptId).optional(),
  display_name: text(LIMITS.displayName).optional(),
  extension_allowlist_url: url(ASSUMED_LIMITS.extensionAllowlistUrlLength).optional(),
  break_settings: breakSettingsSchema.optional(),
  branding: brandingSchema.optional(),
  domain: domain.optional(),
  exam_tag: examTag.optional(),
  section_id: sectionId.optional(),
  roster_url: rosterUrl.optional(),
});

export const candidateLaunchSchema = withPrerequisites(candidateLaunchObject, CANDIDATE_PREREQUISITES, '');

export const reviewerLaunchSchema = withPrerequisites(
  z.strictObject({
    user_id: userId,
    exam_settings: examSettingsSchema,
    expire: staffExpire.optional(),
    behavior_settings: behaviorSettingsSchema.optional(),
    domain: domain.optional(),
    branding: brandingSchema.optional(),
    exam_tag: examTag.optional(),
    section_id: sectionId.optional(),
    roster_url: rosterUrl.optional(),
  }),
  [SECTION_NEEDS_ROSTER],
  '',
);

export const liveLaunchSchema = withPrerequisites(
  z.strictObject({
    user_id: userId,
    expire: staffExpire.optional(),
    exam_name: text(ASSUMED_LIMITS.examNameLength).optional(),
    behavior_settings: behaviorSettingsSchema.optional(),
    proctor_settings: proctorSettingsSchema.optional(),
    exam_tag: examTag.optional(),
    section_id: sectionId.optional(),
    roster_url: rosterUrl.optional(),
  }),
  [SECTION_NEEDS_ROSTER],
  '',
);

export const launchpadSchema = z.strictObject({
  user_id: userId,
  exam_roster: url(ASSUMED_LIMITS.examRosterLength),
  roster_url: rosterUrl.optional(),
  expire: staffExpire.optional(),
  behavior_settings: behaviorSettingsSchema.optional(),
  proctor_settings: proctorSettingsSchema.optional(),
});

export const webhookClientSchema = z.strictObject({
  url: url(ASSUMED_LIMITS.webhookClientUrlLength),
  key: text(ASSUMED_LIMITS.webhookClientKeyLength).optional(),
});

export const subscribeSchema = z.strictObject({
  type: z.literal(WEBHOOK_TYPES),
  version: z.literal(WEBHOOK_VERSIONS).optional(),
  behavior_settings: behaviorSettingsSchema.optional(),
  client: webhookClientSchema,
});

export const unsubscribeSchema = z.strictObject({
  id: z.union([text(ASSUMED_LIMITS.webhookIdLength), integer().refine((v) => v >= 0, check('range', { min: 0 }))]),
});

export type Branding = z.infer<typeof brandingSchema>;
export type FrameMetrics = z.infer<typeof frameMetricsSchema>;
export type ExamMetrics = z.infer<typeof examMetricsSchema>;
export type BehaviorSettings = z.infer<typeof behaviorSettingsSchema>;
export type ProctorSettings = z.infer<typeof proctorSettingsSchema>;
export type BreakSettings = z.infer<typeof breakSettingsSchema>;
export type RedirectSettings = z.infer<typeof redirectSettingsSchema>;
export type WindowsApp = z.infer<typeof windowsAppSchema>;
export type ExamSettings = z.infer<typeof examSettingsSchema>;
export type CandidateLaunchRequest = z.infer<typeof candidateLaunchSchema>;
export type ReviewerLaunchRequest = z.infer<typeof reviewerLaunchSchema>;
export type LiveLaunchRequest = z.infer<typeof liveLaunchSchema>;
export type LaunchpadRequest = z.infer<typeof launchpadSchema>;
export type WebhookClient = z.infer<typeof webhookClientSchema>;
export type SubscribeRequest = z.infer<typeof subscribeSchema>;
export type WebhookType = SubscribeRequest['type'];
export type WebhookVersion = NonNullable<SubscribeRequest['version']>;
export type UnsubscribeRequest = z.infer<typeof unsubscribeSchema>;

/** Every exam setting off: a starting point that passes validation. */
export const EXAM_SETTINGS_OFF: ExamSettings = Object.freeze(examSettingsSchema.parse(Object.fromEntries(EXAM_SETTING_ROWS.map((row) => [row.name, Array.isArray(row.off) ? [] : row.off]))));

// ---------------------------------------------------------------------------------------------------
// Validators.

export const validateCandidateLaunch = (body: unknown): ValidationResult<CandidateLaunchRequest> => run(candidateLaunchSchema, body);
export const validateReviewerLaunch = (body: unknown): ValidationResult<ReviewerLaunchRequest> => run(reviewerLaunchSchema, body);
export const validateLiveLaunch = (body: unknown): ValidationResult<LiveLaunchRequest> => run(liveLaunchSchema, body);
export const validateLaunchpad = (body: unknown): ValidationResult<LaunchpadRequest> => run(launchpadSchema, body);
export const validateSubscribe = (body: unknown): ValidationResult<SubscribeRequest> => run(subscribeSchema, body);
export const validateUnsubscribe = (body: unknown): ValidationResult<UnsubscribeRequest> => run(unsubscribeSchema, body);

/**
 * The nested settings on their own, e.g. for a saved exam. Paths keep their place in a request
 * (`exam_settings.full_screen`) so labels and form fields line up with request validation.
 * The candidate-level rule "mobile needs pre_auth" is not checked here (it needs the request).
 */
export const validateExamSettings = (value: unknown): ValidationResult<ExamSettings> => run(examSettingsSchema, value, 'exam_settings');
export const validateBehaviorSettings = (value: unknown): ValidationResult<BehaviorSettings> => run(behaviorSettingsSchema, value, 'behavior_settings');
export const validateBreakSettings = (value: unknown): ValidationResult<BreakSettings> => run(breakSettingsSchema, value, 'break_settings');
export const validateProctorSettings = (value: unknown): ValidationResult<ProctorSettings> => run(proctorSettingsSchema, value, 'proctor_settings');

/** Validates with any schema of the contract's kind: every violation with its path, rule and sentence. */
export function run<T>(schema: z.ZodType<T>, input: unknown, prefix = ''): ValidationResult<T> {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, violations: toViolations(result.error.issues, input, prefix) };
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current = input;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = Reflect.get(current, key);
  }
  return current;
}

function joinPath(prefix: string, path: readonly PropertyKey[]): string {
  return [...(prefix ? [prefix] : []), ...path.map(String)].join('.');
}

const TYPE_WORDS: Record<string, string> = {
  string: 'text',
  number: 'a whole number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'a group of settings (an object)',
};

function describeValue(value: unknown): string {
  return typeof value === 'string' ? `'${value}'` : String(value);
}

/** Turns zod issues into violations: one per field and rule, in a sentence. */
export function toViolations(issues: readonly z.core.$ZodIssue[], input: unknown, prefix = ''): Violation[] {
  const out: Violation[] = [];
  const seen = new Set<string>();
  const add = (path: string, rule: Rule, message: string, params?: Violation['params']) => {
    const key = `${path}\u0000${rule}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push(params ? { path, rule, message, params } : { path, rule, message });
  };
  for (const issue of issues) {
    const path = joinPath(prefix, issue.path);
    const label = path === '' ? 'The request body' : `'${fieldLabel(path)}'`;
    const raw = valueAt(input, issue.path);
    switch (issue.code) {
      case 'unrecognized_keys':
        for (const key of issue.keys) {
          const where = path === '' ? '' : ` in ${label}`;
          add(joinPath(path, [key]), 'unknown_field', `'${key}' is not a field the proctoring service accepts${where}.`);
        }
        break;
      case 'invalid_type':
        if (raw === undefined) add(path, 'required', path === '' ? 'The request body is missing: send a JSON object.' : `${label} is required.`);
        else if (issue.expected === 'int' && typeof raw === 'number') add(path, 'integer', `${label} must be a whole number.`);
        else add(path, 'type', `${label} must be ${TYPE_WORDS[issue.expected] ?? issue.expected}.`, { expected: issue.expected });
        break;
      case 'invalid_value': {
        if (raw === undefined) add(path, 'required', `${label} is required.`);
        else if (issue.values.every((v) => typeof v === 'number') && typeof raw !== 'number') add(path, 'type', `${label} must be a whole number.`, { expected: 'int' });
        else if (issue.values.every((v) => typeof v === 'number') && !Number.isInteger(raw)) add(path, 'integer', `${label} must be a whole number.`);
        else {
          const choices = CHOICE_LABELS[labelKey(path)];
          const options = issue.values.map((v) => (choices && typeof v === 'number' && choices[v] ? `${v} (${choices[v]})` : describeValue(v)));
          add(path, 'enum', `${label} must be one of ${options.join(', ')}.`, { values: issue.values.map(String).join('|') });
        }
        break;
      }
      case 'too_big':
      case 'too_small': {
        const bound = Number(issue.code === 'too_big' ? issue.maximum : issue.minimum);
        const params: Record<string, number> = issue.code === 'too_big' ? { max: bound } : { min: bound };
        if (issue.origin === 'array') {
          add(path, 'max_items', issue.code === 'too_big' ? `${label} may list at most ${bound} entries.` : `${label} must list at least ${bound} entries.`, params);
        } else if (issue.origin === 'string') {
          add(path, issue.code === 'too_big' ? 'max_length' : 'min_length', `${label} must be ${issue.code === 'too_big' ? 'at most' : 'at least'} ${bound} characters long.`, params);
        } else {
          add(path, 'range', `${label} must be ${issue.code === 'too_big' ? 'at most' : 'at least'} ${bound}.`, params);
        }
        break;
      }
      case 'invalid_union':
        add(path, raw === undefined ? 'required' : 'type', raw === undefined ? `${label} is required.` : `${label} has the wrong type.`);
        break;
      case 'custom': {
        const params = ruleParamsSchema.safeParse(issue.params).data;
        if (!params) {
          add(path, 'type', `${label} is not valid.`);
          break;
        }
        const extra: Record<string, string | number> = {};
        if (params.min !== undefined) extra.min = params.min;
        if (params.max !== undefined) extra.max = params.max;
        if (params.rule === 'regex' && params.text) extra.detail = params.text;
        add(path, params.rule, params.message ?? ruleMessage(label, params), Object.keys(extra).length > 0 ? extra : undefined);
        break;
      }
      default:
        add(path, 'type', `${label} is not valid.`);
    }
  }
  return out;
}

function ruleMessage(label: string, params: RuleParams): string {
  const { rule, min, max, text: ending } = params;
  switch (rule) {
    case 'length':
      return `${label} must be exactly ${min} characters long.`;
    case 'min_length':
      return min === 1 ? `${label} must not be empty.` : `${label} must be at least ${min} characters long.`;
    case 'max_length':
      return `${label} must be at most ${max} characters long.`;
    case 'range':
      return max === undefined ? `${label} must be at least ${min}.` : `${label} must be between ${min} and ${max}.`;
    default:
      return ending ? `${label} ${ending}` : `${label} is not valid.`;
  }
}
