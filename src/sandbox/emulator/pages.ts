import { EXAM_SETTING_GROUPS, EXAM_SETTING_ROWS, MEMBER_SECTIONS, memberNames, type ExamSettingRow, type MemberSection } from '../../proctoring/exam-settings.js';
import { CHOICE_LABELS, FIELD_LABELS } from '../../proctoring/labels.js';
import { english } from '../../proctoring/english.js';
import { POST_MESSAGE_NOTIFICATION, type BehaviorSettings, type BreakSettings, type ExamSettings, type ProctorSettings } from '../../proctoring/contract.js';
import { patternMatches } from '../../proctoring/patterns.js';
import type { Session } from './sessions.js';
import { isRecord } from '../../values.js';

/** View models of the emulator's pages: everything the templates show, already in words. */
export interface Row {
  field: string;
  label: string;
  value: string;
  /** True for a setting that is on, to highlight it. */
  on?: boolean;
}

export interface Group {
  title: string;
  rows: Row[];
}

const label = (path: string) => FIELD_LABELS[path] ?? path;

function describe(path: string, value: unknown): { value: string; on?: boolean } {
  if (value === undefined) return { value: 'not sent' };
  if (typeof value === 'boolean') return { value: value ? 'On' : 'Off', on: value };
  if (typeof value === 'number') {
    const choice = CHOICE_LABELS[path]?.[value];
    return { value: choice ? `${choice} (${value})` : String(value), on: value > 0 };
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return { value: 'None' };
    return { value: value.map((item: unknown) => (typeof item === 'string' ? item : isRecord(item) ? Object.values(item).join(' · ') : String(item))).join(', '), on: true };
  }
  return { value: String(value) };
}

function rows(prefix: string, object: Readonly<Record<string, unknown>> | undefined, members: readonly string[]): Row[] {
  return members.map((member) => {
    const path = prefix ? `${prefix}.${member}` : member;
    return { field: path, label: label(path), ...describe(path, object?.[member]) };
  });
}

export function examSettingGroups(settings: ExamSettings | undefined): Group[] {
  return EXAM_SETTING_GROUPS.map((id) => ({
    title: english(`settings:groups.${id}.legend`),
    rows: rows('exam_settings', settings, EXAM_SETTING_ROWS.filter((row: ExamSettingRow) => row.group === id).map((row) => row.name)),
  }));
}

/** The checks a candidate would go through before the exam, in the order the service runs them. */
export function prechecks(settings: ExamSettings): string[] {
  const steps: string[] = [];
  if (settings.verify_video) steps.push('Webcam check');
  if (settings.verify_audio) steps.push('Microphone check');
  if (settings.verify_desktop) steps.push('Screen-recording check');
  if (settings.verify_id === 1) steps.push('Photo ID, scanned automatically');
  if (settings.verify_id === 2) steps.push('Photo ID, reviewed by a person');
  if (settings.record_desk > 0) steps.push('Desk scan');
  if (settings.close_tabs) steps.push('Close other tabs and windows');
  if (settings.one_screen) steps.push('Disconnect extra monitors');
  if (settings.verify_signature) steps.push('Sign the exam agreement');
  return steps;
}

/** One object of the member-settings table (proctoring/exam-settings.ts); `sentOnly` leaves out the members not sent. */
export function memberGroup(section: MemberSection, object: Readonly<Record<string, unknown>> | undefined, sentOnly: boolean): Group {
  const all = rows(MEMBER_SECTIONS[section].path, object, memberNames(section));
  return { title: english(`settings:sections.${section}.title`), rows: sentOnly ? present(all) : all };
}

function behaviorGroups(behavior: BehaviorSettings | undefined): Group[] {
  if (!behavior) return [];
  const groups: Group[] = [];
  if (behavior.frame_metrics) groups.push(memberGroup('frame_metrics', behavior.frame_metrics, true));
  if (behavior.exam_metrics) groups.push(memberGroup('exam_metrics', behavior.exam_metrics, true));
  return groups;
}

function proctorGroup(settings: ProctorSettings | undefined): Group[] {
  return settings ? [memberGroup('proctor_settings', settings, false)] : [];
}

function breakRows(settings: BreakSettings | undefined): Row[] {
  return settings ? memberGroup('break_settings', settings, false).rows : [];
}

function present(rowsIn: Row[]): Row[] {
  return rowsIn.filter((row) => row.value !== 'not sent');
}

function patternRow(field: 'exam_start' | 'exam_take' | 'exam_end', pattern: string, launchUrl: string): Row & { matchesLaunchUrl?: boolean } {
  if (pattern === POST_MESSAGE_NOTIFICATION) return { field, label: label(field), value: `${pattern} (the exam page posts its state)` };
  // Only exam_start is checked against the launch URL, and never with a backtracking engine.
  if (field !== 'exam_start') return { field, label: label(field), value: pattern };
  return { field, label: label(field), value: pattern, matchesLaunchUrl: patternMatches(pattern, launchUrl) ?? false };
}

export interface EndAction {
  url?: string;
  /** Which field the URL came from. */
  source?: string;
}

const time = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');

/** Everything the candidate page shows. */
export function candidateView(session: Extract<Session, { kind: 'candidate' }>) {
  const body = session.body;
  const redirects = body.redirect_settings ?? {};
  const submit: EndAction = redirects.graceful_submission_url
    ? { url: redirects.graceful_submission_url, source: 'redirect_settings.graceful_submission_url' }
    : body.redirect_url
      ? { url: body.redirect_url, source: 'redirect_url (no graceful_submission_url was sent)' }
      : {};
  const leave: EndAction = redirects.ungraceful_submission_url
    ? { url: redirects.ungraceful_submission_url, source: 'redirect_settings.ungraceful_submission_url' }
    : body.redirect_url
      ? { url: body.redirect_url, source: 'redirect_url (no ungraceful_submission_url was sent)' }
      : {};
  return {
    facts: present([
      { field: 'user_id', label: label('user_id'), value: body.user_id },
      { field: 'display_name', label: label('display_name'), value: body.display_name ?? 'not sent' },
      { field: 'attempt_id', label: label('attempt_id'), value: body.attempt_id ?? 'not sent' },
      { field: 'exam_tag', label: label('exam_tag'), value: body.exam_tag ?? 'not sent: the platform must add #tag to the URL itself' },
      { field: 'section_id', label: label('section_id'), value: body.section_id ?? 'not sent' },
      { field: 'domain', label: label('domain'), value: body.domain ?? 'not sent' },
      { field: 'expire', label: 'Link valid until', value: `${time(session.expiresAt)} (${body.expire ?? 18000} s after it was made)` },
    ]),
    launchUrl: body.launch_url,
    patterns: [patternRow('exam_start', body.exam_start, body.launch_url), patternRow('exam_take', body.exam_take, body.launch_url), patternRow('exam_end', body.exam_end, body.launch_url)],
    prechecks: prechecks(body.exam_settings),
    settings: examSettingGroups(body.exam_settings),
    breaks: breakRows(body.break_settings),
    submit,
    leave,
    other: present(
      rows('', body, ['pre_auth', 'post_auth', 'pre_auth_bypass', 'extension_allowlist_url', 'roster_url']).concat(
        rows('branding', body.branding, ['primary_color', 'secondary_color', 'logo_url']),
      ),
    ),
    ended: session.ended,
  };
}

/** Everything the review center and live monitoring pages show. */
export function staffView(session: Extract<Session, { kind: 'reviewer' | 'live' }>) {
  const body = session.body;
  const examName = session.kind === 'live' ? session.body.exam_name : undefined;
  return {
    facts: present([
      { field: 'exam_name', label: label('exam_name'), value: examName ?? 'not sent' },
      { field: 'exam_tag', label: label('exam_tag'), value: body.exam_tag ?? 'not sent' },
      { field: 'section_id', label: label('section_id'), value: body.section_id ?? 'not sent' },
      { field: 'user_id', label: session.kind === 'live' ? 'Proctor (user id)' : 'Reviewer (user id)', value: body.user_id },
      { field: 'roster_url', label: label('roster_url'), value: body.roster_url ?? 'not sent: candidates will show as Unmatched' },
      { field: 'expire', label: 'Link valid until', value: `${time(session.expiresAt)} (${body.expire ?? 3600} s after it was made)` },
    ]),
    settings: [
      ...(session.kind === 'reviewer' ? examSettingGroups(session.body.exam_settings) : []),
      ...behaviorGroups(body.behavior_settings),
      ...(session.kind === 'live' ? proctorGroup(session.body.proctor_settings) : []),
    ],
  };
}

/** Everything the launchpad page shows. */
export function launchpadView(session: Extract<Session, { kind: 'launchpad' }>) {
  const body = session.body;
  return {
    facts: present([
      { field: 'user_id', label: 'Proctor (user id)', value: body.user_id },
      { field: 'exam_roster', label: label('exam_roster'), value: body.exam_roster },
      { field: 'roster_url', label: label('roster_url'), value: body.roster_url ?? 'not sent' },
      { field: 'expire', label: 'Link valid until', value: `${time(session.expiresAt)} (${body.expire ?? 3600} s after it was made)` },
    ]),
    settings: [...behaviorGroups(body.behavior_settings), ...proctorGroup(body.proctor_settings)],
  };
}

/** JSON for a `<script type="application/json">` block: `<` escaped so the data cannot close the element. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}
