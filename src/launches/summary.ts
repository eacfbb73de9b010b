// Read-only descriptions for the hub: the exam's settings in an instructor's words, and attempt outcomes.
import { CHOICE_LABELS, fieldLabel } from '../proctoring/labels.js';
import type { AttemptStatus } from '../exams/attempts.js';
import type { ExamConfig } from './fields.js';

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
export function settingsSummary(config: ExamConfig): SummaryRow[] {
  const rows: SummaryRow[] = [
    { label: fieldLabel('launch_url'), value: config.launch_url },
    { label: fieldLabel('exam_start'), value: config.exam_start },
    { label: fieldLabel('exam_take'), value: config.exam_take },
    { label: fieldLabel('exam_end'), value: config.exam_end },
  ];
  const on = Object.entries(config.exam_settings as Record<string, unknown>).filter(
    ([, value]) => value !== false && value !== 0 && !(Array.isArray(value) && value.length === 0),
  );
  for (const [member, value] of on) {
    rows.push({ label: fieldLabel(`exam_settings.${member}`), value: describe(`exam_settings.${member}`, value) });
  }
  if (on.length === 0) rows.push({ label: 'Exam settings', value: 'Every proctoring option is off' });
  if (config.break_settings) {
    rows.push({ label: 'Breaks', value: `${config.break_settings.number} × ${config.break_settings.duration}` });
  }
  if (config.expire !== undefined) rows.push({ label: fieldLabel('expire'), value: String(config.expire) });
  rows.push({
    label: 'After the exam',
    value: config.redirect === 'message' ? 'A "you may close this window" page' : config.redirect === 'url' ? (config.redirectUrl ?? 'A web address') : 'Back to the course',
  });
  return rows;
}

export const ATTEMPT_OUTCOME_LABELS: Readonly<Record<AttemptStatus, string>> = {
  started: 'In progress',
  submitted: 'Submitted',
  ended: 'Ended without submitting',
};

export const LAUNCH_OUTCOME_LABELS: Readonly<Record<string, string>> = {
  redirected: 'Sent to the proctoring service',
  shown: 'Page shown',
  refused: 'Refused',
  upstream_error: 'Proctoring service failed',
};

/** A pseudonymous id shortened for a table (enough to tell people apart, never a name). */
export function shortId(id: string): string {
  return id.slice(0, 8);
}
