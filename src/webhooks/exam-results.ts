import type { AttemptStore } from '../exams/attempts.js';
import type { Exam } from '../exams/store.js';
import type { CourseNamesSource } from '../hosted/course-names.js';
import type { Logger } from '../logger.js';
import { buildExamResults, type ExamResults, type ResultsQuery } from './results.js';
import type { WebhookStore } from './store.js';

/** The hub lists at most this many attempts of one exam (the CSV too). */
export const MAX_ATTEMPTS_SHOWN = 2000;

/**
 * An exam's attempts with their suspicion results and the candidates' names, resolved from the course's
 * roster each time the page is built (hosted/course-names.ts).
 */
export function createExamResults(deps: { attempts: Pick<AttemptStore, 'recent'>; store: Pick<WebhookStore, 'forExam'>; names: CourseNamesSource }) {
  /** `logger`: the log of the request the page is built for (reading the roster may log). */
  return async function examResults(exam: Exam, query: ResultsQuery, logger?: Logger): Promise<ExamResults> {
    const [attempts, deliveries, roster] = await Promise.all([deps.attempts.recent(exam.id, MAX_ATTEMPTS_SHOWN), deps.store.forExam(exam.id), deps.names(exam, logger)]);
    return buildExamResults(attempts, deliveries, roster.names, roster.status, query, roster.staff);
  };
}

export type ExamResultsSource = ReturnType<typeof createExamResults>;
