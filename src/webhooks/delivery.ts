/**
 * A suspicion-calculation notification read into the tool's terms. Deliveries are never refused for
 * their content: whatever is missing or odd is tolerated and named in `problems`, and the data is kept
 * whole (unknown fields included). Shapes (as public integrations of the Launch API show):
 * version 2 `data` is `{id, attempt_id, suspicion}`; version 3 adds `user_id`,
 * `submission_data: {date, code, message, description}` and `flags` (percentages).
 */
export type DeliveryVersion = '2' | '3';

export interface SuspicionResult {
  /** Which shape the data has: version 3 when it carries any of user_id, submission_data or flags. */
  version: DeliveryVersion;
  externalId?: string;
  attemptRef?: string;
  userRef?: string;
  /** Not in the documented shapes; used for matching when a service sends it. */
  examTag?: string;
  /** Percentage, 0–100. */
  suspicion?: number;
  flags: Record<string, number>;
  submissionCode?: number;
  submissionMessage?: string;
  submissionDescription?: string;
  submittedAt?: Date;
  problems: string[];
}

const KNOWN_DATA_FIELDS = new Set(['id', 'attempt_id', 'suspicion', 'user_id', 'submission_data', 'flags', 'exam_tag']);
const MAX_TEXT = 1000;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A number, or a string holding one ("27", "27%"). */
function numberOf(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && value.trim() !== '') {
    const parsed = Number(value.trim().replace(/%$/, ''));
    return Number.isFinite(parsed) ? parsed : undefined;
  }
  return undefined;
}

/** An identifier sent as a string or a number; text is cut to a sane length. */
function idOf(value: unknown): string | undefined {
  if (typeof value === 'string' && value.length > 0) return value.slice(0, 200);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value.slice(0, MAX_TEXT) : undefined;
}

/** Epoch seconds (or milliseconds, when the number is too large to be seconds), or an ISO date text. */
function dateOf(value: unknown): Date | undefined {
  const number = numberOf(value);
  if (number !== undefined) {
    const date = new Date(number > 1e11 ? number : number * 1000);
    return Number.isNaN(date.getTime()) ? undefined : date;
  }
  if (typeof value === 'string') {
    const date = new Date(value);
    return Number.isNaN(date.getTime()) ? undefined : date;
  }
  return undefined;
}

/** Flags as `{name: percentage}`; an array of `{name|type, value|percentage}` is read too. */
function flagsOf(value: unknown, problems: string[]): Record<string, number> {
  const flags: Record<string, number> = {};
  const entries: Array<[string, unknown]> = isRecord(value)
    ? Object.entries(value)
    : Array.isArray(value)
      ? value.filter(isRecord).map((item): [string, unknown] => [String(item.name ?? item.type ?? ''), item.value ?? item.percentage])
      : [];
  if (value !== undefined && !isRecord(value) && !Array.isArray(value)) problems.push('flags_not_an_object');
  for (const [name, raw] of entries) {
    const number = numberOf(raw);
    if (name === '' || number === undefined) {
      problems.push(`flag_not_a_number:${name.slice(0, 50)}`);
      continue;
    }
    flags[name.slice(0, 100)] = number;
  }
  return flags;
}

/** Reads `data` (any JSON value) of a delivery to a subscription of `subscribedVersion`. */
export function readSuspicionResult(data: unknown, subscribedVersion: DeliveryVersion): SuspicionResult {
  const problems: string[] = [];
  if (!isRecord(data)) {
    return { version: subscribedVersion, flags: {}, problems: ['data_not_an_object'] };
  }
  const looksV3 = 'user_id' in data || 'submission_data' in data || 'flags' in data;
  const version: DeliveryVersion = looksV3 ? '3' : '2';
  if (version !== subscribedVersion) problems.push(`version_${version}_data_on_version_${subscribedVersion}_subscription`);

  const externalId = idOf(data.id);
  if (!externalId) problems.push('missing_id');
  const attemptRef = idOf(data.attempt_id);
  if (!attemptRef) problems.push('missing_attempt_id');
  let suspicion = numberOf(data.suspicion);
  if (data.suspicion === undefined || data.suspicion === null) problems.push('missing_suspicion');
  else if (suspicion === undefined) problems.push('suspicion_not_a_number');
  else if (suspicion < 0 || suspicion > 100) {
    problems.push('suspicion_out_of_range');
    suspicion = Math.min(100, Math.max(0, suspicion));
  }

  const result: SuspicionResult = { version, externalId, attemptRef, suspicion, flags: {}, problems };
  result.userRef = idOf(data.user_id);
  result.examTag = idOf(data.exam_tag);
  if (version === '3' || subscribedVersion === '3') {
    if (!result.userRef) problems.push('missing_user_id');
    result.flags = flagsOf(data.flags, problems);
    if (data.flags === undefined) problems.push('missing_flags');
    const submission = data.submission_data;
    if (isRecord(submission)) {
      result.submissionCode = numberOf(submission.code);
      if (submission.code !== undefined && result.submissionCode === undefined) problems.push('submission_code_not_a_number');
      result.submissionMessage = textOf(submission.message);
      result.submissionDescription = textOf(submission.description);
      result.submittedAt = dateOf(submission.date);
      if (submission.date !== undefined && !result.submittedAt) problems.push('submission_date_invalid');
    } else {
      problems.push(submission === undefined ? 'missing_submission_data' : 'submission_data_not_an_object');
    }
  }
  const unknown = Object.keys(data).filter((key) => !KNOWN_DATA_FIELDS.has(key));
  if (unknown.length > 0) problems.push(`extra_fields:${unknown.slice(0, 10).join(',').slice(0, 200)}`);
  return result;
}

/**
 * The submission codes public integrations name, in words. Other codes show the service's own message,
 * or the bare number.
 */
export const SUBMISSION_CODES: Readonly<Record<number, string>> = {
  1: 'Submitted',
  5: 'Screen recording ended',
};

export function submissionInWords(code: number | undefined, message: string | undefined): string | undefined {
  if (code !== undefined && SUBMISSION_CODES[code]) return SUBMISSION_CODES[code];
  if (message) return code === undefined ? message : `${message} (code ${code})`;
  return code === undefined ? undefined : `Code ${code}`;
}

/** The v3 flags in an instructor's words (the names public integrations list); other names are shown as sent. */
export const FLAG_LABELS: Readonly<Record<string, string>> = {
  unfocus: 'Left the exam window',
  clipboard: 'Clipboard use',
  browser_resize: 'Browser resized',
  multiple_faces: 'Multiple faces',
  leaving_exam_area: 'Left the exam area',
  speaking: 'Speaking',
  ai: 'AI use',
  printing: 'Printing',
  screenshot: 'Screenshot',
  hardware_change: 'Hardware change',
  external_action: 'External action',
  webcam_obscured: 'Webcam obscured',
  mobile_phone_detected: 'Mobile phone detected',
};

export function flagLabel(name: string): string {
  return FLAG_LABELS[name] ?? name.replace(/[_-]+/g, ' ').replace(/^\w/, (c) => c.toUpperCase());
}
