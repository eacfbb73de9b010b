import { EXAM_SETTINGS_PREREQUISITES, type ExamSettings, type Rule } from '../../proctoring/contract.js';
import { fieldLabel } from '../../proctoring/labels.js';

/**
 * The contract's exam_settings prerequisites (EXAM_SETTINGS_PREREQUISITES) as data, so the settings
 * page's script can apply them as the instructor edits: "when X takes one of these values, Y must be…".
 * The rule codes and sentences are the contract's; prerequisites.test.ts checks that this table breaks
 * exactly when the contract's rules break, for every combination.
 */
export type SettingValue = boolean | number;

export interface Requirement {
  rule: Rule;
  /** The member that needs the others (exam_settings member name). */
  field: string;
  /** The values of `field` that need them. */
  when: readonly SettingValue[];
  /** Members that must have this value. */
  needs: ReadonlyArray<{ field: string; value: SettingValue }>;
  /** Members that must NOT have this value (an incompatibility: nothing is switched on automatically). */
  excludes: ReadonlyArray<{ field: string; value: SettingValue }>;
  /** The contract's sentence. */
  message: string;
}

const VIDEO = [
  { field: 'record_video', value: true },
  { field: 'verify_video', value: true },
] as const;

const TABLE: ReadonlyArray<Omit<Requirement, 'message'>> = [
  { rule: 'record_desk_requires_video', field: 'record_desk', when: [1, 2], needs: VIDEO, excludes: [] },
  { rule: 'verify_video_requires_record_video', field: 'verify_video', when: [true], needs: [{ field: 'record_video', value: true }], excludes: [] },
  { rule: 'verify_audio_requires_record_audio', field: 'verify_audio', when: [true], needs: [{ field: 'record_audio', value: true }], excludes: [] },
  { rule: 'verify_desktop_requires_record_screen', field: 'verify_desktop', when: [true], needs: [{ field: 'record_screen', value: true }], excludes: [] },
  { rule: 'verify_id_2_requires_video', field: 'verify_id', when: [2], needs: VIDEO, excludes: [] },
  {
    rule: 'full_screen_requires_lockdown',
    field: 'full_screen',
    when: [1, 2, 3],
    needs: [
      { field: 'close_tabs', value: true },
      { field: 'one_screen', value: true },
      { field: 'tabs', value: 1 },
    ],
    excludes: [],
  },
  { rule: 'live_proctor_requires_video', field: 'live_proctor', when: [true], needs: VIDEO, excludes: [] },
  { rule: 'mobile_excludes_verify_id_2', field: 'mobile', when: [true], needs: [], excludes: [{ field: 'verify_id', value: 2 }] },
];

const messages = new Map(EXAM_SETTINGS_PREREQUISITES.map((p) => [p.rule, p.message]));

export const REQUIREMENTS: readonly Requirement[] = TABLE.map((entry) => {
  const message = messages.get(entry.rule);
  if (!message) throw new Error(`prerequisite ${entry.rule} is not in the contract`);
  return { ...entry, message };
});

type Loose = Record<string, unknown>;

/** The requirements this (possibly partial) exam_settings object breaks. */
export function brokenRequirements(settings: Loose): Requirement[] {
  return REQUIREMENTS.filter((r) => {
    if (!r.when.includes(settings[r.field] as SettingValue)) return false;
    return r.needs.some((n) => settings[n.field] !== n.value) || r.excludes.some((e) => settings[e.field] === e.value);
  });
}

export interface AppliedChange {
  field: string;
  value: SettingValue;
  /** The setting that needed it. */
  because: string;
  message: string;
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
        changes.push({ field: need.field, value: need.value, because: r.field, message: r.message });
        changed = true;
      }
    }
    if (!changed) break;
  }
  return { settings: next as T, changes };
}

/** The rules as the settings page's script receives them, with labels for its sentences. */
export function requirementsForBrowser(): Array<Requirement & { label: string; needLabels: string[] }> {
  return REQUIREMENTS.map((r) => ({
    ...r,
    label: fieldLabel(`exam_settings.${r.field}`),
    needLabels: [...r.needs, ...r.excludes].map((n) => fieldLabel(`exam_settings.${n.field}`)),
  }));
}

export type { ExamSettings };
