import type { AttemptStore } from '../exams/attempts.js';
import type { Exam } from '../exams/store.js';
import { RosterError, type RosterBody, type RosterService } from '../hosted/roster.js';
import type { Logger } from '../logger.js';
import { buildExamResults, type ExamResults, type NamesStatus, type ResultsQuery } from './results.js';
import type { WebhookStore } from './store.js';

/** The hub lists at most this many attempts of one exam (the CSV too). */
export const MAX_ATTEMPTS_SHOWN = 2000;
const DEFAULT_NAMES_TIMEOUT_MS = 5000;

const NAME_PROBLEMS: Readonly<Record<RosterError['code'], string>> = {
  unknown_course: 'Names are not shown: the tool has not recorded this course yet (it does at the next launch from it).',
  no_names_and_roles: 'Names are not shown: the LMS does not share the course membership (Names and Roles) with the tool.',
  roster_unavailable: 'Names are not shown: the course roster could not be read from the LMS just now.',
  roster_timeout: 'Names are not shown: the LMS did not send the course roster in time.',
};

class NamesTimeout extends Error {}

/**
 * An exam's attempts with their suspicion results and the candidates' names. Names come from the course's
 * Names and Roles roster, the same cached roster the hosted roster endpoint serves, each time the page is
 * built; they are never stored. Without a roster, pseudonymous ids are shown and the page says why.
 */
export function createExamResults(deps: {
  attempts: Pick<AttemptStore, 'recent'>;
  store: Pick<WebhookStore, 'forExam'>;
  roster: Pick<RosterService, 'get'>;
  sectionIdOf(exam: Exam): string;
  logger: Logger;
  namesTimeoutMs?: number;
}) {
  const parsed = new WeakMap<RosterBody, Map<string, string>>();

  function namesIn(body: RosterBody): Map<string, string> {
    let names = parsed.get(body);
    if (!names) {
      const pairs = JSON.parse(body.json) as Array<[string, string]>;
      names = new Map(pairs.filter(([, name]) => name !== ''));
      parsed.set(body, names);
    }
    return names;
  }

  async function names(exam: Exam): Promise<{ names?: Map<string, string>; status: NamesStatus }> {
    const timeoutMs = deps.namesTimeoutMs ?? DEFAULT_NAMES_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    try {
      const body = await Promise.race([
        deps.roster.get(deps.sectionIdOf(exam)),
        new Promise<never>((_resolve, reject) => {
          timer = setTimeout(() => reject(new NamesTimeout()), timeoutMs);
        }),
      ]);
      const found = namesIn(body);
      if (body.members > 0 && found.size === 0) {
        return { names: found, status: { ok: false, reason: "Names are not shown: the LMS lists the course's members without names (its privacy settings hide them from the tool)." } };
      }
      return { names: found, status: { ok: true } };
    } catch (error) {
      if (error instanceof RosterError) return { status: { ok: false, reason: NAME_PROBLEMS[error.code] } };
      if (error instanceof NamesTimeout) return { status: { ok: false, reason: NAME_PROBLEMS.roster_timeout } };
      deps.logger.warn({ err: error, examId: exam.id }, 'names for the exam hub could not be read');
      return { status: { ok: false, reason: NAME_PROBLEMS.roster_unavailable } };
    } finally {
      clearTimeout(timer);
    }
  }

  return async function examResults(exam: Exam, query: ResultsQuery): Promise<ExamResults> {
    const [attempts, deliveries, roster] = await Promise.all([deps.attempts.recent(exam.id, MAX_ATTEMPTS_SHOWN), deps.store.forExam(exam.id), names(exam)]);
    return buildExamResults(attempts, deliveries, roster.names, roster.status, query);
  };
}

export type ExamResultsSource = ReturnType<typeof createExamResults>;
