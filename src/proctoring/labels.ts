import { english } from './english.js';
import { EXAM_SETTING_ROWS, MEMBER_SECTIONS, MEMBER_SETTING_ROWS, memberPath, type MemberSection } from './exam-settings.js';
import { entriesOf } from '../values.js';

/** A translator's `t` (src/i18n), or `english`: `settings:<dotted.path>` with ICU arguments. */
export type Translate = (key: string, values?: Readonly<Record<string, string | number>>) => string;

/**
 * Paths of the settings document that are not in the tables, with their words under `settings:document.<path>`
 * (the tool-side settings' own paths are labelled by exams/tool-settings).
 */
const DOCUMENT_PATHS: ReadonlySet<string> = new Set([
  'launch_url',
  'exam_start',
  'exam_take',
  'exam_end',
  'expire',
  'pre_auth',
  'post_auth',
  'pre_auth_bypass',
  'exam_settings',
  'behavior_settings',
  'proctor_settings',
  'break_settings',
  'status',
  'tool.lms_preset',
  'tool.quiz_url',
  'tool.security_preset',
  'tool.redirect',
  'tool.redirect_url',
]);

const WINDOWS_APP_PARTS: ReadonlySet<string> = new Set(['binary_name', 'product_name', 'company_name']);

const memberByPath = new Map(MEMBER_SETTING_ROWS.map((row) => [memberPath(row), row]));
const sectionByPath: ReadonlyMap<string, MemberSection> = new Map(entriesOf(MEMBER_SECTIONS).map(([section, { path }]) => [path, section]));
const examRowNames: ReadonlySet<string> = new Set(EXAM_SETTING_ROWS.map((row) => row.name));

/**
 * The label of a settings-document path in the reader's words (`t`), array indices ignored; undefined for a
 * path that is not one of the settings. Members of the behaviour objects carry their section ("Weight:
 * keystrokes"), as they stand alone in messages and the change history.
 */
export function settingLabel(t: Translate, path: string): string | undefined {
  const key = labelKey(path);
  const [head, name, part, ...rest] = key.split('.');
  if (head === 'exam_settings' && name !== undefined && examRowNames.has(name) && rest.length === 0) {
    if (part === undefined) return t(`settings:fields.${name}.label`);
    if (name === 'allowed_windows_apps' && WINDOWS_APP_PARTS.has(part)) return t(`settings:fields.${name}.${part}`);
    return undefined;
  }
  const member = memberByPath.get(key);
  if (member) {
    const label = t(`settings:members.${member.section}.${member.name}.label`);
    return MEMBER_SECTIONS[member.section].qualified ? t(`settings:sections.${member.section}.member`, { label }) : label;
  }
  const section = sectionByPath.get(key);
  if (section && key.includes('.')) return t(`settings:sections.${section}.legend`);
  if (DOCUMENT_PATHS.has(key)) return t(`settings:document.${key}.label`);
  return undefined;
}

/** The name of one value of a choice setting (`exam_settings.verify_id`, 2 → "Reviewed by a person"), or undefined. */
export function choiceLabel(t: Translate, path: string, value: number): string | undefined {
  const key = labelKey(path);
  const row = EXAM_SETTING_ROWS.find((r) => `exam_settings.${r.name}` === key);
  if (row?.type === 'choice' && Array.from<number>(row.choices).includes(value)) return t(`settings:fields.${row.name}.choices.${value}`);
  const member = memberByPath.get(key);
  if (member?.kind === 'choice' && Array.from<number>(member.choices).includes(value)) return t(`settings:members.${member.section}.${member.name}.choices.${value}`);
  return undefined;
}

/** Every settings path with a label: the document's own fields, every exam setting and every member. */
function settingPaths(): string[] {
  return [
    ...DOCUMENT_PATHS,
    ...EXAM_SETTING_ROWS.map((row) => `exam_settings.${row.name}`),
    ...[...WINDOWS_APP_PARTS].map((part) => `exam_settings.allowed_windows_apps.${part}`),
    'behavior_settings.frame_metrics',
    'behavior_settings.exam_metrics',
    ...memberByPath.keys(),
  ];
}

/**
 * Human labels (English) for every field of the Launch API requests, keyed by the path used in violations
 * (`exam_settings.full_screen`, `exam_settings.allowed_windows_apps.binary_name`: array indices left out).
 * The words are an instructor's, not the API's; those of the exam's settings come from the settings catalog.
 */
export const FIELD_LABELS: Readonly<Record<string, string>> = {
  user_id: 'User id',
  attempt_id: 'Attempt id',
  exam_tag: 'Exam tag',
  section_id: 'Section id',
  roster_url: 'Roster URL',
  domain: 'Exam domain',
  redirect_url: 'Return URL',
  redirect_settings: 'Return URLs',
  'redirect_settings.graceful_submission_url': 'Return URL after submitting',
  'redirect_settings.ungraceful_submission_url': 'Return URL after leaving the exam',
  display_name: 'Display name',
  extension_allowlist_url: 'Extension allowlist URL',
  exam_name: 'Exam name',
  exam_roster: 'Exam roster URL',
  type: 'Webhook type',
  version: 'Webhook version',
  client: 'Webhook receiver',
  'client.url': 'Webhook receiver URL',
  'client.key': 'Webhook receiver key',
  id: 'Subscription id',

  branding: 'Branding',
  'branding.primary_color': 'Primary colour',
  'branding.secondary_color': 'Secondary colour',
  'branding.logo_url': 'Logo URL',

  // The exam's settings: their words are in the settings catalog.
  ...Object.fromEntries(settingPaths().map((path) => [path, settingLabel(english, path) ?? path])),
};

/** What each value of the integer settings means, for forms and messages. */
export const CHOICE_LABELS: Readonly<Record<string, Readonly<Record<number, string>>>> = Object.fromEntries(
  [
    ...EXAM_SETTING_ROWS.flatMap((row) => (row.type === 'choice' ? [{ path: `exam_settings.${row.name}`, choices: Array.from<number>(row.choices) }] : [])),
    ...MEMBER_SETTING_ROWS.flatMap((row) => (row.kind === 'choice' ? [{ path: memberPath(row), choices: Array.from<number>(row.choices) }] : [])),
  ].map(({ path, choices }) => [path, Object.fromEntries(choices.map((value) => [value, choiceLabel(english, path, value) ?? String(value)]))]),
);

/** The label of a violation path; array indices are ignored and unknown paths fall back to the field name. */
export function fieldLabel(path: string): string {
  const key = labelKey(path);
  return FIELD_LABELS[key] ?? key.split('.').pop() ?? path;
}

/** `exam_settings.allowed_windows_apps.2.binary_name` → `exam_settings.allowed_windows_apps.binary_name`. */
export function labelKey(path: string): string {
  return path
    .split('.')
    .filter((part) => !/^\d+$/.test(part))
    .join('.');
}
