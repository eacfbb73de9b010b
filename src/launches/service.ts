import type { Attempt, AttemptStore } from '../exams/attempts.js';
import type { Exam, ExamKey, ExamStore } from '../exams/store.js';
import type { HostedLinks } from '../hosted/links.js';
import { AppError, NotFoundError } from '../http/errors.js';
import { platformKey, type InstitutionSettings, type InstitutionSettingsStore } from '../institution/settings.js';
import type { LtiLaunch } from '../lti/claims.js';
import { deriveExamTag, deriveSectionId, deriveUserId } from '../lti/identifiers.js';
import { decideLaunchTarget, type LaunchTarget, type RoleDecision } from '../lti/roles.js';
import { decideRoles } from '../institution/role-policy.js';
import type { Logger } from '../logger.js';
import type { ProctoringClient } from '../proctoring/client.js';
import { EXAM_SETTINGS_OFF } from '../proctoring/contract.js';
import { ProctoringError, ProctoringRequestInvalid } from '../proctoring/errors.js';
import {
  candidateRequest,
  displayNameFor,
  examConfigOf,
  expireFor,
  launchpadRequest,
  linkTtlSeconds,
  liveRequest,
  reviewerRequest,
  type ExamConfig,
  type LaunchIds,
} from './fields.js';
import type { LaunchLog, LaunchRecord } from './log.js';
import { returnLink } from './return-links.js';
import { settingsSummary, type SummaryRow } from './summary.js';

/** The Launch API operations launches use: the typed, validating proctoring client. */
export type ProctoringLaunches = Pick<ProctoringClient, 'candidateLaunch' | 'reviewerLaunch' | 'liveLaunch' | 'launchpad'>;

export interface LaunchServiceDeps {
  exams: ExamStore;
  attempts: AttemptStore;
  log: LaunchLog;
  proctoring: ProctoringLaunches;
  institutions: Pick<InstitutionSettingsStore, 'get'>;
  hostedLinks: Pick<HostedLinks, 'rosterUrl' | 'examRosterUrl' | 'logoUrl' | 'extensionAllowlistUrl'>;
  /**
   * Whether the platform has a logo at the hosted logo endpoint. Without it, logo_url is sent when the
   * institution configured branding colours.
   */
  hasLogo?: (platformKey: string) => Promise<boolean>;
  /**
   * The exam of a staff launch, created on first sight (course copy may map it to the original's
   * settings). Default: `exams.ensure`.
   */
  resolveExam?: (key: ExamKey, title: string, customExamId: string | undefined) => Promise<Exam>;
  /** Per-installation secret behind the pseudonymous ids and the signed return links. */
  pseudonymSecret: string;
  /** Base URL of the tool (no trailing slash), for return links. */
  baseUrl: string;
  logger: Logger;
}

/** One LTI session's launch with everything decided from it once. */
export interface LaunchSession {
  launch: LtiLaunch;
  institution: InstitutionSettings;
  decision: RoleDecision;
  target: LaunchTarget;
  /** The pseudonymous user_id. */
  userId: string;
}

export type LaunchEndpoint = 'candidate' | 'reviewer' | 'live' | 'launchpad' | 'hub' | 'exam-list' | 'settings';

export interface HubView {
  exam: Exam;
  configured: boolean;
  /** Read-only settings summary (empty when not configured). */
  summary: SummaryRow[];
  canEditSettings: boolean;
  canReview: boolean;
  canProctor: boolean;
  isAdmin: boolean;
  /** The "roles received" panel: the raw role URIs and the decision. */
  roles: { received: string[]; matched: string[]; reason: string; placement?: string };
  attempts: Attempt[];
  launches: Array<LaunchRecord & { at: Date }>;
}

export interface ExamListView {
  courseTitle?: string;
  exams: Array<{ id: string; title: string; available: boolean; note?: string }>;
}

export type LaunchOutcome =
  | { kind: 'redirect'; url: string }
  | { kind: 'settings'; examId: string }
  | { kind: 'hub'; hub: HubView }
  | { kind: 'exam-list'; list: ExamListView };

export type HubAction = 'review' | 'live';

const RECENT = 20;

/** Staff see causes (admin messages, the roles panel); candidates and others see friendly pages only. */
export function isStaff(decision: Pick<RoleDecision, 'kind'>): boolean {
  return decision.kind === 'instructor' || decision.kind === 'proctor';
}

/**
 * An LMS test user: Canvas's Student View user carries the TestUser role, and the `canvas_user_is_test`
 * custom field the tool's Canvas configuration asks for (`$Canvas.user.isFakeStudent`) says so too.
 */
export function isTestLaunch(launch: Pick<LtiLaunch, 'custom'>, decision: Pick<RoleDecision, 'isTestUser'>): boolean {
  return decision.isTestUser || launch.custom.canvas_user_is_test === 'true';
}

export function notConfiguredError(): AppError {
  return new AppError(
    409,
    'exam_not_configured',
    'This exam is not ready yet',
    'Your instructor has not set up this exam yet. Please try again later or contact your instructor.',
  );
}

/** A failure of the proctoring client as a page: friendly for students, the cause for staff. */
export function upstreamError(error: ProctoringError): AppError {
  if (error instanceof ProctoringRequestInvalid) {
    // The contract refused the request before sending: a configuration problem, not a passing fault.
    return new AppError(
      422,
      'exam_settings_invalid',
      "This exam's settings need attention",
      'This proctored exam cannot start because of a problem with its settings. Please tell your instructor; nothing has been lost.',
      { adminMessage: error.adminMessage, cause: error },
    );
  }
  const timeout = error.code === 'timeout';
  return new AppError(
    timeout ? 504 : 502,
    `upstream_${error.code}`,
    timeout ? 'The proctoring service did not answer in time' : 'The proctoring service could not be reached',
    'Your proctored session could not be started just now. Nothing is lost: try again in a moment.',
    { adminMessage: error.adminMessage, cause: error, retryable: true },
  );
}

function forbidden(reason: string, publicMessage = 'Your role in this course does not allow this.'): AppError {
  return new AppError(403, 'role_not_allowed', 'Not allowed', publicMessage, { adminMessage: reason });
}

export function createLaunchService(deps: LaunchServiceDeps) {
  // Title '' means "the LMS sent none": resolvers keep an existing title then.
  const resolveExam = deps.resolveExam ?? ((key: ExamKey, title: string) => deps.exams.ensure(key, title || 'Proctored exam'));

  function examKeyOf(launch: LtiLaunch): ExamKey | undefined {
    if (!launch.context || !launch.resourceLink) return undefined;
    return { issuer: launch.issuer, clientId: launch.clientId, deploymentId: launch.deploymentId, contextId: launch.context.id, resourceLinkId: launch.resourceLink.id };
  }

  function idsFor(session: LaunchSession, exam: Exam): LaunchIds {
    return {
      userId: session.userId,
      examTag: deriveExamTag(deps.pseudonymSecret, exam.issuer, exam.deploymentId, exam.resourceLinkId),
      sectionId: deriveSectionId(deps.pseudonymSecret, exam.issuer, exam.deploymentId, exam.contextId),
    };
  }

  async function logoUrlFor(session: LaunchSession): Promise<string | undefined> {
    const key = platformKey(session.launch.issuer, session.launch.clientId);
    const has = deps.hasLogo
      ? await deps.hasLogo(key)
      : Boolean(session.institution.branding.primary_color || session.institution.branding.secondary_color);
    return has ? deps.hostedLinks.logoUrl(key) : undefined;
  }

  /** The session's user may act on this exam only within the same platform, deployment and course. */
  function sameCourse(session: LaunchSession, exam: Exam): boolean {
    const { launch } = session;
    return exam.issuer === launch.issuer && exam.clientId === launch.clientId && exam.deploymentId === launch.deploymentId && exam.contextId === launch.context?.id;
  }

  async function examOfCourse(session: LaunchSession, examId: string): Promise<Exam> {
    const exam = /^[0-9a-f-]{36}$/i.test(examId) ? await deps.exams.get(examId) : undefined;
    if (!exam) throw new NotFoundError('exam');
    if (!sameCourse(session, exam)) {
      throw forbidden('This exam belongs to another course (or platform, or deployment) than the launch of this session.', 'This exam belongs to another course. Open it from its own course.');
    }
    return exam;
  }

  async function candidate(session: LaunchSession, exam: Exam | undefined): Promise<string> {
    const config = examConfigOf(exam?.settings);
    if (!exam || !config) throw notConfiguredError();
    if (exam.status === 'closed') {
      throw new AppError(409, 'exam_closed', 'This exam is closed', 'This proctored exam is not open for students at the moment. Contact your instructor if you expected it to be open.');
    }
    const { launch, decision } = session;
    const attempt = await deps.attempts.startOrResume({ examId: exam.id, userId: session.userId, isTest: isTestLaunch(launch, decision), returnUrl: launch.returnUrl });
    const ids = idsFor(session, exam);
    const key = platformKey(launch.issuer, launch.clientId);
    const request = candidateRequest({
      exam: config,
      ids,
      institution: session.institution,
      attemptId: attempt.id,
      returnLinks: {
        graceful: returnLink(deps.baseUrl, deps.pseudonymSecret, attempt.id, 'submitted'),
        ungraceful: returnLink(deps.baseUrl, deps.pseudonymSecret, attempt.id, 'ended'),
      },
      rosterUrl: await deps.hostedLinks.rosterUrl(ids.sectionId, linkTtlSeconds('candidate', expireFor('candidate', config.expire))),
      logoUrl: await logoUrlFor(session),
      extensionAllowlistUrl: deps.hostedLinks.extensionAllowlistUrl(key),
      displayName: displayNameFor(launch),
    });
    return (await deps.proctoring.candidateLaunch(request)).url;
  }

  async function reviewer(session: LaunchSession, exam: Exam): Promise<string> {
    const config = examConfigOf(exam.settings);
    const ids = idsFor(session, exam);
    const request = reviewerRequest({
      exam: config,
      ids,
      institution: session.institution,
      rosterUrl: await deps.hostedLinks.rosterUrl(ids.sectionId, linkTtlSeconds('staff', expireFor('staff', config?.expire))),
      logoUrl: await logoUrlFor(session),
      fallbackExamSettings: EXAM_SETTINGS_OFF,
    });
    return (await deps.proctoring.reviewerLaunch(request)).url;
  }

  async function live(session: LaunchSession, exam: Exam): Promise<string> {
    const config = examConfigOf(exam.settings);
    const ids = idsFor(session, exam);
    const request = liveRequest({
      exam: config,
      examName: exam.title,
      ids,
      institution: session.institution,
      rosterUrl: await deps.hostedLinks.rosterUrl(ids.sectionId, linkTtlSeconds('staff', expireFor('staff', config?.expire))),
    });
    return (await deps.proctoring.liveLaunch(request)).url;
  }

  async function launchpad(session: LaunchSession): Promise<string> {
    const { launch } = session;
    if (!launch.context) throw noCourse();
    const sectionId = deriveSectionId(deps.pseudonymSecret, launch.issuer, launch.deploymentId, launch.context.id);
    const ttl = linkTtlSeconds('staff', undefined);
    const request = launchpadRequest({
      userId: session.userId,
      institution: session.institution,
      examRosterUrl: await deps.hostedLinks.examRosterUrl(sectionId, ttl),
      rosterUrl: await deps.hostedLinks.rosterUrl(sectionId, ttl),
    });
    return (await deps.proctoring.launchpad(request)).url;
  }

  async function hubView(session: LaunchSession, exam: Exam): Promise<HubView> {
    const config = examConfigOf(exam.settings);
    const { decision, launch } = session;
    const [attempts, launches] = await Promise.all([deps.attempts.recent(exam.id, RECENT), deps.log.recentForExam(exam.id, RECENT)]);
    return {
      exam,
      configured: config !== undefined,
      summary: config ? settingsSummary(config) : [],
      canEditSettings: decision.canEditSettings,
      canReview: decision.canReview,
      canProctor: decision.canProctor,
      isAdmin: decision.isAdmin,
      roles: { received: [...launch.roles], matched: decision.matched, reason: decision.reason, placement: launch.placement },
      attempts,
      launches,
    };
  }

  async function examList(session: LaunchSession): Promise<ExamListView> {
    const { launch } = session;
    if (!launch.context) throw noCourse();
    const exams = await deps.exams.listByContext(launch.issuer, launch.clientId, launch.deploymentId, launch.context.id);
    return {
      courseTitle: launch.context.title,
      exams: exams.map((exam) => {
        const configured = examConfigOf(exam.settings) !== undefined;
        const available = configured && exam.status === 'open';
        return { id: exam.id, title: exam.title, available, note: available ? undefined : configured ? 'Closed' : 'Not set up yet' };
      }),
    };
  }

  /** Runs one launch step and records it, whatever happens: who (pseudonymous), exam, role, endpoint, outcome, duration. */
  async function recorded<T extends LaunchOutcome>(
    session: LaunchSession,
    trace: { endpoint?: LaunchEndpoint; examId?: string },
    work: (trace: { endpoint?: LaunchEndpoint; examId?: string }) => Promise<T>,
  ): Promise<T> {
    const started = performance.now();
    const base = { issuer: session.launch.issuer, contextId: session.launch.context?.id, userId: session.userId, role: session.decision.kind };
    try {
      const outcome = await work(trace);
      await deps.log
        .record({ ...base, examId: trace.examId, endpoint: trace.endpoint, outcome: outcome.kind === 'redirect' ? 'redirected' : 'shown', durationMs: performance.now() - started })
        .catch((error: unknown) => deps.logger.error({ err: error }, 'could not record launch'));
      return outcome;
    } catch (error) {
      const appError = error instanceof ProctoringError ? upstreamError(error) : error;
      await deps.log
        .record({
          ...base,
          examId: trace.examId,
          endpoint: trace.endpoint,
          outcome: error instanceof ProctoringError ? 'upstream_error' : 'refused',
          errorCode: appError instanceof AppError ? appError.code : 'internal',
          incidentId: appError instanceof AppError ? appError.incidentId : undefined,
          durationMs: performance.now() - started,
        })
        .catch((logError: unknown) => deps.logger.error({ err: logError }, 'could not record launch'));
      throw appError;
    }
  }

  function noCourse(): AppError {
    return new AppError(400, 'no_course', 'Open this from your course', 'Open the proctored exam from its link in your course.');
  }

  return {
    /** Decides once, from the launch and the platform's settings, who this is and where the launch goes. */
    async session(launch: LtiLaunch): Promise<LaunchSession> {
      const institution = await deps.institutions.get(launch.issuer, launch.clientId);
      const decision = decideRoles(launch, institution);
      const target = decideLaunchTarget({ decision, hasResourceLink: Boolean(launch.resourceLink), placement: launch.placement });
      return { launch, institution, decision, target, userId: deriveUserId(deps.pseudonymSecret, launch.issuer, launch.userSub) };
    },

    /** The LTI resource-link launch itself. */
    async launch(session: LaunchSession): Promise<LaunchOutcome> {
      const { launch, decision } = session;
      if (launch.messageType !== 'LtiResourceLinkRequest') {
        // Deep linking has its own handler (the content picker); it must never start an exam.
        throw new AppError(400, 'not_a_resource_link', 'Wrong kind of launch', 'This link cannot open a proctored exam. Open the exam from its link in your course.', {
          adminMessage: `A ${launch.messageType} reached the exam launch handler.`,
        });
      }
      return recorded(session, {}, async (trace) => {
        switch (session.target) {
          case 'forbidden':
            throw forbidden(decision.reason, 'Your role in this course does not allow opening this proctored exam.');
          case 'launchpad':
            trace.endpoint = 'launchpad';
            return { kind: 'redirect', url: await launchpad(session) };
          case 'student-exam-list':
            trace.endpoint = 'exam-list';
            return { kind: 'exam-list', list: await examList(session) };
          default:
            break;
        }
        const key = examKeyOf(launch);
        if (!key) throw noCourse();
        if (session.target === 'candidate-launch') {
          trace.endpoint = 'candidate';
          let exam = await deps.exams.find(key);
          // A student may be the first to open a link created by deep linking or copied with its course:
          // the link's proctor_exam_id names the exam whose settings it takes over.
          const customExamId = launch.custom.proctor_exam_id;
          if (customExamId && examConfigOf(exam?.settings) === undefined) exam = await resolveExam(key, launch.resourceLink?.title ?? '', customExamId);
          trace.examId = exam?.id;
          return { kind: 'redirect', url: await candidate(session, exam) };
        }
        const exam = await resolveExam(key, launch.resourceLink?.title ?? '', launch.custom.proctor_exam_id);
        trace.examId = exam.id;
        if (session.target === 'live-launch') {
          trace.endpoint = 'live';
          return { kind: 'redirect', url: await live(session, exam) };
        }
        // instructor-hub: a first launch of an exam not set up yet goes straight to its settings.
        if (decision.canEditSettings && examConfigOf(exam.settings) === undefined) {
          trace.endpoint = 'settings';
          return { kind: 'settings', examId: exam.id };
        }
        trace.endpoint = 'hub';
        return { kind: 'hub', hub: await hubView(session, exam) };
      });
    },

    /** The hub page again (e.g. back from the settings view). */
    async hub(session: LaunchSession, examId: string): Promise<HubView> {
      if (session.decision.kind !== 'instructor') throw forbidden(session.decision.reason, 'Only the course\'s instructors can open this page.');
      return hubView(session, await examOfCourse(session, examId));
    },

    /** "Open review center" and "Monitor live" on the hub. */
    async hubAction(session: LaunchSession, examId: string, action: HubAction): Promise<LaunchOutcome> {
      return recorded(session, { endpoint: action === 'review' ? 'reviewer' : 'live' }, async (trace) => {
        const { decision } = session;
        const allowed = action === 'review' ? decision.canReview : decision.canProctor;
        if (!allowed) {
          throw forbidden(
            `${decision.reason} This role may not ${action === 'review' ? 'open the review center' : 'monitor live'}.`,
            action === 'review' ? 'Your role in this course does not allow opening the review center.' : 'Your role in this course does not allow live monitoring.',
          );
        }
        const exam = await examOfCourse(session, examId);
        trace.examId = exam.id;
        return { kind: 'redirect', url: action === 'review' ? await reviewer(session, exam) : await live(session, exam) };
      });
    },

    /** A candidate opens an exam from the course-level list (no new LMS launch needed). */
    async startFromList(session: LaunchSession, examId: string): Promise<LaunchOutcome> {
      return recorded(session, { endpoint: 'candidate' }, async (trace) => {
        if (session.decision.kind !== 'candidate') throw forbidden(session.decision.reason, 'Only students open exams from this list.');
        const exam = await examOfCourse(session, examId);
        trace.examId = exam.id;
        return { kind: 'redirect', url: await candidate(session, exam) };
      });
    },
  };
}

export type LaunchService = ReturnType<typeof createLaunchService>;
export type { ExamConfig };
