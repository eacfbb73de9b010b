import { stringify } from 'csv-stringify/sync';
import type { AttemptStatus } from '../exams/attempts.js';
import { ATTEMPT_FLAGS } from '../exams/tool-settings/registry.js';
import { flagLabel } from './delivery.js';
import type { AttemptResultRow } from './results.js';

/** Why a row has no name (the CSV stays English, as its column names). */
const NAME_NOTES: Readonly<Record<NonNullable<AttemptResultRow['nameMissing']>, string>> = {
  not_in_roster: 'Not in the course roster (an LMS test user, or no longer enrolled)',
  names_hidden: 'The LMS hides names from the tool (its privacy settings)',
  no_names_and_roles: 'The LMS does not share the course roster (Names and Roles) with the tool',
  unknown_course: 'The tool has not recorded this course yet',
  roster_unavailable: 'The course roster could not be read just now',
  roster_timeout: 'The LMS did not send the course roster in time',
};

const OUTCOMES: Readonly<Record<AttemptStatus, string>> = { started: 'In progress', submitted: 'Submitted', ended: 'Ended without submitting', abandoned: 'Abandoned' };

/**
 * Spreadsheets run a cell that starts with = + - @ (or a tab or carriage return before one) as a formula:
 * such text gets a leading apostrophe, which shows it as text (OWASP "CSV injection"). Spreadsheets set up for
 * German, French and other languages whose decimal comma takes the comma split a CSV file on `;`: there each
 * part after a `;` starts a cell of its own, so a formula character after one gets its apostrophe too (and
 * `resultsCsv` quotes every value with a `;`, which keeps it one cell). The same holds for the line after a line break.
 */
export function neutraliseFormula(value: string): string {
  // Not at the very start: a value starting with a carriage return gets the leading apostrophe below.
  const parts = value.replace(/(?!^)([;\n\r])([ ]*)(?=[=+\-@\t\r])/g, "$1$2'");
  return /^[=+\-@\t\r]/.test(parts) ? `'${parts}` : parts;
}

/**
 * Values with a `;` (or a tab) are quoted: one cell whichever separator the spreadsheet splits on. So are values
 * with a line break, which spreadsheets take for the end of a row outside quotes (csv-stringify quotes only CRLF).
 */
const QUOTED = /[;\t\r\n]/;

const iso = (date: Date | undefined) => (date ? date.toISOString() : '');

/** The exam's attempts with names, outcome, suspicion and one column per flag that occurs, as CSV (RFC 4180, UTF-8 BOM for spreadsheets). */
export function resultsCsv(rows: readonly AttemptResultRow[]): string {
  const flagNames = [...new Set(rows.flatMap((row) => row.result?.flags.map((flag) => flag.name) ?? []))].sort();
  const header = ['Name', 'Name note', 'Pseudonymous id', 'Test student', ...ATTEMPT_FLAGS.map((flag) => flag.csvHeader), 'Exempt from proctoring', 'Started (UTC)', 'Ended (UTC)', 'Outcome', 'Suspicion (%)', ...flagNames.map((name) => `${flagLabel(name)} (%)`), 'Submission', 'Result received (UTC)'];
  const records = rows.map((row) => {
    const flags = new Map(row.result?.flags.map((flag) => [flag.name, flag.percent]));
    return [
      row.name ?? '',
      row.nameMissing ? NAME_NOTES[row.nameMissing] : '',
      row.attempt.userId,
      row.test ? 'yes' : 'no',
      ...ATTEMPT_FLAGS.map((flag) => (row.attempt[flag.property] ? 'yes' : 'no')),
      row.attempt.exempt ? 'yes' : 'no',
      iso(row.attempt.startedAt),
      iso(row.attempt.endedAt),
      OUTCOMES[row.outcome],
      row.result?.suspicion === undefined ? '' : String(row.result.suspicion),
      ...flagNames.map((name) => (flags.has(name) ? String(flags.get(name)) : row.result ? '0' : '')),
      row.result?.submission ?? '',
      iso(row.result?.receivedAt),
    ].map(neutraliseFormula);
  });
  return `\uFEFF${stringify([header.map(neutraliseFormula), ...records], { record_delimiter: 'windows', quoted_match: QUOTED })}`;
}
