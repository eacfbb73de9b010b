import { EXAM_SETTINGS_MEMBERS, type Violation } from '../../proctoring/contract.js';
import { isOneOf, isRecord } from '../../values.js';
import { validateSettingsDocument, type ExamSettingsDocument } from '../settings/document.js';

/**
 * A per-student override of an exam (an accommodation): some exam settings, the break rules, the link
 * validity, or an exemption (the student goes straight to the quiz without proctoring). The effective
 * settings are the exam's document with the override laid over it, validated by the same schema and every
 * prerequisite as the exam's own settings: an override that breaks a rule is refused with the rule's message.
 */
export interface AccommodationOverride {
  exam_settings?: Partial<ExamSettingsDocument['exam_settings']>;
  break_settings?: ExamSettingsDocument['break_settings'];
  expire?: number;
  exempt?: boolean;
}

export type OverrideResult = { ok: true; override: AccommodationOverride; effective: ExamSettingsDocument } | { ok: false; violations: Violation[] };

const OVERRIDE_KEYS = ['exam_settings', 'break_settings', 'expire', 'exempt'] as const;

/** The exam's document with the override laid over it (not yet validated). */
export function mergeOverride(document: ExamSettingsDocument, override: AccommodationOverride): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...document, exam_settings: { ...document.exam_settings, ...override.exam_settings } };
  if (override.break_settings !== undefined) merged.break_settings = override.break_settings;
  if (override.expire !== undefined) merged.expire = override.expire;
  return merged;
}

/** Checks an override's shape, then the effective settings with every rule of the contract. */
export function applyOverride(document: ExamSettingsDocument, input: unknown): OverrideResult {
  if (!isRecord(input)) return { ok: false, violations: [{ path: '', rule: 'type', message: 'An accommodation must be a JSON object.' }] };
  const violations: Violation[] = [];
  for (const key of Object.keys(input)) {
    if (!isOneOf(OVERRIDE_KEYS, key)) violations.push({ path: key, rule: 'unknown_field', message: `'${key}' cannot be changed for one student.` });
  }
  if (input.exempt !== undefined && typeof input.exempt !== 'boolean') violations.push({ path: 'exempt', rule: 'type', message: "'Exempt from proctoring' must be true or false." });
  if (input.exam_settings !== undefined) {
    if (!isRecord(input.exam_settings)) violations.push({ path: 'exam_settings', rule: 'type', message: 'The overridden exam settings must be a JSON object.' });
    else
      for (const key of Object.keys(input.exam_settings)) {
        if (!isOneOf(EXAM_SETTINGS_MEMBERS, key)) violations.push({ path: `exam_settings.${key}`, rule: 'unknown_field', message: `'${key}' is not an exam setting.` });
      }
  }
  if (violations.length > 0) return { ok: false, violations };
  const override = input as AccommodationOverride;
  const checked = validateSettingsDocument(mergeOverride(document, override));
  if (!checked.ok) return { ok: false, violations: checked.violations };
  const clean: AccommodationOverride = {};
  if (override.exam_settings !== undefined && Object.keys(override.exam_settings).length > 0) clean.exam_settings = override.exam_settings;
  if (override.break_settings !== undefined) clean.break_settings = override.break_settings;
  if (override.expire !== undefined) clean.expire = override.expire;
  if (override.exempt === true) clean.exempt = true;
  return { ok: true, override: clean, effective: checked.value };
}
