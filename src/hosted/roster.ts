import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { AppError, markLogged, type AnswerableError } from '../http/errors.js';
import type { Logger } from '../logger.js';
import type { NamesRolesMember } from '../lti/names-roles.js';
import { countRosterRequest, timeNamesRolesFetch } from '../metrics.js';
import type { ContextStore, LtiContextRecord } from './contexts.js';
import { buildRoster, isActive, type RosterPair } from './roster-build.js';
import { isCourseStaffRole, mapRoles } from '../lti/roles.js';
import { propertyOf } from '../values.js';

/** A course roster ready to send: the JSON text of its [id, name] pairs. */
export interface RosterBody {
  /** The candidates, as the Launch API's roster_url serves them. */
  json: string;
  /** Staff with their names: for pages (who changed what), never in `json`. */
  staffNames: readonly RosterPair[];
  members: number;
  unnamed: number;
  fetchedAt: Date;
  /** Active members the roster lists with a course staff role (never sent: the hub marks their learner attempts as tests). */
  staff?: readonly string[];
}

export type RosterErrorCode = 'unknown_course' | 'no_names_and_roles' | 'roster_timeout' | 'roster_unavailable';

const STATUS: Record<RosterErrorCode, number> = {
  unknown_course: 404,
  no_names_and_roles: 404,
  roster_unavailable: 502,
  roster_timeout: 504,
};

/**
 * A roster that cannot be served: never a partial one. `message` is safe for anyone holding the link. A failure
 * of the platform's service carries an incident id, sent with the answer and written with the cause to the log.
 */
export class RosterError extends Error implements AnswerableError {
  readonly status: number;
  readonly incidentId: string | undefined;
  constructor(
    readonly code: RosterErrorCode,
    message: string,
    options?: { cause?: unknown; incidentId?: string },
  ) {
    super(message, options);
    this.name = 'RosterError';
    this.status = STATUS[code];
    this.incidentId = options?.incidentId;
  }

  toAppError(): AppError {
    const appError = new AppError(this.status, this.code, 'Roster unavailable', this.message, { cause: this, incidentId: this.incidentId });
    // A failure with an incident id was logged with its cause by the roster service.
    return this.incidentId ? markLogged(appError) : appError;
  }
}

/** The Names and Roles failure kinds of src/lti/names-roles.ts, without importing the LTI layer's classes. */
function failureOf(error: unknown): string | undefined {
  const failure = propertyOf(error, 'failure');
  return typeof failure === 'string' ? failure : undefined;
}

export interface RosterServiceDeps {
  contexts: Pick<ContextStore, 'find' | 'noteRoster'>;
  /** LtiAdapter.members: every page of the context's membership. */
  members(platform: { issuer: string; clientId: string }, membershipsUrl: string, options: { signal: AbortSignal }): Promise<NamesRolesMember[]>;
  /** deriveUserId with the installation's pseudonym secret: the user_id launches send. */
  userIdOf(issuer: string, lmsUserId: string): string;
  /** The course's staff the tool knows of beyond the LMS's roles (institution/course-staff.ts). */
  knownStaff?(context: LtiContextRecord): Promise<ReadonlySet<string>>;
  cacheSeconds: number;
  fetchTimeoutMs: number;
  logger: Logger;
  /** Upper bound of the JSON text kept in memory across courses, in characters. */
  maxCachedChars?: number;
}

export interface RosterService {
  /**
   * The course's roster, from the cache or one Names and Roles fetch shared by all concurrent callers. `logger`:
   * the log of the request asking (a fetch it starts logs there; default: the service's logger).
   */
  get(sectionId: string, logger?: Logger): Promise<RosterBody>;
  /** Forgets cached rosters (tests, admin actions). */
  clear(): void;
  /** Forgets one course's cached roster: its staff changed. */
  forget(sectionId: string): void;
}

export function createRosterService(deps: RosterServiceDeps): RosterService {
  async function load(sectionId: string, signal: AbortSignal, logger: Logger): Promise<RosterBody> {
    const context = await deps.contexts.find(sectionId);
    if (!context) throw new RosterError('unknown_course', 'This roster link names a course the tool has not seen.');
    if (!context.membershipsUrl) {
      logger.warn(
        { issuer: context.issuer, contextId: context.contextId, sectionId },
        'roster requested, but the LMS offers no Names and Roles service for this course: enable it for the tool (Canvas: privacy/NRPS scope of the developer key; Moodle: "IMS LTI Names and Role Provisioning" in the tool settings)',
      );
      throw new RosterError(
        'no_names_and_roles',
        'The learning platform does not share the course membership (Names and Roles) with the tool, so there is no roster for this course. Ask the LMS administrator to enable it.',
      );
    }
    const started = Date.now();
    const timeout = AbortSignal.timeout(deps.fetchTimeoutMs);
    let members: NamesRolesMember[];
    try {
      members = await timeNamesRolesFetch(deps.members({ issuer: context.issuer, clientId: context.clientId }, context.membershipsUrl, { signal: AbortSignal.any([signal, timeout]) }));
    } catch (error) {
      throw await fetchFailed(context, error, timeout.aborted, logger);
    }
    const known = deps.knownStaff ? await deps.knownStaff(context) : new Set<string>();
    const excluded = new Set<string>();
    // The roster is the candidates': members with no role that takes exams (instructors, TAs, designers,
    // observers) and those the course knows as staff stay out. A member listed without roles stays in.
    const isStaff = (roles: readonly string[], id: string) => {
      if (roles.length > 0 && mapRoles({ roles }).kind !== 'candidate') excluded.add(id);
      return excluded.has(id) || known.has(id);
    };
    const roster = buildRoster(members, (lmsUserId) => deps.userIdOf(context.issuer, lmsUserId), isStaff);
    const log = { issuer: context.issuer, contextId: context.contextId, sectionId, members: roster.pairs.length, inactive: roster.inactive, duplicates: roster.duplicates, ms: Date.now() - started };
    if (roster.unnamed > 0) {
      // Privacy settings (Moodle "share launcher's name", Canvas privacy level) hide names.
      logger.warn(
        { ...log, unnamed: roster.unnamed },
        'Names and Roles lists members without names: the LMS privacy settings hide names from the tool, so reviewers will see ids only (Moodle: tool setting "Share launcher\'s name with tool"; Canvas: developer key privacy level)',
      );
    } else {
      logger.info(log, 'roster fetched from Names and Roles');
    }
    await deps.contexts.noteRoster(sectionId, { members: roster.pairs.length, unnamed: roster.unnamed }).catch((error: unknown) => {
      logger.warn({ err: error, sectionId }, 'could not record the roster outcome');
    });
    const staff = [...new Set(members.filter((member) => isActive(member) && member.roles.some(isCourseStaffRole)).map((member) => deps.userIdOf(context.issuer, member.userId)))];
    return { json: JSON.stringify(roster.pairs), staffNames: roster.staff, members: roster.pairs.length, unnamed: roster.unnamed, fetchedAt: new Date(), staff };
  }

  async function fetchFailed(context: LtiContextRecord, error: unknown, timedOut: boolean, logger: Logger): Promise<RosterError> {
    const failure = failureOf(error);
    const detail = error instanceof Error ? error.message : String(error);
    const incidentId = randomUUID();
    const result =
      timedOut || failure === 'timeout'
        ? new RosterError('roster_timeout', `The learning platform did not send the course membership within ${Math.round(deps.fetchTimeoutMs / 1000)} seconds. Try again in a moment.`, { cause: error, incidentId })
        : new RosterError('roster_unavailable', 'The course membership could not be read from the learning platform. Try again in a moment; if it persists, the LMS administrator should check the tool\'s Names and Roles access.', { cause: error, incidentId });
    logger.error({ incidentId, issuer: context.issuer, contextId: context.contextId, sectionId: context.sectionId, failure, detail }, `roster not served: ${detail}`);
    await deps.contexts.noteRoster(context.sectionId, { members: 0, unnamed: 0, error: detail }).catch(() => undefined);
    return result;
  }

  // One entry per course, shared by every request; `fetch` runs `fetchMethod` once for concurrent callers, with
  // the logger of the caller that started it.
  const cache = new LRUCache<string, RosterBody, Logger>({
    max: 5_000,
    maxSize: deps.maxCachedChars ?? 200_000_000,
    sizeCalculation: (body) => Math.max(1, body.json.length + body.staffNames.reduce((sum, [id, name]) => sum + id.length + name.length + 6, 0)),
    ttl: deps.cacheSeconds * 1000,
    ttlAutopurge: false,
    allowStale: false,
    fetchMethod: (sectionId, _stale, { signal, context }) => load(sectionId, signal, context),
  });

  return {
    async get(sectionId, logger = deps.logger) {
      countRosterRequest(cache.has(sectionId) ? 'hit' : 'miss');
      const body = await cache.fetch(sectionId, { context: logger });
      if (!body) throw new RosterError('roster_unavailable', 'The roster could not be loaded.');
      return body;
    },
    clear: () => cache.clear(),
    forget: (sectionId) => {
      cache.delete(sectionId);
    },
  };
}
