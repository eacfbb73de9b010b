import type { Exam } from '../exams/store.js';
import type { Logger } from '../logger.js';
import { RosterError, type RosterBody, type RosterService } from './roster.js';

/** Whether names could be shown, and why not: pages show the reason in place of names. */
export type NamesStatus = { ok: true } | { ok: false; reason: string };

export interface CourseNames {
  /** Pseudonymous user_id → name; absent when the roster could not be read. */
  names?: Map<string, string>;
  status: NamesStatus;
}

const DEFAULT_NAMES_TIMEOUT_MS = 5000;

const NAME_PROBLEMS: Readonly<Record<RosterError['code'], string>> = {
  unknown_course: 'Names are not shown: the tool has not recorded this course yet (it does at the next launch from it).',
  no_names_and_roles: 'Names are not shown: the LMS does not share the course membership (Names and Roles) with the tool.',
  roster_unavailable: 'Names are not shown: the course roster could not be read from the LMS just now.',
  roster_timeout: 'Names are not shown: the LMS did not send the course roster in time.',
};

class NamesTimeout extends Error {}

/**
 * The names of an exam's course, from its Names and Roles roster: the same cached roster the hosted roster
 * endpoint serves, read each time a page is built and never stored. Without a roster, pages show
 * pseudonymous ids and say why.
 */
export function createCourseNames(deps: { roster: Pick<RosterService, 'get'>; sectionIdOf(exam: Exam): string; logger: Logger; timeoutMs?: number }) {
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

  return async function courseNames(exam: Exam): Promise<CourseNames> {
    const timeoutMs = deps.timeoutMs ?? DEFAULT_NAMES_TIMEOUT_MS;
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
      deps.logger.warn({ err: error, examId: exam.id }, 'names of the course could not be read');
      return { status: { ok: false, reason: NAME_PROBLEMS.roster_unavailable } };
    } finally {
      clearTimeout(timer);
    }
  };
}

export type CourseNamesSource = ReturnType<typeof createCourseNames>;
