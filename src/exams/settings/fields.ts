import { EXAM_METRICS, FRAME_METRICS, LIMITS, POST_MESSAGE_NOTIFICATION, PROCTOR_SETTINGS } from '../../proctoring/contract.js';
import { CHOICE_LABELS, fieldLabel } from '../../proctoring/labels.js';
import type { ExamSettingsDocument } from './document.js';

/**
 * The settings form, described once: every field with its path in the settings document (= the form
 * control's name), its kind, label and one sentence of help. The view renders from this list and the
 * page's script maps controls back to the document by `data-kind`.
 */
export type FieldKind =
  | 'boolean' // checkbox
  | 'choice' // radio group of integer values
  | 'weight' // select: service default or 0–5
  | 'integer' // number input, blank = omitted
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

function choices(path: string): Array<{ value: number; label: string }> {
  const labels = CHOICE_LABELS[path] ?? {};
  return Object.entries(labels).map(([value, label]) => ({ value: Number(value), label }));
}

const EXAM_HELP: Record<string, string> = {
  record_video: 'Records the webcam for the whole exam; students need a webcam.',
  record_audio: 'Records the microphone for the whole exam; students need a microphone.',
  record_screen: 'Records the whole desktop screen for the whole exam.',
  record_web_traffic: 'Takes screenshots and notes the address of every site visited during the exam.',
  record_desk: 'Students show their desk and surroundings with the webcam; needs "Record video" and "Verify webcam".',
  live_proctor: 'A proctor may watch and step in during the exam; needs "Record video" and "Verify webcam".',
  verify_video: 'Checks before the exam that the webcam works and is not virtual or broken; needs "Record video".',
  verify_audio: 'Checks before the exam that the microphone works and is not virtual or muted; needs "Record audio".',
  verify_desktop: 'Checks before the exam that screen recording works; needs "Record screen".',
  verify_id: 'Students show a photo ID before the exam; a check by a person needs "Record video" and "Verify webcam".',
  verify_signature: 'Students sign an exam agreement before they start.',
  full_screen: 'Forces full screen and blocks other programs and sites, removing a student who stays away longer than the time chosen; needs "Close other tabs", "One screen only" and "No new tabs".',
  tabs: 'Whether students may open new tabs or windows during the exam.',
  close_tabs: 'All other tabs and windows must be closed before the exam starts.',
  one_screen: 'Only one monitor may be connected, before and during the exam.',
  disable_clipboard: 'Copy, cut and paste do not work during the exam.',
  disable_printing: 'Exam content cannot be printed.',
  block_downloads: 'The browser cannot download files during the exam.',
  disable_right_click: 'The right-click menu does not open during the exam.',
  disable_extensions: "Other browser extensions are turned off, except those your institution allows.",
  clear_cache: "Empties the computer's temporary files after the exam is submitted.",
  calculator: 'An on-screen calculator students may use.',
  whiteboard: 'An on-screen scratch pad with drawing tools.',
  mobile: 'Students may take the exam on a phone or tablet with the mobile exam app; needs a pre-authentication URL and cannot be combined with an ID check by a person.',
  advanced_program_detection: 'The companion app stops other programs from being used.',
  advanced_hardware_detection: 'The companion app logs hardware changes for the review center.',
  advanced_vm_detection: 'The companion app stops the exam from running in a virtual machine.',
  allowed_macos_apps: `macOS apps that may stay open while other programs are blocked: one bundle id per line (such as com.apple.calculator), at most ${LIMITS.allowedApps}.`,
  allowed_windows_apps: `Windows apps that may stay open while other programs are blocked: one per line as "file name | product name | company", at most ${LIMITS.allowedApps}.`,
  strict_apps_validation: 'How strictly the companion app checks that an allowed app is the real one.',
};

function examField(member: string): Field {
  const path = `exam_settings.${member}`;
  const help = EXAM_HELP[member] ?? '';
  if (member === 'allowed_macos_apps') return { path, kind: 'lines', label: fieldLabel(path), help };
  if (member === 'allowed_windows_apps') return { path, kind: 'windows-apps', label: fieldLabel(path), help };
  const list = choices(path);
  if (list.length > 0) return { path, kind: 'choice', label: fieldLabel(path), help, choices: list };
  return { path, kind: 'boolean', label: fieldLabel(path), help };
}

const METRIC_HELP: Record<string, string> = {
  navigating_away: 'the student leaves the exam page',
  keystrokes: 'the student types in the exam window',
  copy_paste: 'the student copies, cuts or pastes',
  browser_resize: 'the browser window changes size',
  audio_levels: 'noise rises above the room’s usual level',
  head_movement: 'the student looks away from the screen',
  multiple_faces: 'more than one person looks at the exam',
  leaving_room: 'no keyboard or mouse for 20–30 seconds and no clear face',
};

const HIGHLIGHT_HELP: Record<string, string> = {
  navigating_away: 'unusual use of other applications or materials',
  keystrokes: 'unusual keystroke counts',
  copy_paste: 'unusual copy and paste activity',
  browser_resize: 'unusual browser resizing',
  audio_levels: 'large changes in sound',
  head_movement: 'much more or less looking away than others',
  multiple_faces: 'an unusual number of faces',
  mouse_movement: 'unusually little mouse movement',
  scrolling: 'unusually little scrolling',
  clicking: 'unusually little clicking',
  exam_duration: 'much faster or slower completion than others',
  start_time: "an LMS start time that differs from the proctoring service's",
  end_time: "an LMS end time that differs from the proctoring service's",
  exam_collusion: 'exams taken at the same time on the same network',
};

export const SETTINGS_GROUPS: readonly FieldGroup[] = [
  {
    id: 'recording',
    legend: 'Recording',
    intro: 'What is recorded during the exam, for the review center.',
    fields: ['record_video', 'record_audio', 'record_screen', 'record_web_traffic', 'record_desk', 'live_proctor'].map(examField),
  },
  {
    id: 'verification',
    legend: 'Verification',
    intro: 'Checks students pass before the exam starts.',
    fields: ['verify_video', 'verify_audio', 'verify_desktop', 'verify_id', 'verify_signature'].map(examField),
  },
  {
    id: 'lockdown',
    legend: 'Lockdown',
    intro: 'What students cannot do during the exam.',
    fields: ['full_screen', 'tabs', 'close_tabs', 'one_screen', 'disable_clipboard', 'disable_printing', 'block_downloads', 'disable_right_click', 'disable_extensions', 'clear_cache'].map(examField),
  },
  {
    id: 'tools',
    legend: 'Tools and devices',
    intro: 'What students may use.',
    fields: ['calculator', 'whiteboard', 'mobile'].map(examField),
  },
  {
    id: 'advanced',
    legend: 'Advanced detection (companion app)',
    intro: 'These need the proctoring companion app on the student’s computer.',
    fields: ['advanced_program_detection', 'advanced_hardware_detection', 'advanced_vm_detection', 'allowed_macos_apps', 'allowed_windows_apps', 'strict_apps_validation'].map(examField),
  },
];

const WEIGHT_CHOICES = Array.from({ length: LIMITS.weight.max - LIMITS.weight.min + 1 }, (_, i) => ({
  value: LIMITS.weight.min + i,
  label: i === 0 ? '0 (never flag)' : i === LIMITS.weight.max ? `${i} (flag most readily)` : String(i),
}));

export const BEHAVIOR_FIELDS: { weights: Field[]; highlights: Field[] } = {
  weights: FRAME_METRICS.map((metric) => ({
    path: `behavior_settings.frame_metrics.${metric}`,
    kind: 'weight',
    label: fieldLabel(`behavior_settings.frame_metrics.${metric}`).replace(/^Weight: /, ''),
    help: `How readily to flag when ${METRIC_HELP[metric] ?? metric}.`,
    choices: WEIGHT_CHOICES,
  })),
  highlights: EXAM_METRICS.map((metric) => ({
    path: `behavior_settings.exam_metrics.${metric}`,
    kind: 'boolean',
    label: fieldLabel(`behavior_settings.exam_metrics.${metric}`).replace(/^Highlight: /, ''),
    help: `Highlights students with ${HIGHLIGHT_HELP[metric] ?? metric}, compared with the group.`,
  })),
};

const PROCTOR_HELP: Record<string, string> = {
  break_allowed: 'A proctor may give a student a break ("Give break").',
  desk_scan_allowed: 'A proctor may ask a student to scan their desk again ("Initiate Desk Scan").',
  interrupt_allowed: "A proctor may pause and resume a student's attempt.",
  kickout_allowed: 'A proctor may remove a student from the exam.',
};

export const PROCTOR_FIELDS: Field[] = PROCTOR_SETTINGS.map((member) => ({
  path: `proctor_settings.${member}`,
  kind: 'tristate',
  label: fieldLabel(`proctor_settings.${member}`),
  help: `${PROCTOR_HELP[member] ?? ''} Only after the proctor has claimed the student.`,
}));

export const BREAK_FIELDS: Field[] = [
  { path: 'break_settings.number', kind: 'integer', label: fieldLabel('break_settings.number'), help: `How many breaks a student may take, ${LIMITS.breakNumber.min} to ${LIMITS.breakNumber.max}.`, min: LIMITS.breakNumber.min, max: LIMITS.breakNumber.max },
  {
    path: 'break_settings.duration',
    kind: 'integer',
    label: fieldLabel('break_settings.duration'),
    help: `Length of a break, ${LIMITS.breakDuration.min} to ${LIMITS.breakDuration.max} (the service does not state the unit; minutes are most likely).`,
    min: LIMITS.breakDuration.min,
    max: LIMITS.breakDuration.max,
  },
  { path: 'break_settings.cumulative', kind: 'boolean', label: fieldLabel('break_settings.cumulative'), help: 'On: the duration is shared by all breaks. Off: each break may last that long.' },
  { path: 'break_settings.on_time_exceeded', kind: 'choice', label: fieldLabel('break_settings.on_time_exceeded'), help: 'What happens when a student is away longer than the break.', choices: choices('break_settings.on_time_exceeded') },
  { path: 'break_settings.desk_scan_after_break', kind: 'boolean', label: fieldLabel('break_settings.desk_scan_after_break'), help: 'Students scan their desk again when they come back.' },
];

export const PAGE_FIELDS: Field[] = [
  { path: 'launch_url', kind: 'text', inputType: 'url', label: fieldLabel('launch_url'), help: 'The first page students open: it must show the quiz start page without asking them to log in again.' },
  { path: 'exam_start', kind: 'text', label: fieldLabel('exam_start'), help: 'A regular expression that matches the quiz start page (and the launch URL). Pages before it are not proctored.' },
  { path: 'exam_take', kind: 'text', label: fieldLabel('exam_take'), help: 'A regular expression that matches every page of the quiz while students answer. Any other page counts as leaving the exam.' },
  { path: 'exam_end', kind: 'text', label: fieldLabel('exam_end'), help: 'A regular expression that matches the page shown after submitting. Reaching it ends proctoring as a normal submission.' },
];

export const OTHER_FIELDS: Field[] = [
  {
    path: 'expire',
    kind: 'integer',
    label: 'Link validity (seconds)',
    help: `How long the proctoring link a student receives stays valid, ${LIMITS.candidateExpire.min} to ${LIMITS.candidateExpire.max} seconds. Leave empty for the service default (${LIMITS.candidateExpire.default} seconds, 5 hours).`,
    min: LIMITS.candidateExpire.min,
    max: LIMITS.candidateExpire.max,
  },
  { path: 'pre_auth', kind: 'text', inputType: 'url', label: fieldLabel('pre_auth'), help: 'For the mobile exam app: the address where the app logs the student in to the LMS. Needed when mobile devices are allowed.' },
  { path: 'post_auth', kind: 'text', inputType: 'url', label: fieldLabel('post_auth'), help: 'For the mobile exam app: the page after login where the checks before the exam begin. Needs a pre-authentication URL.' },
  { path: 'pre_auth_bypass', kind: 'boolean', label: fieldLabel('pre_auth_bypass'), help: 'The mobile exam app skips pre-authentication.' },
];

/** Every field of the form, by path: the view and tests look fields up here. */
export function allFields(): Field[] {
  return [...PAGE_FIELDS, ...SETTINGS_GROUPS.flatMap((g) => g.fields), ...BEHAVIOR_FIELDS.weights, ...BEHAVIOR_FIELDS.highlights, ...PROCTOR_FIELDS, ...BREAK_FIELDS, ...OTHER_FIELDS];
}

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
 * The document as the form shows it: booleans for checkboxes, strings for everything else (blank when
 * absent), lists one item per line. The page's script does the reverse when saving.
 */
export function formValues(document: Partial<ExamSettingsDocument> | undefined): Record<string, FormValue> {
  const out: Record<string, FormValue> = {};
  for (const field of allFields()) {
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
      default:
        out[field.path] = value === undefined || value === null ? '' : String(value);
    }
  }
  out['tool.lms_preset'] = document?.tool?.lms_preset ?? '';
  out['tool.quiz_url'] = document?.tool?.quiz_url ?? '';
  out['tool.security_preset'] = document?.tool?.security_preset ?? '';
  out['tool.redirect'] = document?.tool?.redirect ?? 'lms';
  out['tool.redirect_url'] = document?.tool?.redirect_url ?? '';
  out.breaks_enabled = document?.break_settings !== undefined;
  out.take_post_message = document?.exam_take === POST_MESSAGE_NOTIFICATION;
  out.end_post_message = document?.exam_end === POST_MESSAGE_NOTIFICATION;
  return out;
}
