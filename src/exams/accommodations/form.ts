// The accommodation editor as data: which settings one student may get differently, what the exam itself
// says for each, and the form's fields back to an override. Pure: the view renders it, the store validates.
import { EXAM_SETTING_GROUPS, EXAM_SETTING_ROWS, type ExamSettingRow } from '../../proctoring/exam-settings.js';
import type { Translate } from '../../proctoring/labels.js';
import { changeLabel, valueInWords } from '../settings/history.js';
import { durationInWords, LINK_MINUTES, minutesText, secondsFromMinutes } from '../settings/durations.js';
import type { ExamSettingsDocument } from '../settings/document.js';
import type { AccommodationOverride } from './override.js';

/** An exam setting one student may have differently: switches and choices (lists such as allowed apps stay exam-wide). */
export interface OverrideField {
  name: string;
  label: string;
  kind: 'boolean' | 'choice';
  /** The exam's own value, in words ("Same as the exam (on)"). */
  examValue: string;
  /** The value the form shows chosen: '' for "same as the exam", 'on'/'off', or a choice's number. */
  selected: string;
  options: Array<{ value: string; label: string }>;
}

export interface OverrideForm {
  exempt: boolean;
  groups: Array<{ id: string; legend: string; fields: OverrideField[] }>;
  breaks: { custom: boolean; number: string; duration: string; examValue: string; min: number; max: number; durationMin: number; durationMax: number };
  /** `kept`: the stored seconds, sent back with the minutes; `note`: a stored value that is no whole number of minutes, in words. */
  expire: { value: string; kept: string; note: string; examValue: string; min: number; max: number };
}

type Row = ExamSettingRow & { name: string };
const overridable = (row: ExamSettingRow): row is Row & { type: 'boolean' | 'choice' } => row.type === 'boolean' || row.type === 'choice';

const BREAK_LIMITS = { number: { min: 1, max: 10 }, duration: { min: 1, max: 30 } } as const;

function breaksInWords(breaks: ExamSettingsDocument['break_settings'], t: Translate): string {
  if (!breaks) return t('accommodations:editor.noBreaks');
  return t('accommodations:editor.breaksValue', { number: breaks.number, duration: breaks.duration });
}

/** The editor for one student: every overridable setting with the exam's value and the override's choice. */
export function overrideForm(document: ExamSettingsDocument, override: AccommodationOverride | undefined, t: Translate): OverrideForm {
  const settings = document.exam_settings as Readonly<Record<string, unknown>>;
  const chosen = (override?.exam_settings ?? {}) as Readonly<Record<string, unknown>>;
  const field = (row: Row & { type: 'boolean' | 'choice' }): OverrideField => {
    const path = `exam_settings.${row.name}`;
    const value = chosen[row.name];
    const examValue = valueInWords(path, settings[row.name], t);
    const same = { value: '', label: t('accommodations:editor.sameAsExam', { value: examValue }) };
    if (row.type === 'boolean') {
      return {
        name: row.name,
        label: changeLabel(path, t),
        kind: 'boolean',
        examValue,
        selected: value === true ? 'on' : value === false ? 'off' : '',
        options: [same, { value: 'on', label: valueInWords(path, true, t) }, { value: 'off', label: valueInWords(path, false, t) }],
      };
    }
    return {
      name: row.name,
      label: changeLabel(path, t),
      kind: 'choice',
      examValue,
      selected: typeof value === 'number' ? String(value) : '',
      options: [same, ...row.choices.map((choice) => ({ value: String(choice), label: valueInWords(path, choice, t) }))],
    };
  };
  const breaks = override?.break_settings;
  return {
    exempt: override?.exempt === true,
    groups: EXAM_SETTING_GROUPS.map((id) => ({
      id,
      legend: t(`settings:groups.${id}.legend`),
      fields: (EXAM_SETTING_ROWS as readonly ExamSettingRow[]).filter((row): row is Row & { type: 'boolean' | 'choice' } => row.group === id && overridable(row)).map(field),
    })),
    breaks: {
      custom: breaks !== undefined,
      number: breaks ? String(breaks.number) : '',
      duration: breaks ? String(breaks.duration) : '',
      examValue: breaksInWords(document.break_settings, t),
      min: BREAK_LIMITS.number.min,
      max: BREAK_LIMITS.number.max,
      durationMin: BREAK_LIMITS.duration.min,
      durationMax: BREAK_LIMITS.duration.max,
    },
    // In minutes, as a person thinks of a link's validity (the document keeps seconds); `kept` is the stored value
    // sent back with them, so one that is no whole number of minutes is saved to the second while left as shown.
    expire: {
      value: override?.expire === undefined ? '' : typeof override.expire === 'number' ? minutesText(override.expire) : String(override.expire),
      kept: typeof override?.expire === 'number' ? String(override.expire) : '',
      note: typeof override?.expire === 'number' && override.expire % 60 !== 0 ? t('settings:document.expire.kept', { value: durationInWords(t, override.expire) }) : '',
      examValue: document.expire === undefined ? t('accommodations:editor.serviceDefault') : durationInWords(t, document.expire),
      min: LINK_MINUTES.min,
      max: LINK_MINUTES.max,
    },
  };
}

const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');
/** Whole numbers become numbers; anything else stays text, which the settings rules then refuse by name. */
const numberOrText = (value: string): number | string => (/^-?\d{1,9}$/.test(value) ? Number(value) : value);

/**
 * The editor's fields back to an override (`applyOverride` then checks it against every rule). Unknown
 * settings are ignored here: the form only ever names the table's own.
 */
export function overrideFromFields(fields: Readonly<Record<string, unknown>>, document: ExamSettingsDocument): Record<string, unknown> {
  const examSettings: Record<string, unknown> = {};
  for (const row of EXAM_SETTING_ROWS as readonly ExamSettingRow[]) {
    if (!overridable(row)) continue;
    const value = text(fields[`exam_settings.${row.name}`]);
    if (value === '') continue;
    if (row.type === 'boolean') examSettings[row.name] = value === 'on';
    else examSettings[row.name] = numberOrText(value);
  }
  const override: Record<string, unknown> = {};
  if (Object.keys(examSettings).length > 0) override.exam_settings = examSettings;
  if (text(fields.breaks) === 'custom') {
    override.break_settings = { ...document.break_settings, number: numberOrText(text(fields['break_settings.number'])), duration: numberOrText(text(fields['break_settings.duration'])) };
  }
  // Minutes in the form, seconds in the document; anything but whole minutes in range stays text for the rules to refuse.
  const kept = text(fields.expire_seconds);
  const expire = secondsFromMinutes(text(fields.expire_minutes), /^\d{1,9}$/.test(kept) ? Number(kept) : undefined);
  if (!expire.ok) override.expire = expire.typed;
  else if (expire.seconds !== undefined) override.expire = expire.seconds;
  if (fields.exempt === 'on' || fields.exempt === 'true') override.exempt = true;
  return override;
}

/** An override in words, one line per changed setting, for the hub's list. */
export function overrideInWords(override: AccommodationOverride, t: Translate): string[] {
  const lines: string[] = [];
  if (override.exempt) lines.push(t('accommodations:history.exempt'));
  for (const [name, value] of Object.entries(override.exam_settings ?? {})) {
    const path = `exam_settings.${name}`;
    lines.push(t('accommodations:list.setting', { label: changeLabel(path, t), value: valueInWords(path, value, t) }));
  }
  if (override.break_settings) lines.push(t('accommodations:list.setting', { label: t('accommodations:editor.breaks'), value: breaksInWords(override.break_settings, t) }));
  if (override.expire !== undefined) lines.push(t('accommodations:list.setting', { label: t('hub:summary.linkValidity'), value: durationInWords(t, override.expire) }));
  return lines;
}
