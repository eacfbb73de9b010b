// Read-only descriptions for the hub: the exam's settings in an instructor's words, and attempt outcomes.
import { CHOICE_LABELS, fieldLabel } from '../proctoring/labels.js';
import { BREAK_DURATION_UNIT } from '../proctoring/exam-settings.js';
import type { ExamSettingsDocument } from '../exams/settings/document.js';
import type { InvalidSettings } from '../exams/store.js';
import { redirectOf } from './requests.js';

export interface SummaryRow {
  label: string;
  value: string;
}

function describe(path: string, value: unknown): string {
  if (typeof value === 'boolean') return value ? 'On' : 'Off';
  if (typeof value === 'number') return CHOICE_LABELS[path]?.[value] ?? String(value);
  if (Array.isArray(value)) return value.length === 0 ? 'None' : value.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))).join(', ');
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? '';
}

/** The exam's settings as label/value rows; exam_settings members that are off are left out, to keep it short. */
export function settingsSummary(config: ExamSettingsDocument): SummaryRow[] {
  const rows: SummaryRow[] = [
    { label: fieldLabel('launch_url'), value: config.launch_url },
    { label: fieldLabel('exam_start'), value: config.exam_start },
    { label: fieldLabel('exam_take'), value: config.exam_take },
    { label: fieldLabel('exam_end'), value: config.exam_end },
  ];
  const on = Object.entries(config.exam_settings).filter(
    ([, value]) => value !== false && value !== 0 && !(Array.isArray(value) && value.length === 0),
  );
  for (const [member, value] of on) {
    rows.push({ label: fieldLabel(`exam_settings.${member}`), value: describe(`exam_settings.${member}`, value) });
  }
  if (on.length === 0) rows.push({ label: 'Exam settings', value: 'Every proctoring option is off' });
  if (config.break_settings) {
    const { number, duration } = config.break_settings;
    rows.push({ label: fieldLabel('break_settings'), value: `${number} × ${duration} ${BREAK_DURATION_UNIT}` });
  }
  if (config.expire !== undefined) rows.push({ label: fieldLabel('expire'), value: String(config.expire) });
  const redirect = redirectOf(config);
  rows.push({
    label: 'After the exam',
    value: redirect.mode === 'message' ? 'A "you may close this window" page' : redirect.mode === 'url' ? (redirect.url ?? 'A web address') : 'Back to the course',
  });
  return rows;
}

/** A stored document that no longer passes: what needs the instructor's attention. */
export function invalidSettingsSummary(invalid: InvalidSettings | undefined): SummaryRow[] {
  if (!invalid) return [];
  return [{ label: 'Exam settings', value: `Need attention before students can start: ${invalid.violations.map((v) => v.message).join(' ')}` }];
}

/** What a launch log entry's outcome can be; the hub names each in the user's language (`hub:launches.outcomes`). */
export const LAUNCH_OUTCOMES: readonly string[] = ['redirected', 'shown', 'refused', 'upstream_error'];

/** A pseudonymous id shortened for a table (enough to tell people apart, never a name). */
export function shortId(id: string): string {
  return id.slice(0, 8);
}
