import type { ExamSettings } from '../../proctoring/contract.js';
import { breaksPrerequisite, EXAM_SETTING_PREREQUISITES, type SettingPrerequisite, type SettingValue } from '../../proctoring/exam-settings.js';
import { settingLabel, type Translate } from '../../proctoring/labels.js';

/**
 * The prerequisites of the exam-settings table (proctoring/exam-settings.ts) as the settings page's
 * script applies them while the instructor edits: "when X takes one of these values, Y must be…".
 * The contract checks the same rows on every save.
 */
export type { SettingValue };

export type Requirement = SettingPrerequisite & { field: string };

export const REQUIREMENTS: readonly Requirement[] = EXAM_SETTING_PREREQUISITES;

type Loose = Record<string, unknown>;

/** The requirements this (possibly partial) exam_settings object breaks. */
export function brokenRequirements(settings: Loose): Requirement[] {
  return REQUIREMENTS.filter((r) => breaksPrerequisite(r, settings));
}

export interface AppliedChange {
  field: string;
  value: SettingValue;
  /** The setting that needed it, and the rule (its sentence: `settings:rules.<rule>`). */
  because: string;
  rule: Requirement['rule'];
}

/**
 * Switches on what the chosen settings need (transitively, e.g. desk scan → verify webcam → record
 * video) and says why. Incompatibilities are left as they are: they need the instructor's choice.
 */
export function satisfyRequirements<T extends Loose>(settings: T): { settings: T; changes: AppliedChange[] } {
  const next: Loose = { ...settings };
  const changes: AppliedChange[] = [];
  for (let pass = 0; pass < REQUIREMENTS.length; pass += 1) {
    let changed = false;
    for (const r of REQUIREMENTS) {
      if (!r.when.includes(next[r.field] as SettingValue)) continue;
      for (const need of r.needs) {
        if (next[need.field] === need.value) continue;
        next[need.field] = need.value;
        changes.push({ field: need.field, value: need.value, because: r.field, rule: r.rule });
        changed = true;
      }
    }
    if (!changed) break;
  }
  return { settings: next as T, changes };
}

/** The rules as the settings page's script receives them, with their sentence and labels in the reader's language. */
export function requirementsForBrowser(t: Translate): Array<Requirement & { message: string; label: string; needLabels: string[] }> {
  const label = (member: string) => settingLabel(t, `exam_settings.${member}`) ?? member;
  return REQUIREMENTS.map((r) => ({
    ...r,
    message: t(`settings:rules.${r.rule}`),
    label: label(r.field),
    needLabels: [...r.needs, ...r.excludes].map((n) => label(n.field)),
  }));
}

export type { ExamSettings };
