// Read-only descriptions for the hub: the exam's settings in the reader's words, and attempt outcomes.
import type { Translate } from '../proctoring/labels.js';
import { translator } from '../i18n/translator.js';
import type { ExamSettingsDocument } from '../exams/settings/document.js';
import { changeLabel, valueInWords } from '../exams/settings/history.js';
import { durationInWords } from '../exams/settings/durations.js';
import type { InvalidSettings } from '../exams/store.js';
import { localizeViolation } from '../exams/settings/violations.js';
import { redirectOf } from './requests.js';
import type { LaunchEndpoint } from './service.js';

export interface SummaryRow {
  label: string;
  value: string;
  /** An address or a pattern: read left to right in every language. */
  ltr?: boolean;
}

export interface SettingsSummary {
  /** What an instructor checks at a glance: the quiz, how many options are on, breaks, link validity, after the exam. */
  short: SummaryRow[];
  /** Every setting that is set: the pages, each option that is on, breaks, link validity, after the exam. */
  all: SummaryRow[];
}

function afterTheExam(config: ExamSettingsDocument, t: Translate): SummaryRow {
  const redirect = redirectOf(config);
  const label = t('hub:summary.after');
  if (redirect.mode === 'url' && redirect.url) return { label, value: redirect.url, ltr: true };
  return { label, value: valueInWords('tool.redirect', redirect.mode, t) };
}

/** The exam's settings as label/value rows in the reader's words; exam_settings members that are off are left out. */
export function settingsSummary(config: ExamSettingsDocument, t: Translate = translator('en').t): SettingsSummary {
  const on = Object.entries(config.exam_settings).filter(([, value]) => value !== false && value !== 0 && !(Array.isArray(value) && value.length === 0));
  const breaks: SummaryRow = {
    label: changeLabel('break_settings', t),
    value: config.break_settings ? t('accommodations:editor.breaksValue', { number: config.break_settings.number, duration: config.break_settings.duration }) : t('accommodations:editor.noBreaks'),
  };
  const validity: SummaryRow = {
    label: t('hub:summary.linkValidity'),
    value: config.expire === undefined ? t('hub:summary.serviceDefault') : durationInWords(t, config.expire),
  };
  const short: SummaryRow[] = [
    { label: t('hub:summary.quiz'), value: config.launch_url, ltr: true },
    { label: t('hub:summary.proctoring'), value: t('hub:summary.optionsOn', { count: on.length }) },
    breaks,
    validity,
    afterTheExam(config, t),
  ];
  const all: SummaryRow[] = [
    ...(['launch_url', 'exam_start', 'exam_take', 'exam_end'] as const).map((path) => ({ label: changeLabel(path, t), value: config[path], ltr: true })),
    ...on.map(([member, value]) => {
      const path = `exam_settings.${member}`;
      return { label: changeLabel(path, t), value: valueInWords(path, value, t), ...(Array.isArray(value) ? { ltr: true } : {}) };
    }),
    ...(on.length === 0 ? [{ label: t('hub:summary.proctoring'), value: t('hub:summary.optionsOn', { count: 0 }) }] : []),
    breaks,
    validity,
    afterTheExam(config, t),
  ];
  return { short, all };
}

/** A stored document that no longer passes: what needs the instructor's attention. */
export function invalidSettingsSummary(invalid: InvalidSettings | undefined, t: Translate = translator('en').t): SummaryRow[] {
  if (!invalid) return [];
  return [{ label: t('hub:summary.proctoring'), value: t('hub:summary.needsAttention', { problems: invalid.violations.map((v) => localizeViolation(t, v).message).join(' ') }) }];
}

/** What a launch log entry's outcome can be; the hub names each in the user's language (`hub:launches.outcomes`). */
export const LAUNCH_OUTCOMES: readonly string[] = ['redirected', 'shown', 'refused', 'upstream_error'];

/** The roles a launch log entry records (the role decision's kind), named in the reader's language (`hub:launches.roles`). */
export const LAUNCH_ROLES: readonly string[] = ['candidate', 'instructor', 'proctor', 'none'];

/** The Launch API endpoints a launch log entry records, named in the reader's language (`hub:launches.endpoints`). */
export const LAUNCH_ENDPOINTS: readonly string[] = ['candidate', 'reviewer', 'live', 'launchpad', 'hub', 'exam-list', 'settings'] satisfies readonly LaunchEndpoint[];

/** A pseudonymous id shortened for a table (enough to tell people apart, never a name). */
export function shortId(id: string): string {
  return id.slice(0, 8);
}
