/**
 * Every member of the Launch API's `exam_settings`, one row each (and below, every member of
 * `behavior_settings`, `proctor_settings` and `break_settings`): its kind of value, the value that
 * switches it off, the group it belongs to on the settings form and the emulator's pages, and the
 * prerequisite it has. The contract's schema, the all-off value, the form, the form script's rules and the
 * emulator's pages are derived from this table. The words (label, help, choice names, group names and the
 * prerequisite's sentence) are in the `settings` catalog, `locales/<language>/settings.json`, English first:
 * adding a setting is one row here plus its catalog entries in every language (docs/launch-api.md lists
 * where each rule comes from; test/unit/proctoring/exam-settings.test.ts fails for a row without them).
 *
 * Prerequisites are data on plain values ("when this member takes one of these values, those members
 * must have these values / must not have these values"), so the server, the browser and per-student
 * overrides all evaluate the same rule.
 */

/** The value of one exam setting that a prerequisite can talk about. */
export type SettingValue = boolean | number;

/** The rule codes of the prerequisites between exam settings. */
export const EXAM_SETTING_RULES = [
  'record_desk_requires_video',
  'verify_video_requires_record_video',
  'verify_audio_requires_record_audio',
  'verify_desktop_requires_record_screen',
  'verify_id_2_requires_video',
  'full_screen_requires_lockdown',
  'live_proctor_requires_video',
  'mobile_excludes_verify_id_2',
] as const;
export type ExamSettingRule = (typeof EXAM_SETTING_RULES)[number];

export interface SettingPrerequisite {
  rule: ExamSettingRule;
  /** The values of the row's setting that need the others. */
  when: readonly SettingValue[];
  /** Members that must have this value. */
  needs: ReadonlyArray<{ field: string; value: SettingValue }>;
  /** Members that must NOT have this value (an incompatibility: nothing is switched on automatically). */
  excludes: ReadonlyArray<{ field: string; value: SettingValue }>;
}

/** The groups of the settings form, in order (`settings:groups.<id>.legend` and `.intro`). */
export const EXAM_SETTING_GROUPS = ['recording', 'verification', 'lockdown', 'tools', 'advanced'] as const;
export type ExamSettingGroup = (typeof EXAM_SETTING_GROUPS)[number];

/** How many apps each allow list may name (spec: Limits). */
export const MAX_ALLOWED_APPS = 10;

interface RowBase {
  name: string;
  group: ExamSettingGroup;
  prerequisite?: SettingPrerequisite;
}
/**
 * `off` switches the setting off; `default` is what an exam gets for a setting it has no value for (a stored
 * document written before the setting existed is brought forward with it: exams/settings/versions.ts).
 */
export type ExamSettingRow =
  | (RowBase & { type: 'boolean'; off: false; default: boolean })
  | (RowBase & { type: 'choice'; off: number; default: number; choices: readonly number[] })
  | (RowBase & { type: 'bundle-ids'; off: readonly []; default: readonly [] })
  | (RowBase & { type: 'windows-apps'; off: readonly []; default: readonly [] });

const VIDEO = [
  { field: 'record_video', value: true },
  { field: 'verify_video', value: true },
] as const;

/** In the form's order: group by group. Labels, help and choice names: `settings:fields.<name>` in locales/. */
export const EXAM_SETTING_ROWS = [
  { name: 'record_video', type: 'boolean', off: false, default: false, group: 'recording' },
  { name: 'record_audio', type: 'boolean', off: false, default: false, group: 'recording' },
  { name: 'record_screen', type: 'boolean', off: false, default: false, group: 'recording' },
  { name: 'record_web_traffic', type: 'boolean', off: false, default: false, group: 'recording' },
  {
    name: 'record_desk',
    type: 'choice',
    off: 0,
    default: 0,
    choices: [0, 1, 2],
    group: 'recording',
    prerequisite: { rule: 'record_desk_requires_video', when: [1, 2], needs: VIDEO, excludes: [] },
  },
  {
    name: 'live_proctor',
    type: 'boolean',
    off: false,
    default: false,
    group: 'recording',
    prerequisite: { rule: 'live_proctor_requires_video', when: [true], needs: VIDEO, excludes: [] },
  },
  {
    name: 'verify_video',
    type: 'boolean',
    off: false,
    default: false,
    group: 'verification',
    prerequisite: { rule: 'verify_video_requires_record_video', when: [true], needs: [{ field: 'record_video', value: true }], excludes: [] },
  },
  {
    name: 'verify_audio',
    type: 'boolean',
    off: false,
    default: false,
    group: 'verification',
    prerequisite: { rule: 'verify_audio_requires_record_audio', when: [true], needs: [{ field: 'record_audio', value: true }], excludes: [] },
  },
  {
    name: 'verify_desktop',
    type: 'boolean',
    off: false,
    default: false,
    group: 'verification',
    prerequisite: { rule: 'verify_desktop_requires_record_screen', when: [true], needs: [{ field: 'record_screen', value: true }], excludes: [] },
  },
  {
    name: 'verify_id',
    type: 'choice',
    off: 0,
    default: 0,
    choices: [0, 1, 2],
    group: 'verification',
    prerequisite: { rule: 'verify_id_2_requires_video', when: [2], needs: VIDEO, excludes: [] },
  },
  { name: 'verify_signature', type: 'boolean', off: false, default: false, group: 'verification' },
  {
    name: 'full_screen',
    type: 'choice',
    off: 0,
    default: 0,
    choices: [0, 1, 2, 3],
    group: 'lockdown',
    prerequisite: {
      rule: 'full_screen_requires_lockdown',
      when: [1, 2, 3],
      needs: [
        { field: 'close_tabs', value: true },
        { field: 'one_screen', value: true },
        { field: 'tabs', value: 1 },
      ],
      excludes: [],
    },
  },
  { name: 'tabs', type: 'choice', off: 0, default: 0, choices: [0, 1, 2], group: 'lockdown' },
  { name: 'close_tabs', type: 'boolean', off: false, default: false, group: 'lockdown' },
  { name: 'one_screen', type: 'boolean', off: false, default: false, group: 'lockdown' },
  { name: 'disable_clipboard', type: 'boolean', off: false, default: false, group: 'lockdown' },
  { name: 'disable_printing', type: 'boolean', off: false, default: false, group: 'lockdown' },
  { name: 'block_downloads', type: 'boolean', off: false, default: false, group: 'lockdown' },
  { name: 'disable_right_click', type: 'boolean', off: false, default: false, group: 'lockdown' },
  { name: 'disable_extensions', type: 'boolean', off: false, default: false, group: 'lockdown' },
  { name: 'clear_cache', type: 'boolean', off: false, default: false, group: 'lockdown' },
  { name: 'calculator', type: 'choice', off: 0, default: 0, choices: [0, 1, 2, 3], group: 'tools' },
  { name: 'whiteboard', type: 'boolean', off: false, default: false, group: 'tools' },
  {
    name: 'mobile',
    type: 'boolean',
    off: false,
    default: false,
    group: 'tools',
    prerequisite: { rule: 'mobile_excludes_verify_id_2', when: [true], needs: [], excludes: [{ field: 'verify_id', value: 2 }] },
  },
  { name: 'advanced_program_detection', type: 'boolean', off: false, default: false, group: 'advanced' },
  { name: 'advanced_hardware_detection', type: 'boolean', off: false, default: false, group: 'advanced' },
  { name: 'advanced_vm_detection', type: 'boolean', off: false, default: false, group: 'advanced' },
  { name: 'allowed_macos_apps', type: 'bundle-ids', off: [], default: [], group: 'advanced' },
  { name: 'allowed_windows_apps', type: 'windows-apps', off: [], default: [], group: 'advanced' },
  { name: 'strict_apps_validation', type: 'choice', off: 0, default: 0, choices: [0, 1], group: 'advanced' },
] as const satisfies readonly ExamSettingRow[];

export type ExamSettingName = (typeof EXAM_SETTING_ROWS)[number]['name'];

/** The prerequisites of every row, with the member they belong to. */
export const EXAM_SETTING_PREREQUISITES: ReadonlyArray<SettingPrerequisite & { field: ExamSettingName }> = EXAM_SETTING_ROWS.flatMap((row: ExamSettingRow & { name: ExamSettingName }) =>
  row.prerequisite ? [{ ...row.prerequisite, field: row.name }] : [],
);

/** True when these (possibly partial or malformed) settings break the prerequisite of `field`. */
export function breaksPrerequisite(p: SettingPrerequisite & { field: string }, settings: Readonly<Record<string, unknown>>): boolean {
  if (!p.when.some((value) => value === settings[p.field])) return false;
  return p.needs.some((n) => settings[n.field] !== n.value) || p.excludes.some((e) => settings[e.field] === e.value);
}

// ---------------------------------------------------------------------------------------------------
// The optional objects' members: behaviour weights and highlighted metrics (reviewer and live launches),
// proctor permissions (live launch and launchpad) and breaks (candidate launch). Every member is optional
// in the request (a member left out takes the service's default, or for proctor permissions the
// institution's), except a break's number and duration, which break_settings needs.

/** The objects whose members the rows below describe, with where they sit in a request. */
/**
 * `qualified`: a member's label outside its section (messages, history) is `settings:sections.<section>.member`
 * around it ("Weight: keystrokes"); the others read well on their own.
 */
export const MEMBER_SECTIONS = {
  frame_metrics: { path: 'behavior_settings.frame_metrics', qualified: true },
  exam_metrics: { path: 'behavior_settings.exam_metrics', qualified: true },
  proctor_settings: { path: 'proctor_settings', qualified: false },
  break_settings: { path: 'break_settings', qualified: false },
} as const;
export type MemberSection = keyof typeof MEMBER_SECTIONS;

/** How many minutes a break lasts: the specification gives the range of `duration` but not its unit (docs/launch-api.md). */
export const BREAK_DURATION_UNIT = 'minutes';

interface MemberRowBase {
  section: MemberSection;
  name: string;
}
/**
 * `kind` is the form control and the value's schema: weight (0–5), boolean (checkbox), tristate (yes, no or
 * the institution's default), integer (a range), choice (radio group). `off` is the value that switches the
 * member off (null: none, the whole object is left out instead); `default` is what an exam has for a
 * member it has no value for (null: left out, the service's or the institution's default applies).
 */
export type MemberSettingRow =
  | (MemberRowBase & { kind: 'weight'; off: 0; default: null })
  | (MemberRowBase & { kind: 'boolean' | 'tristate'; off: false; default: null })
  | (MemberRowBase & { kind: 'integer'; off: null; default: null; min: number; max: number; required: true })
  | (MemberRowBase & { kind: 'choice'; off: number; default: null; choices: readonly number[] });

const weightRow = <N extends string>(name: N) => ({ section: 'frame_metrics', name, kind: 'weight', off: 0, default: null }) as const;
const highlightRow = <N extends string>(name: N) => ({ section: 'exam_metrics', name, kind: 'boolean', off: false, default: null }) as const;
const permissionRow = <N extends string>(name: N) => ({ section: 'proctor_settings', name, kind: 'tristate', off: false, default: null }) as const;

/** In the form's order, section by section. Labels and help: `settings:members.<section>.<name>` in locales/. */
export const MEMBER_SETTING_ROWS = [
  weightRow('navigating_away'),
  weightRow('keystrokes'),
  weightRow('copy_paste'),
  weightRow('browser_resize'),
  weightRow('audio_levels'),
  weightRow('head_movement'),
  weightRow('multiple_faces'),
  weightRow('leaving_room'),

  highlightRow('navigating_away'),
  highlightRow('keystrokes'),
  highlightRow('copy_paste'),
  highlightRow('browser_resize'),
  highlightRow('audio_levels'),
  highlightRow('head_movement'),
  highlightRow('multiple_faces'),
  highlightRow('mouse_movement'),
  highlightRow('scrolling'),
  highlightRow('clicking'),
  highlightRow('exam_duration'),
  highlightRow('start_time'),
  highlightRow('end_time'),
  highlightRow('exam_collusion'),

  permissionRow('break_allowed'),
  permissionRow('desk_scan_allowed'),
  permissionRow('interrupt_allowed'),
  permissionRow('kickout_allowed'),

  { section: 'break_settings', name: 'number', kind: 'integer', off: null, default: null, min: 1, max: 10, required: true },
  { section: 'break_settings', name: 'duration', kind: 'integer', off: null, default: null, min: 1, max: 30, required: true },
  { section: 'break_settings', name: 'cumulative', kind: 'boolean', off: false, default: null },
  { section: 'break_settings', name: 'on_time_exceeded', kind: 'choice', off: 0, default: null, choices: [0, 1] },
  { section: 'break_settings', name: 'desk_scan_after_break', kind: 'boolean', off: false, default: null },
] as const satisfies readonly MemberSettingRow[];

export type MemberRowOf<S extends MemberSection> = Extract<(typeof MEMBER_SETTING_ROWS)[number], { section: S }>;

/** The rows of one section, in the table's order. */
export function memberRows<S extends MemberSection>(section: S): Array<MemberRowOf<S>> {
  return MEMBER_SETTING_ROWS.filter((row): row is MemberRowOf<S> => row.section === section);
}

/** The member names of one section, typed. */
export function memberNames<S extends MemberSection>(section: S): Array<MemberRowOf<S>['name']> {
  return namesOf(memberRows(section));
}

function namesOf<R extends { name: string }>(rows: readonly R[]): Array<R['name']> {
  return rows.map((row) => row.name);
}

/** A member's path in a request (`behavior_settings.frame_metrics.keystrokes`). */
export const memberPath = (row: { section: MemberSection; name: string }): string => `${MEMBER_SECTIONS[row.section].path}.${row.name}`;
