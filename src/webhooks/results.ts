import type { Attempt, AttemptStatus } from '../exams/attempts.js';
import { flagLabel, submissionInWords } from './delivery.js';
import type { DeliveryRecord } from './store.js';
import type { NamesProblem, NamesStatus } from '../hosted/course-names.js';

export type ResultsSort = 'recent' | 'suspicion';
export const MIN_SUSPICION_CHOICES = [25, 50, 75] as const;

/** Attempts of test users: shown with the others (marked), left out, or shown alone. */
export type TestsFilter = 'include' | 'exclude' | 'only';
export const TESTS_FILTERS: readonly TestsFilter[] = ['include', 'exclude', 'only'];

export interface ResultsQuery {
  sort: ResultsSort;
  /** Only attempts with a result at least this suspicious. */
  minSuspicion?: number;
  tests: TestsFilter;
}

export const DEFAULT_RESULTS_QUERY: ResultsQuery = { sort: 'recent', tests: 'include' };

/** Reads `sort`, `min` and `tests` from a query string, ignoring anything unexpected. */
export function resultsQueryOf(query: Record<string, unknown>): ResultsQuery {
  const sort: ResultsSort = query.sort === 'suspicion' ? 'suspicion' : 'recent';
  const min = Number(query.min);
  const tests = TESTS_FILTERS.find((filter) => filter === query.tests) ?? 'include';
  return { sort, minSuspicion: Array.from<number>(MIN_SUSPICION_CHOICES).includes(min) ? min : undefined, tests };
}

export interface FlagView {
  name: string;
  label: string;
  percent: number;
}

export interface ResultView {
  suspicion?: number;
  /** Non-zero flags, highest first. */
  flags: FlagView[];
  submission?: string;
  /** The service says the candidate submitted (submission code 1). */
  submitted: boolean;
  submissionDescription?: string;
  submittedAt?: Date;
  receivedAt: Date;
  problems: string[];
  /** How many results arrived for the attempt (recalculations); the newest is shown. */
  count: number;
}

export interface AttemptResultRow {
  attempt: Attempt;
  /** The one outcome shown for the attempt (hub and CSV): `outcomeOf`. */
  outcome: AttemptStatus;
  /** From the course roster when the page is built; never stored. */
  name?: string;
  /**
   * An attempt of a test user: `lms` when the LMS said so at launch (Canvas's Student View), `staff` when the course
   * roster lists the candidate as staff (a teacher who switched to the Student role in Moodle).
   */
  test?: 'lms' | 'staff';
  /** Why there is no name: the roster could not be read (the page says why once), or it does not list the candidate. */
  nameMissing?: NamesProblem | 'not_in_roster';
  result?: ResultView;
}

/** Whether names could be shown, and if not, why (for the page). */
export type { NamesStatus };

export interface ExamResults {
  rows: AttemptResultRow[];
  query: ResultsQuery;
  names: NamesStatus;
  totals: { attempts: number; withResult: number; shown: number };
}

/** The submission code of a graceful submission (delivery.ts SUBMISSION_CODES). */
const SUBMITTED_CODE = 1;

/**
 * What happened to the attempt, once: the return link the candidate came back through, unless the service's
 * result says the exam was submitted (the candidate may never have come back, or came back through another
 * window of the same attempt first). Never "Ended without submitting" beside a submission.
 */
export function outcomeOf(attempt: Pick<Attempt, 'status'>, result: Pick<ResultView, 'submitted'> | undefined): AttemptStatus {
  return result?.submitted ? 'submitted' : attempt.status;
}

function resultView(deliveries: DeliveryRecord[]): ResultView | undefined {
  const latest = deliveries[0];
  if (!latest) return undefined;
  return {
    suspicion: latest.suspicion,
    flags: Object.entries(latest.flags)
      .filter(([, percent]) => percent > 0)
      .map(([name, percent]) => ({ name, label: flagLabel(name), percent }))
      .sort((a, b) => b.percent - a.percent || a.label.localeCompare(b.label)),
    submission: submissionInWords(latest.submissionCode, latest.submissionMessage),
    submitted: latest.submissionCode === SUBMITTED_CODE,
    submissionDescription: latest.submissionDescription,
    submittedAt: latest.submittedAt,
    receivedAt: latest.receivedAt,
    problems: latest.problems,
    count: deliveries.length,
  };
}

/**
 * Each attempt with its newest result (deliveries come newest first: by submission time, then arrival)
 * and the candidate's name, sorted and filtered as asked.
 */
export function buildExamResults(
  attempts: readonly Attempt[],
  deliveries: readonly DeliveryRecord[],
  names: ReadonlyMap<string, string> | undefined,
  namesStatus: NamesStatus,
  query: ResultsQuery,
  staff: ReadonlySet<string> = new Set(),
): ExamResults {
  const byAttempt = new Map<string, DeliveryRecord[]>();
  for (const delivery of deliveries) {
    if (!delivery.attemptId) continue;
    const list = byAttempt.get(delivery.attemptId) ?? [];
    list.push(delivery);
    byAttempt.set(delivery.attemptId, list);
  }
  const all: AttemptResultRow[] = attempts.map((attempt) => {
    const result = resultView(byAttempt.get(attempt.id) ?? []);
    const test = attempt.isTest ? 'lms' : staff.has(attempt.userId) ? 'staff' : undefined;
    const name = names?.get(attempt.userId) || undefined;
    const nameMissing = name !== undefined ? undefined : namesStatus.ok ? 'not_in_roster' : namesStatus.reason;
    return { attempt, outcome: outcomeOf(attempt, result), name, nameMissing, test, result };
  });
  const min = query.minSuspicion;
  const shown = all.filter(
    (row) => (min === undefined || (row.result?.suspicion ?? -1) >= min) && (query.tests === 'include' || (query.tests === 'only') === (row.test !== undefined)),
  );
  const rows = [...shown].sort((a, b) =>
    query.sort === 'suspicion'
      ? (b.result?.suspicion ?? -1) - (a.result?.suspicion ?? -1) || b.attempt.startedAt.getTime() - a.attempt.startedAt.getTime()
      : b.attempt.startedAt.getTime() - a.attempt.startedAt.getTime(),
  );
  return { rows, query, names: namesStatus, totals: { attempts: all.length, withResult: all.filter((row) => row.result).length, shown: rows.length } };
}
