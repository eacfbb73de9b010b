import type { Attempt, AttemptStore } from '../exams/attempts.js';
import { isExamOfCourse, isSetUp, type Exam, type ExamKey, type ExamStore } from '../exams/store.js';
import type { HostedLinks } from '../hosted/links.js';
import { AppError, NotFoundError } from '../http/errors.js';
import type { InstitutionSettings, InstitutionSettingsStore } from '../institution/settings.js';
import type { LtiLaunch } from '../lti/claims.js';
import { deriveUserId, type PseudonymSecret } from '../lti/identifiers.js';
import { decideLaunchTarget, type LaunchTarget, type RoleDecision, type RoleReason } from '../lti/roles.js';
import { decideRoles, type RolePolicy } from '../institution/role-policy.js';
import type { CourseStaffStore } from '../institution/course-staff.js';
import { roleRefusalWording } from '../lti/role-words.js';
import { wording, type Wording } from '../i18n/index.js';
import { localizeViolation } from '../exams/settings/violations.js';
import type { Logger } from '../logger.js';
import type { ProctoringClient } from '../proctoring/client.js';
import type { LaunchLog, LaunchRecord } from './log.js';
import { isUuid } from '../values.js';
import { DEFAULT_RESULTS_QUERY, type ExamResults, type ResultsQuery, type TestsFilter } from '../webhooks/results.js';
import { createProctoringUrls } from './proctoring-urls.js';
import { createLaunchRecorder } from './recorder.js';
import { createLaunchViews } from './views.js';
import { displayNameFor } from './requests.js';
import { candidateStart, type CandidateStart, type StartPage } from './start-page.js';
import { noticeStep, type PrivacyNoticeStore } from './privacy-notices.js';
import { availabilityAt } from '../exams/availability.js';
import type { AccommodationStore } from '../exams/accommodations/store.js';
import type { AccommodationOverride } from '../exams/accommodations/override.js';
import type { Violation } from '../proctoring/contract.js';
import type { CourseNamesSource, NamesStatus } from '../hosted/course-names.js';
import { applyOverride } from '../exams/accommodations/override.js';
import { launchableCandidate, type CandidatePlan } from './proctoring-urls.js';
import type { AssessmentHandoffStore } from './assessment-handoffs.js';
import { createProctoringLaunches, proctoringCandidate, type HandoffCookie } from './proctoring-launch.js';
import { isProctoringMessageType } from '../lti/proctoring-claims.js';

/** The Launch API operations launches use: the typed, validating proctoring client. */
export type ProctoringLaunches = Pick<ProctoringClient, 'candidateLaunch' | 'reviewerLaunch' | 'liveLaunch' | 'launchpad'>;

export interface LaunchServiceDeps {
  exams: ExamStore;
  attempts: AttemptStore;
  log: LaunchLog;
  /** True once shutdown abandoned the requests still in flight (their connections cut at the deadline). */
  abandoned?: () => boolean;
  proctoring: ProctoringLaunches;
  /** The client of the proctoring account a platform uses; without it every launch uses `proctoring`. */
  proctoringFor?: (platform: { issuer: string; clientId: string }) => Promise<ProctoringLaunches>;
  /**
   * The account a platform uses (`default` or its own) with its client. A candidate launch records the account
   * on its attempt: suspicion results are matched to an attempt only from that account's subscriptions.
   */
  proctoringAccountFor?: (platform: { issuer: string; clientId: string }) => Promise<{ accountRef: string; client: ProctoringLaunches }>;
  institutions: Pick<InstitutionSettingsStore, 'get'>;
  /** Role decisions with the course's own staff list (named proctors, Moodle's non-editing teachers); default: the launch's roles and the institution's settings. */
  rolePolicy?: RolePolicy;
  /** The course's staff beyond the LMS's roles: staff launches are noted, instructors name proctors. */
  courseStaff?: CourseStaffStore;
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
  /**
   * The exam's attempts with their suspicion results and the candidates' names (webhooks). Without it
   * the hub lists recent attempts under pseudonymous ids only.
   */
  examResults?: (exam: Exam, query: ResultsQuery, logger?: Logger) => Promise<ExamResults>;
  /** Per-installation secret behind the pseudonymous ids and the signed return links. */
  pseudonymSecret: PseudonymSecret;
  /** Base URL of the tool (no trailing slash), for return links. */
  baseUrl: string;
  /** Per-student overrides of an exam (accommodations); without them every student gets the exam's settings. */
  accommodations?: AccommodationStore;
  /** The names of an exam's course (Names and Roles, read when a page is built), for the hub's accommodations. */
  names?: CourseNamesSource;
  /** The clock availability windows are read by; default: the system clock. */
  now?: () => Date;
  /** Lines written outside a session; a session's lines go to its own logger (`LaunchSession.logger`). */
  logger: Logger;
  /** LTI Proctoring Services' hand-offs; without them an `LtiStartProctoring` is refused as a wrong launch. */
  handoffs?: AssessmentHandoffStore;
  /** Who has seen each exam's privacy notice; without it a launch in a window goes straight to the session. */
  privacyNotices?: PrivacyNoticeStore;
}

/**
 * Where a student's answer is shown: in the LMS's frame (the start page, which is the privacy notice, every time) or
 * in a window of its own (the start page until the student has continued from it once). `continued`: the student
 * pressed the notice's button.
 */
export interface CandidateView {
  framed: boolean;
  continued?: boolean;
}

/** One LTI session's launch with everything decided from it once. */
export interface LaunchSession {
  launch: LtiLaunch;
  institution: InstitutionSettings;
  decision: RoleDecision;
  target: LaunchTarget;
  /** The pseudonymous user_id. */
  userId: string;
  /** The log of the request this session serves: its lines carry the request's id. */
  logger: Logger;
}

export type LaunchEndpoint = 'candidate' | 'reviewer' | 'live' | 'launchpad' | 'hub' | 'exam-list' | 'settings';

export interface HubView {
  exam: Exam;
  configured: boolean;
  canEditSettings: boolean;
  canReview: boolean;
  canProctor: boolean;
  isAdmin: boolean;
  /** The "roles received" panel: the raw role URIs and the decision. */
  roles: { received: string[]; matched: string[]; why: RoleReason; placement?: string };
  attempts: Attempt[];
  /** The exam's accommodations, for roles that may edit settings (undefined otherwise, or before the exam is set up). */
  accommodations?: AccommodationsView;
  /** Results and names, for roles that may review (undefined otherwise, or without the webhooks feature). */
  results?: ExamResults;
  /** The course's named proctors and whom an instructor may name, for roles that may edit settings. */
  proctors?: ProctorsView;
  launches: Array<LaunchRecord & { at: Date }>;
}

export interface ProctorsView {
  named: Array<{ userId: string; name?: string }>;
  /** The course's members by name, but those named and the instructor looking. */
  members: Array<{ userId: string; name: string }>;
  names: NamesStatus;
}

export interface AccommodationsView {
  /** `problems`: the rules an accommodation breaks with the exam's current settings (the page words them). */
  rows: Array<{ userId: string; name?: string; override: AccommodationOverride; problems: Violation[] }>;
  /** Whom an accommodation can be added for. */
  students: Array<{ userId: string; name?: string }>;
  names: NamesStatus;
}

export interface ExamListView {
  courseTitle?: string;
  /** Why an exam cannot be started (`hub:examList.<note>` in the catalogs). */
  exams: Array<{ id: string; title: string; available: boolean; note?: 'notSetUp' | 'notReady' | 'closed' }>;
}

export type LaunchOutcome =
  /** `handoffCookie`: LTI Proctoring Services' binding of the hand-off to this browser, set with the redirect. */
  | { kind: 'redirect'; url: string; start: StartPage; handoffCookie?: HandoffCookie }
  /**
   * A student's first launch of the exam in a window: the start page with the privacy notice, whose button posts the
   * session token on (`continueAfterNotice`); nothing is asked of the Launch API yet. `fromList`: opened from the
   * course's exam list.
   */
  | { kind: 'notice'; start: CandidateStart; examId: string; fromList: boolean }
  /** LTI Proctoring Services' `LtiEndAssessment`: a page, or the platform's return URL. */
  | { kind: 'assessment-ended'; examTitle?: string; returnUrl?: string; recorded: boolean }
  | { kind: 'settings'; examId: string }
  | { kind: 'hub'; hub: HubView }
  | { kind: 'exam-list'; list: ExamListView }
  /** A student's launch outside the exam's availability window: an ordinary page saying when. */
  | { kind: 'unavailable'; availability: 'not-yet-open' | 'closed'; at: Date; timeZone: string; examTitle: string };

export type HubAction = 'review' | 'live';

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
    { ordinary: true, messageKey: 'common:errors.examNotConfigured' },
  );
}

/** A copied exam whose quiz address an instructor has not yet confirmed: the same ordinary page for students. */
export function quizAddressUncheckedError(): AppError {
  return new AppError(409, 'exam_not_ready', 'This exam is not ready yet', 'Your instructor is still setting up this exam for your course. Please try again later or contact your instructor.', {
    ordinary: true,
    messageKey: 'common:errors.examNotReady',
    adminText: wording('causes:launch.quizAddressUnchecked'),
  });
}

/**
 * A refusal for the launch's role: `refusal` names its words for the user (`common:errors.<refusal>`, English
 * `publicMessage` for the log), `cause` what staff see.
 */
function forbidden(cause: Wording, refusal: string, publicMessage: string): AppError {
  return new AppError(403, 'role_not_allowed', 'Not allowed', publicMessage, { adminText: cause, messageKey: `common:errors.${refusal}` });
}

export function noCourseError(): AppError {
  return new AppError(400, 'no_course', 'Open this from your course', 'Open the proctored exam from its link in your course.', { messageKey: 'common:errors.noCourse' });
}

/**
 * A student's accommodation that no longer fits the exam (the exam's settings changed since): nothing is sent
 * with settings nobody chose; the student sees an ordinary "not ready" page, staff and the log see why.
 */
export function accommodationNeedsAttentionError(violations: readonly Violation[]): AppError {
  return new AppError(409, 'accommodation_needs_attention', 'This exam is not ready yet', 'Your instructor is still updating the arrangements made for you in this exam. Please try again later or contact your instructor.', {
    ordinary: true,
    messageKey: 'common:errors.accommodationNeedsAttention',
    adminText: (t) => t.t('causes:launch.accommodationNeedsAttention', { rules: violations.map((v) => localizeViolation(t.t, v).message).join(' ') }),
  });
}

/** Outside its window an exam that is otherwise ready says when it opens or when it closed; no attempt starts. */
function unavailableOutcome(exam: Exam, now: Date): LaunchOutcome | undefined {
  if (!exam.settings || exam.status !== 'open' || exam.quizAddressCheck) return undefined;
  const availability = availabilityAt(exam, now);
  const at = availability === 'not-yet-open' ? exam.opensAt : availability === 'closed' ? exam.closesAt : undefined;
  return availability !== 'open' && at ? { kind: 'unavailable', availability, at, timeZone: exam.timeZone ?? 'UTC', examTitle: exam.title } : undefined;
}

export function createLaunchService(deps: LaunchServiceDeps) {
  // Title '' means "the LMS sent none": resolvers keep an existing title then.
  const resolveExam = deps.resolveExam ?? ((key: ExamKey, title: string) => deps.exams.ensure(key, title || 'Proctored exam'));
  const urls = createProctoringUrls(deps);
  const views = createLaunchViews(deps);
  const recorded = createLaunchRecorder(deps);
  const proctoringServices = createProctoringLaunches({
    ...deps,
    urls,
    resolveExam: (key, title, customExamId) => resolveExam(key, title, customExamId),
    unavailable: (exam) => unavailableOutcome(exam, (deps.now ?? (() => new Date()))()),
    noticeFirst: (session, examId, start, view) => noticeFirst(session, examId, start, view, false),
    noteFramedNotice,
  });

  /** The settings this student's session runs with: the exam's, or the exam's with their accommodation laid over them. */
  async function candidatePlan(session: LaunchSession, exam: Exam, read?: { accommodation: AccommodationOverride | undefined }): Promise<CandidatePlan | undefined> {
    if (!exam.settings || !deps.accommodations) return undefined;
    const override = read ? read.accommodation : await deps.accommodations.get(exam.id, session.userId);
    if (!override) return undefined;
    const applied = applyOverride(exam.settings, override);
    if (!applied.ok) throw accommodationNeedsAttentionError(applied.violations);
    return { settings: applied.effective, exempt: applied.override.exempt === true };
  }

  /**
   * The privacy notice of a student's session (what its start page says), or undefined to go on to the session. A
   * launch in a window whose student has not seen the exam's notice gets it; continuing from it records it. A
   * student exempted from proctoring gets none: nothing is recorded or sent. When the store cannot be read, the
   * notice is shown.
   */
  async function noticeFirst(session: LaunchSession, examId: string, start: CandidateStart, view: CandidateView, fromList: boolean): Promise<LaunchOutcome | undefined> {
    const notices = deps.privacyNotices;
    const step = noticeStep(view, start.exempt);
    if (!notices || step === 'none' || step === 'session-then-record') return undefined;
    if (step === 'record-then-session') {
      await notices.record(examId, session.userId);
      return undefined;
    }
    const seen = await notices.seen(examId, session.userId).catch((error: unknown) => {
      session.logger.warn({ err: error, examId }, 'could not read whether the privacy notice was shown: showing it');
      return false;
    });
    return seen ? undefined : { kind: 'notice', start, examId, fromList };
  }

  /** A framed launch's start page is the notice: recorded once its page is on its way (a failure only costs a notice more later). */
  async function noteFramedNotice(session: LaunchSession, examId: string, start: CandidateStart, view: CandidateView): Promise<void> {
    if (!deps.privacyNotices || noticeStep(view, start.exempt) !== 'session-then-record') return;
    await deps.privacyNotices.record(examId, session.userId).catch((error: unknown) => session.logger.warn({ err: error, examId }, 'could not record the privacy notice as shown'));
  }

  /**
   * The redirect to a candidate session, with what its start page says, or the privacy notice first; `read`: the
   * student's accommodation when it was read with the exam.
   */
  async function candidateRedirect(session: LaunchSession, found: Exam | undefined, view: CandidateView, read?: { accommodation: AccommodationOverride | undefined }, fromList = false): Promise<LaunchOutcome> {
    const unavailable = found && unavailableOutcome(found, (deps.now ?? (() => new Date()))());
    if (unavailable) return unavailable;
    const plan = found ? await candidatePlan(session, found, read) : undefined;
    const { exam, settings } = launchableCandidate(found, plan?.settings ?? found?.settings);
    const { launch } = session;
    const start = candidateStart({
      examTitle: exam.title,
      courseTitle: launch.context?.title,
      practice: exam.practice,
      exempt: plan?.exempt,
      settings,
      displayName: displayNameFor(launch),
      returnUrl: launch.returnUrl,
      instructions: exam.instructions,
    });
    const notice = await noticeFirst(session, exam.id, start, view, fromList);
    if (notice) return notice;
    const url = await urls.candidate(session, exam, plan);
    await noteFramedNotice(session, exam.id, start, view);
    return { kind: 'redirect', url, start };
  }

  const staffStart = (session: LaunchSession, endpoint: 'reviewer' | 'live' | 'launchpad', exam?: Exam): StartPage => ({
    endpoint,
    examTitle: exam?.title,
    courseTitle: session.launch.context?.title,
  });

  function examKeyOf(launch: LtiLaunch): ExamKey | undefined {
    if (!launch.context || !launch.resourceLink) return undefined;
    return { issuer: launch.issuer, clientId: launch.clientId, deploymentId: launch.deploymentId, contextId: launch.context.id, resourceLinkId: launch.resourceLink.id };
  }

  async function examOfCourse(session: LaunchSession, examId: string): Promise<Exam> {
    const exam = isUuid(examId) ? await deps.exams.get(examId) : undefined;
    if (!exam) throw new NotFoundError('exam');
    if (!isExamOfCourse(exam, session.launch)) {
      throw forbidden(wording('causes:launch.otherCourse'), 'otherCourse', 'This exam belongs to another course. Open it from its own course.');
    }
    return exam;
  }

  return {
    /** Decides once, from the launch and the platform's settings, who this is and where the launch goes; `logger`: the request's log. */
    async session(launch: LtiLaunch, logger: Logger = deps.logger): Promise<LaunchSession> {
      const institution = await deps.institutions.get(launch.issuer, launch.clientId);
      const roles = deps.rolePolicy ? await deps.rolePolicy(launch) : decideRoles(launch, institution);
      const decision = isProctoringMessageType(launch.messageType) ? proctoringCandidate(roles) : roles;
      const target = decideLaunchTarget({ decision, hasResourceLink: Boolean(launch.resourceLink), placement: launch.placement });
      return { launch, institution, decision, target, userId: deriveUserId(deps.pseudonymSecret, launch.issuer, launch.userSub), logger };
    },

    /** The LTI resource-link launch itself; `view`: where a student's answer is shown. */
    async launch(session: LaunchSession, view: CandidateView = { framed: false }): Promise<LaunchOutcome> {
      const { launch, decision } = session;
      if (launch.messageType === 'LtiStartProctoring') return recorded(session, {}, (trace) => proctoringServices.start(session, trace, view));
      if (launch.messageType === 'LtiEndAssessment') return recorded(session, {}, (trace) => proctoringServices.end(session, trace));
      if (launch.messageType !== 'LtiResourceLinkRequest') {
        // Deep linking has its own handler (the content picker); it must never start an exam.
        throw new AppError(400, 'not_a_resource_link', 'Wrong kind of launch', 'This link cannot open a proctored exam. Open the exam from its link in your course.', {
          adminText: wording('causes:launch.wrongMessageType', { messageType: launch.messageType }),
          messageKey: 'common:errors.wrongLaunch',
        });
      }
      if (isStaff(decision) && launch.context && deps.courseStaff) {
        // Staff never appear among a course's candidates (Moodle lists its non-editing teachers as learners).
        const course = { issuer: launch.issuer, clientId: launch.clientId, deploymentId: launch.deploymentId, contextId: launch.context.id };
        await deps.courseStaff.noteStaffLaunch(course, session.userId).catch((error: unknown) => session.logger.warn({ err: error }, 'could not note the staff launch'));
      }
      return recorded(session, {}, async (trace) => {
        switch (session.target) {
          case 'forbidden':
            throw forbidden(roleRefusalWording(decision.why), 'notAllowedExam', 'Your role in this course does not allow opening this proctored exam.');
          case 'launchpad':
            trace.endpoint = 'launchpad';
            return { kind: 'redirect', url: await urls.launchpad(session), start: staffStart(session, 'launchpad') };
          case 'student-exam-list':
            trace.endpoint = 'exam-list';
            return { kind: 'exam-list', list: await views.examList(session) };
          default:
            break;
        }
        const key = examKeyOf(launch);
        if (!key) throw noCourseError();
        if (session.target === 'candidate-launch') {
          trace.endpoint = 'candidate';
          // The exam (shared by the launches of the next seconds) with this student's accommodation.
          const found = await deps.exams.findForStudent(key, session.userId);
          // A student may be the first to open a link created by deep linking or copied with its course:
          // the link's proctor_exam_id names the exam whose settings it takes over.
          const customExamId = launch.custom.proctor_exam_id;
          if (customExamId && (!found || !isSetUp(found.exam))) {
            const exam = await resolveExam(key, launch.resourceLink?.title ?? '', customExamId);
            trace.examId = exam.id;
            return candidateRedirect(session, exam, view);
          }
          trace.examId = found?.exam.id;
          return candidateRedirect(session, found?.exam, view, found);
        }
        const exam = await resolveExam(key, launch.resourceLink?.title ?? '', launch.custom.proctor_exam_id);
        trace.examId = exam.id;
        if (session.target === 'live-launch') {
          trace.endpoint = 'live';
          return { kind: 'redirect', url: await urls.live(session, exam), start: staffStart(session, 'live', exam) };
        }
        // instructor-hub: a first launch of an exam not set up yet goes straight to its settings.
        if (decision.canEditSettings && !isSetUp(exam)) {
          trace.endpoint = 'settings';
          return { kind: 'settings', examId: exam.id };
        }
        trace.endpoint = 'hub';
        return { kind: 'hub', hub: await views.hub(session, exam) };
      });
    },

    /** The hub page again (e.g. back from the settings view). */
    async hub(session: LaunchSession, examId: string, query?: ResultsQuery): Promise<HubView> {
      if (session.decision.kind !== 'instructor') throw forbidden(roleRefusalWording(session.decision.why), 'notAllowedHub', "Only the course's instructors can open this page.");
      return views.hub(session, await examOfCourse(session, examId), query);
    },

    /** The exam's per-student overrides (the hub's accommodations; check `editableExam` first). */
    get accommodations(): AccommodationStore {
      if (!deps.accommodations) throw new NotFoundError('accommodations');
      return deps.accommodations;
    },

    /** The names of an exam's course, read when a page is built. */
    accommodationNames: deps.names,

    /** An exam of this course whose settings (and accommodations) this session may change. */
    async editableExam(session: LaunchSession, examId: string): Promise<Exam> {
      const { decision } = session;
      if (decision.kind !== 'instructor' || !decision.canEditSettings) {
        throw forbidden(roleRefusalWording(decision.why, 'settings'), 'notAllowedSettings', 'Your role in this course may not change exam settings.');
      }
      return examOfCourse(session, examId);
    },

    /**
     * Every attempt of the exam with results and names (the hub's CSV export), for roles that may review; test
     * attempts as the hub's filter says.
     */
    async examResults(session: LaunchSession, examId: string, tests: TestsFilter = 'include'): Promise<{ exam: Exam; results: ExamResults }> {
      const { decision } = session;
      if (decision.kind !== 'instructor' || !decision.canReview) throw forbidden(roleRefusalWording(decision.why, 'review'), 'notAllowedResults', 'Your role in this course does not allow seeing exam results.');
      const exam = await examOfCourse(session, examId);
      if (!deps.examResults) throw new NotFoundError('export');
      return { exam, results: await deps.examResults(exam, { ...DEFAULT_RESULTS_QUERY, tests }, session.logger) };
    },

    /** "Open review center" and "Monitor live" on the hub. */
    async hubAction(session: LaunchSession, examId: string, action: HubAction): Promise<LaunchOutcome> {
      return recorded(session, { endpoint: action === 'review' ? 'reviewer' : 'live' }, async (trace) => {
        const { decision } = session;
        const allowed = action === 'review' ? decision.canReview : decision.canProctor;
        if (!allowed) {
          throw action === 'review'
            ? forbidden(roleRefusalWording(decision.why, 'review'), 'notAllowedReview', 'Your role in this course may not open the review center.')
            : forbidden(roleRefusalWording(decision.why, 'live'), 'notAllowedLive', 'Your role in this course may not monitor exams live.');
        }
        const exam = await examOfCourse(session, examId);
        trace.examId = exam.id;
        return action === 'review'
          ? { kind: 'redirect', url: await urls.reviewer(session, exam), start: staffStart(session, 'reviewer', exam) }
          : { kind: 'redirect', url: await urls.live(session, exam), start: staffStart(session, 'live', exam) };
      });
    },

    /** A candidate opens an exam from the course-level list (no new LMS launch needed). */
    async startFromList(session: LaunchSession, examId: string, view: CandidateView = { framed: false }): Promise<LaunchOutcome> {
      return recorded(session, { endpoint: 'candidate' }, async (trace) => {
        if (session.decision.kind !== 'candidate') throw forbidden(roleRefusalWording(session.decision.why), 'notAllowedExamList', 'Only students open exams from this list.');
        const exam = await examOfCourse(session, examId);
        trace.examId = exam.id;
        return candidateRedirect(session, exam, view, undefined, true);
      });
    },

    /**
     * The privacy notice's button: the student's launch (or, `listedExamId`, their start from the course's exam list)
     * runs again from its session, the notice recorded as seen.
     */
    async continueAfterNotice(session: LaunchSession, listedExamId: string | undefined): Promise<LaunchOutcome> {
      const view: CandidateView = { framed: false, continued: true };
      if (session.decision.kind !== 'candidate') throw forbidden(roleRefusalWording(session.decision.why), 'notAllowedExam', 'Your role in this course does not allow opening this proctored exam.');
      return listedExamId === undefined ? this.launch(session, view) : this.startFromList(session, listedExamId, view);
    },
  };
}

export type LaunchService = ReturnType<typeof createLaunchService>;
