import type { Exam } from '../exams/store.js';
import type { Logger } from '../logger.js';
import { RosterError, type RosterBody, type RosterService } from './roster.js';

/** Why names cannot be shown (pages say so in the reader's language: `hub:names.<reason>`). */
export type NamesProblem = RosterError['code'] | 'names_hidden';

/** Whether names could be shown, and why not: pages show the reason in place of names. */
export type NamesStatus = { ok: true } | { ok: false; reason: NamesProblem };

export interface CourseNames {
  /** Pseudonymous user_id → name; absent when the roster could not be read. */
  names?: Map<string, string>;
  /** Pseudonymous ids of the course's staff (instructors, assistants, designers); absent with the names. */
  staff?: ReadonlySet<string>;
  status: NamesStatus;
}

const DEFAULT_NAMES_TIMEOUT_MS = 5000;

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

  /** `logger`: the log of the request the page is built for (default: the one given at creation). */
  return async function courseNames(exam: Exam, logger: Logger = deps.logger): Promise<CourseNames> {
    const timeoutMs = deps.timeoutMs ?? DEFAULT_NAMES_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    try {
      const body = await Promise.race([
        deps.roster.get(deps.sectionIdOf(exam), logger),
        new Promise<never>((_resolve, reject) => {
          timer = setTimeout(() => reject(new NamesTimeout()), timeoutMs);
        }),
      ]);
      const found = namesIn(body);
      const staff = new Set(body.staff ?? []);
      if (body.members > 0 && found.size === 0) {
        return { names: found, staff, status: { ok: false, reason: 'names_hidden' } };
      }
      return { names: found, staff, status: { ok: true } };
    } catch (error) {
      if (error instanceof RosterError) return { status: { ok: false, reason: error.code } };
      if (error instanceof NamesTimeout) return { status: { ok: false, reason: 'roster_timeout' } };
      logger.warn({ err: error, examId: exam.id }, 'names of the course could not be read');
      return { status: { ok: false, reason: 'roster_unavailable' } };
    } finally {
      clearTimeout(timer);
    }
  };
}

export type CourseNamesSource = ReturnType<typeof createCourseNames>;
