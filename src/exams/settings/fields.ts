import { EXAM_SETTING_GROUPS, EXAM_SETTING_ROWS, MAX_ALLOWED_APPS, MEMBER_SETTING_ROWS, memberPath, type ExamSettingRow, type MemberSection, type MemberSettingRow } from '../../proctoring/exam-settings.js';
import { LIMITS, POST_MESSAGE_NOTIFICATION } from '../../proctoring/contract.js';
import { english } from '../../proctoring/english.js';
import { choiceLabel, type Translate } from '../../proctoring/labels.js';
import { durationInWords, LINK_MINUTES, minutesText } from './durations.js';

/**
 * The settings form, described once: every field with its path in the settings document (= the form
 * control's name), its kind, label and one sentence of help in the reader's language (`t`, the settings
 * catalog). The view renders from this list and the page's script maps controls back to the document by
 * `data-kind`.
 */
export type FieldKind =
  | 'boolean' // checkbox
  | 'choice' // radio group of integer values
  | 'weight' // select: service default or 0–5
  | 'integer' // number input, blank = omitted
  | 'minutes' // the link's validity: minutes in the form, seconds in the document (durations.ts)
  | 'tristate' // select: institution default, yes, no
  | 'text' // text or URL input, blank = omitted
  | 'lines' // textarea, one text per line
  | 'windows-apps'; // textarea, one "file | product | company" per line

export interface Field {
  path: string;
  kind: FieldKind;
  label: string;
  help: string;
  choices?: ReadonlyArray<{ value: number; label: string }>;
  min?: number;
  max?: number;
  inputType?: 'url' | 'text';
}

export interface FieldGroup {
  id: string;
  legend: string;
  intro?: string;
  fields: Field[];
}

function choices(t: Translate, path: string, values: readonly number[]): Array<{ value: number; label: string }> {
  return values.map((value) => ({ value, label: choiceLabel(t, path, value) ?? String(value) }));
}

function examField(t: Translate, row: ExamSettingRow): Field {
  const path = `exam_settings.${row.name}`;
  const base = { path, label: t(`settings:fields.${row.name}.label`), help: t(`settings:fields.${row.name}.help`, { max: MAX_ALLOWED_APPS }) };
  switch (row.type) {
    case 'bundle-ids':
      return { ...base, kind: 'lines' };
    case 'windows-apps':
      return { ...base, kind: 'windows-apps' };
    case 'choice':
      return { ...base, kind: 'choice', choices: choices(t, path, row.choices) };
    case 'boolean':
      return { ...base, kind: 'boolean' };
  }
}

function weightChoices(t: Translate): Array<{ value: number; label: string }> {
  const { min, max } = LIMITS.weight;
  return Array.from({ length: max - min + 1 }, (_, i) => {
    const weight = min + i;
    return { value: weight, label: weight === min ? t('settings:page.weightNever', { weight }) : weight === max ? t('settings:page.weightMost', { weight }) : String(weight) };
  });
}

/** A member of behavior_settings, proctor_settings or break_settings as a form field (proctoring/exam-settings.ts). */
function memberField(t: Translate, row: MemberSettingRow): Field {
  const path = memberPath(row);
  const key = `settings:members.${row.section}.${row.name}`;
  const base = { path, label: t(`${key}.label`), help: row.kind === 'integer' ? t(`${key}.help`, { min: row.min, max: row.max }) : t(`${key}.help`) };
  switch (row.kind) {
    case 'weight':
      return { ...base, kind: 'weight', choices: weightChoices(t) };
    case 'boolean':
    case 'tristate':
      return { ...base, kind: row.kind };
    case 'integer':
      return { ...base, kind: 'integer', min: row.min, max: row.max };
    case 'choice':
      return { ...base, kind: 'choice', choices: choices(t, path, row.choices) };
  }
}

const memberFields = (t: Translate, section: MemberSection): Field[] => MEMBER_SETTING_ROWS.filter((row: MemberSettingRow) => row.section === section).map((row) => memberField(t, row));

/** A field of the document itself (`settings:document.<path>`). */
function documentField(t: Translate, path: string, kind: FieldKind, extra: Partial<Field> = {}, values: Readonly<Record<string, number>> = {}): Field {
  return { path, kind, label: t(`settings:document.${path}.label`), help: t(`settings:document.${path}.help`, values), ...extra };
}

/** The form's fields, section by section, in the reader's words. */
export interface SettingsForm {
  pageFields: Field[];
  groups: FieldGroup[];
  behavior: { weights: Field[]; highlights: Field[] };
  proctorFields: Field[];
  breakFields: Field[];
  otherFields: Field[];
}

export function settingsForm(t: Translate): SettingsForm {
  const { min, max } = LINK_MINUTES;
  return {
    pageFields: [
      documentField(t, 'launch_url', 'text', { inputType: 'url' }),
      documentField(t, 'exam_start', 'text'),
      documentField(t, 'exam_take', 'text'),
      documentField(t, 'exam_end', 'text'),
    ],
    // The exam_settings members by group, in the table's order (proctoring/exam-settings.ts).
    groups: EXAM_SETTING_GROUPS.map((id) => ({
      id,
      legend: t(`settings:groups.${id}.legend`),
      intro: t(`settings:groups.${id}.intro`),
      fields: EXAM_SETTING_ROWS.filter((row: ExamSettingRow) => row.group === id).map((row) => examField(t, row)),
    })),
    behavior: { weights: memberFields(t, 'frame_metrics'), highlights: memberFields(t, 'exam_metrics') },
    proctorFields: memberFields(t, 'proctor_settings'),
    breakFields: memberFields(t, 'break_settings'),
    otherFields: [
      // In minutes, as the hub and the accommodations say it; the Launch API's `expire` stays in seconds.
      { path: 'expire', kind: 'minutes', label: t('settings:document.expire.minutesLabel'), help: t('settings:document.expire.minutesHelp', { min, max, default: durationInWords(t, LIMITS.candidateExpire.default) }), min, max },
      documentField(t, 'pre_auth', 'text', { inputType: 'url' }),
      documentField(t, 'post_auth', 'text', { inputType: 'url' }),
      documentField(t, 'pre_auth_bypass', 'boolean'),
    ],
  };
}

/** Every field of the form, by path: the view and tests look fields up here. */
export function allFields(t: Translate = english): Field[] {
  const form = settingsForm(t);
  return [...form.pageFields, ...form.groups.flatMap((g) => g.fields), ...form.behavior.weights, ...form.behavior.highlights, ...form.proctorFields, ...form.breakFields, ...form.otherFields];
}

/** The form's paths and kinds (the words do not matter here). */
const FORM_FIELDS = allFields();

/** The DOM id of a field's control. */
export function fieldId(path: string): string {
  return `f-${path.replace(/[^a-zA-Z0-9_]/g, '-')}`;
}

function at(document: unknown, path: string): unknown {
  let current = document;
  for (const key of path.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

export type FormValue = string | boolean;

/**
 * The document (a parsed one, or one stored under older rules that needs correcting) as the form shows it: booleans for checkboxes, strings for everything else (blank when
 * absent), lists one item per line. The page's script does the reverse when saving.
 */
export function formValues(document: unknown): Record<string, FormValue> {
  const out: Record<string, FormValue> = {};
  for (const field of FORM_FIELDS) {
    const value = at(document, field.path);
    switch (field.kind) {
      case 'boolean':
        out[field.path] = value === true;
        break;
      case 'tristate':
        out[field.path] = value === true ? 'true' : value === false ? 'false' : '';
        break;
      case 'lines':
        out[field.path] = Array.isArray(value) ? value.map(String).join('\n') : '';
        break;
      case 'windows-apps':
        out[field.path] = Array.isArray(value)
          ? value
              .map((app: unknown) => {
                const a = (app ?? {}) as Record<string, unknown>;
                return [a.binary_name, a.product_name, a.company_name].map((part) => (typeof part === 'string' ? part : '')).join(' | ');
              })
              .join('\n')
          : '';
        break;
      case 'minutes':
        out[field.path] = typeof value === 'number' ? minutesText(value) : value === undefined || value === null ? '' : String(value);
        if (typeof value === 'number') out[`${field.path}.seconds`] = String(value);
        break;
      default:
        out[field.path] = value === undefined || value === null ? '' : String(value);
    }
  }
  const text = (path: string, otherwise = '') => {
    const value = at(document, path);
    return typeof value === 'string' ? value : otherwise;
  };
  out['tool.lms_preset'] = text('tool.lms_preset');
  out['tool.quiz_url'] = text('tool.quiz_url');
  out['tool.security_preset'] = text('tool.security_preset');
  out['tool.redirect'] = text('tool.redirect', 'lms');
  out['tool.redirect_url'] = text('tool.redirect_url');
  out.breaks_enabled = at(document, 'break_settings') !== undefined;
  out.take_post_message = at(document, 'exam_take') === POST_MESSAGE_NOTIFICATION;
  out.end_post_message = at(document, 'exam_end') === POST_MESSAGE_NOTIFICATION;
  return out;
}
