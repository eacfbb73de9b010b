import { z } from 'zod';
import type { Exam } from '../exams/store.js';
import type { Logger } from '../logger.js';
import { RosterError, type RosterBody, type RosterService } from './roster.js';

/** Why names cannot be shown (pages say so in the reader's language: `hub:names.<reason>`). */
export type NamesProblem = RosterError['code'] | 'names_hidden';

/** Whether names could be shown, and why not: pages show the reason in place of names. */
export type NamesStatus = { ok: true } | { ok: false; reason: NamesProblem };

export interface CourseNames {
  /** Pseudonymous user_id → name, staff included; absent when the roster could not be read. */
  names?: Map<string, string>;
  /** Pseudonymous ids of the course's staff (instructors, assistants, designers); absent with the names. */
  staff?: ReadonlySet<string>;
  /** The candidates among the names (the Launch API's roster): whom accommodations are for. */
  candidates?: ReadonlySet<string>;
  status: NamesStatus;
}

const DEFAULT_NAMES_TIMEOUT_MS = 5000;

class NamesTimeout extends Error {}

/**
 * The names of an exam's course, from its Names and Roles roster: the same cached roster the hosted roster
 * endpoint serves, read each time a page is built and never stored. Without a roster, pages show
 * pseudonymous ids and say why.
 */
/** The course of an exam, as the roster is found by it. */
export type ExamCourse = Pick<Exam, 'id' | 'issuer' | 'deploymentId' | 'contextId'>;

/** A roster body's `json`: [pseudonymous id, name] of every candidate. */
const rosterPairs = z.array(z.tuple([z.string(), z.string()]));

export function createCourseNames(deps: { roster: Pick<RosterService, 'get'>; sectionIdOf(exam: ExamCourse): string; logger: Logger; timeoutMs?: number }) {
  const parsed = new WeakMap<RosterBody, { names: Map<string, string>; candidates: Set<string> }>();

  function namesIn(body: RosterBody): { names: Map<string, string>; candidates: Set<string> } {
    let found = parsed.get(body);
    if (!found) {
      const pairs = rosterPairs.parse(JSON.parse(body.json));
      const names = new Map([...pairs, ...body.staffNames].filter(([, name]) => name !== ''));
      found = { names, candidates: new Set(pairs.map(([id]) => id)) };
      parsed.set(body, found);
    }
    return found;
  }

  /** `logger`: the log of the request the page is built for (default: the one given at creation). */
  return async function courseNames(exam: ExamCourse, logger: Logger = deps.logger): Promise<CourseNames> {
    const timeoutMs = deps.timeoutMs ?? DEFAULT_NAMES_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    try {
      const body = await Promise.race([
        deps.roster.get(deps.sectionIdOf(exam), logger),
        new Promise<never>((_resolve, reject) => {
          timer = setTimeout(() => reject(new NamesTimeout()), timeoutMs);
        }),
      ]);
      const { names, candidates } = namesIn(body);
      const known = { names, candidates, staff: new Set(body.staff ?? []) };
      if (body.members + body.staffNames.length > 0 && names.size === 0) {
        return { ...known, status: { ok: false, reason: 'names_hidden' } };
      }
      return { ...known, status: { ok: true } };
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
