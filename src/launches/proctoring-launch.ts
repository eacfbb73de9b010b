import type { AttemptStore } from '../exams/attempts.js';
import type { Exam, ExamKey, ExamStore } from '../exams/store.js';
import { AppError } from '../http/errors.js';
import { wording } from '../i18n/index.js';
import type { RoleDecision } from '../lti/roles.js';
import { applyOverride } from '../exams/accommodations/override.js';
import { ProctoringRequestInvalid } from '../proctoring/errors.js';
import type { AssessmentHandoffStore } from './assessment-handoffs.js';
import { proctoringDocument, proctoringPages, handoffPath } from './proctoring-services.js';
import { launchableCandidate, type CandidatePlan, type ProctoringUrls } from './proctoring-urls.js';
import type { LaunchTrace } from './recorder.js';
import { displayNameFor } from './requests.js';
import { accommodationNeedsAttentionError, noCourseError, type CandidateView, type LaunchOutcome, type LaunchSession } from './service.js';
import { candidateStart, type CandidateStart } from './start-page.js';

/**
 * An `LtiStartProctoring` is a candidate's launch whatever roles it carries (Open edX sends `roles: []`; the
 * specification makes the message itself the candidate's): the roles only say whether it is a test user.
 */
export function proctoringCandidate(decision: RoleDecision): RoleDecision {
  return {
    kind: 'candidate',
    canEditSettings: false,
    canReview: false,
    canProctor: false,
    isTestUser: decision.isTestUser,
    isAdmin: false,
    matched: decision.matched,
    reason: 'LTI Proctoring Services: the platform starts or ends a candidate’s proctored assessment',
    why: decision.isTestUser ? { kind: 'testUser' } : { kind: 'learner', roles: [] },
  };
}

export interface ProctoringLaunchDeps {
  exams: ExamStore;
  attempts: AttemptStore;
  handoffs?: AssessmentHandoffStore;
  baseUrl: string;
  urls: ProctoringUrls;
  resolveExam(key: ExamKey, title: string, customExamId: string | undefined): Promise<Exam>;
  unavailable(exam: Exam): LaunchOutcome | undefined;
  /** The privacy notice first, for a student who has not seen it in a window (service.ts); undefined: on to the session. */
  noticeFirst(session: LaunchSession, examId: string, start: CandidateStart, view: CandidateView): Promise<LaunchOutcome | undefined>;
  /** A framed start page, the notice, recorded as shown. */
  noteFramedNotice(session: LaunchSession, examId: string, start: CandidateStart, view: CandidateView): Promise<void>;
}

function examKeyOf(session: LaunchSession): ExamKey {
  const { launch } = session;
  if (!launch.context || !launch.resourceLink) throw noCourseError();
  return { issuer: launch.issuer, clientId: launch.clientId, deploymentId: launch.deploymentId, contextId: launch.context.id, resourceLinkId: launch.resourceLink.id };
}

function notProctoringServicesError(): AppError {
  return new AppError(400, 'not_a_resource_link', 'Wrong kind of launch', 'This link cannot open a proctored exam. Open the exam from its link in your course.', {
    adminText: wording('causes:launch.proctoringServicesOff'),
    messageKey: 'common:errors.wrongLaunch',
  });
}

export function createProctoringLaunches(deps: ProctoringLaunchDeps) {
  return {
    /**
     * `LtiStartProctoring`: the attempt of the platform's attempt number, the proctoring URL whose launch_url is the
     * tool's hand-off page, and the cookie that binds the hand-off to this browser.
     */
    async start(session: LaunchSession, trace: LaunchTrace, view: CandidateView): Promise<LaunchOutcome> {
      const { launch } = session;
      const start = launch.proctoring;
      if (start?.kind !== 'start' || !deps.handoffs) throw notProctoringServicesError();
      const handoffs = deps.handoffs;
      trace.endpoint = 'candidate';
      const key = examKeyOf(session);
      // An assessment the tool has never seen becomes an exam (its instructors find it in their hub), running with
      // the platform's defaults until someone sets it up.
      const found = await deps.exams.findForStudent(key, session.userId);
      const exam = found?.exam ?? (await deps.resolveExam(key, launch.resourceLink?.title ?? '', launch.custom.proctor_exam_id));
      trace.examId = exam.id;
      const unavailable = deps.unavailable(exam);
      if (unavailable) return unavailable;
      let own = exam.settings;
      let exempt = false;
      const override = found?.accommodation;
      if (own && override) {
        const applied = applyOverride(own, override);
        if (!applied.ok) throw accommodationNeedsAttentionError(applied.violations);
        own = applied.effective;
        exempt = applied.override.exempt === true;
      }
      const defaults = session.institution.proctoringServices;
      const handoffId = handoffs.newId();
      const pages = proctoringPages({ toolBaseUrl: deps.baseUrl, handoffId, start, defaults, productFamily: launch.platformFamily });
      const document = proctoringDocument(own, defaults, pages);
      if (!document.ok) throw new ProctoringRequestInvalid(document.violations, 'candidate_launch');
      launchableCandidate(exam, document.value);
      const startPage = candidateStart({
        examTitle: exam.title,
        courseTitle: launch.context?.title,
        practice: exam.practice,
        exempt,
        settings: document.value,
        displayName: displayNameFor(launch),
        returnUrl: launch.returnUrl,
        instructions: exam.instructions,
      });
      const notice = await deps.noticeFirst(session, exam.id, startPage, view);
      if (notice) return notice;
      let cookie: HandoffCookie | undefined;
      const plan: CandidatePlan = {
        settings: document.value,
        exempt,
        ltiAttemptNumber: start.attemptNumber,
        onAttempt: async (attempt) => {
          const resourceLink = { id: key.resourceLinkId, title: launch.resourceLink?.title };
          const created = await handoffs.create({
            id: handoffId,
            attemptId: attempt.id,
            issuer: launch.issuer,
            clientId: launch.clientId,
            deploymentId: launch.deploymentId,
            resourceLink,
            startAssessmentUrl: start.startAssessmentUrl,
            sessionData: start.sessionData,
            attemptNumber: start.attemptNumber,
            endAssessmentReturn: defaults.endAssessmentReturn ?? true,
          });
          cookie = { name: handoffCookieName(handoffId), value: created.secret, path: handoffPath(handoffId), expires: created.expiresAt };
        },
      };
      const url = await deps.urls.candidate(session, exam, plan);
      if (!cookie) throw new Error('the hand-off was not prepared');
      await deps.noteFramedNotice(session, exam.id, startPage, view);
      return { kind: 'redirect', url, start: startPage, handoffCookie: cookie };
    },

    /** `LtiEndAssessment`: the attempt of that number ends; the platform's error goes to the log and to staff (the hub). */
    async end(session: LaunchSession, trace: LaunchTrace): Promise<LaunchOutcome> {
      const { launch } = session;
      const end = launch.proctoring;
      if (end?.kind !== 'end') throw notProctoringServicesError();
      trace.endpoint = 'candidate';
      const key = examKeyOf(session);
      const found = await deps.exams.findForStudent(key, session.userId);
      trace.examId = found?.exam.id;
      const platformError = end.errorMessage ?? end.errorLog;
      const attempt = found ? await deps.attempts.endNumbered({ examId: found.exam.id, userId: session.userId, ltiAttemptNumber: end.attemptNumber, platformError }) : undefined;
      if (platformError !== undefined) {
        session.logger.warn(
          { examId: found?.exam.id, attemptId: attempt?.id, attemptNumber: end.attemptNumber, errormsg: end.errorMessage, errorlog: end.errorLog },
          'the platform ended a proctored assessment with an error',
        );
      }
      return { kind: 'assessment-ended', examTitle: found?.exam.title, returnUrl: launch.returnUrl, recorded: attempt !== undefined };
    },
  };
}

/** The cookie that binds a hand-off to the browser of its launch (only sent to the hand-off's own page). */
export interface HandoffCookie {
  name: string;
  value: string;
  path: string;
  expires: Date;
}

export const handoffCookieName = (handoffId: string): string => `lti_ap_${handoffId.replace(/-/g, '')}`;
