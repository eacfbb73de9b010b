import type { Request, Response } from 'express';
import type { AttemptStore } from '../exams/attempts.js';
import type { Exam, ExamStore } from '../exams/store.js';
import { AppError } from '../http/errors.js';
import type { LtiLaunch } from '../lti/claims.js';
import { deriveExamTag, deriveSectionId, deriveUserId } from '../lti/identifiers.js';
import { decideLaunchTarget, mapRoles, type RoleDecision } from '../lti/roles.js';
import type { Logger } from '../logger.js';
import { ProctoringError } from '../proctoring/errors.js';
import type { LaunchLog } from './log.js';
import { respondWithProctoringUrl } from './respond.js';
import { returnLink } from './return-links.js';

/** The Launch API operations a launch needs (the proctoring client provides them). */
export interface ProctoringLaunches {
  candidateLaunch(body: Record<string, unknown>): Promise<{ url: string }>;
  reviewerLaunch(body: Record<string, unknown>): Promise<{ url: string }>;
}

export interface LaunchServiceDeps {
  exams: ExamStore;
  attempts: AttemptStore;
  log: LaunchLog;
  proctoring: ProctoringLaunches;
  /** Per-installation secret behind the pseudonymous ids. */
  pseudonymSecret: string;
  /** Base URL of the tool (no trailing slash), for return links. */
  baseUrl: string;
  logger: Logger;
}

/** Exam settings used for the reviewer when the exam has none yet (the spec requires exam_settings). */
const EMPTY_EXAM_SETTINGS: Record<string, unknown> = {};

export function createLaunchService(deps: LaunchServiceDeps) {
  function examKeyOf(launch: LtiLaunch) {
    if (!launch.context || !launch.resourceLink) return undefined;
    return {
      issuer: launch.issuer,
      clientId: launch.clientId,
      deploymentId: launch.deploymentId,
      contextId: launch.context.id,
      resourceLinkId: launch.resourceLink.id,
    };
  }

  function upstreamError(error: ProctoringError, decision: RoleDecision): AppError {
    const staff = decision.kind !== 'candidate';
    return new AppError(
      502,
      `upstream_${error.code}`,
      'The proctoring service could not be reached',
      staff
        ? 'The proctoring service refused or failed this request.'
        : 'Your proctored session could not be started just now. Nothing is lost: try again in a moment.',
      { adminMessage: staff ? error.adminMessage : undefined, cause: error, retryable: true },
    );
  }

  async function candidate(launch: LtiLaunch, exam: Exam | undefined, decision: RoleDecision): Promise<{ url: string; examId: string }> {
    if (!exam?.settings) {
      throw new AppError(409, 'exam_not_configured', 'This exam is not ready yet', 'Your instructor has not set up this exam yet. Please try again later or contact your instructor.');
    }
    if (exam.status === 'closed') {
      throw new AppError(409, 'exam_closed', 'This exam is closed', 'This proctored exam is not open for students at the moment. Contact your instructor if you expected it to be open.');
    }
    const userId = deriveUserId(deps.pseudonymSecret, launch.issuer, launch.userSub);
    const attempt = await deps.attempts.startOrResume({ examId: exam.id, userId, isTest: decision.isTestUser, returnUrl: launch.returnUrl });
    const graceful = returnLink(deps.baseUrl, deps.pseudonymSecret, attempt.id, 'submitted');
    const ungraceful = returnLink(deps.baseUrl, deps.pseudonymSecret, attempt.id, 'ended');
    const body: Record<string, unknown> = {
      ...exam.settings,
      user_id: userId,
      exam_tag: deriveExamTag(deps.pseudonymSecret, launch.issuer, launch.deploymentId, exam.resourceLinkId),
      attempt_id: attempt.id,
      redirect_url: graceful,
      redirect_settings: { graceful_submission_url: graceful, ungraceful_submission_url: ungraceful },
    };
    const { url } = await deps.proctoring.candidateLaunch(body);
    return { url, examId: exam.id };
  }

  async function reviewer(launch: LtiLaunch, exam: Exam): Promise<{ url: string; examId: string }> {
    const settings = exam.settings ?? {};
    const body: Record<string, unknown> = {
      user_id: deriveUserId(deps.pseudonymSecret, launch.issuer, launch.userSub),
      exam_settings: (settings.exam_settings as Record<string, unknown> | undefined) ?? EMPTY_EXAM_SETTINGS,
      exam_tag: deriveExamTag(deps.pseudonymSecret, launch.issuer, launch.deploymentId, exam.resourceLinkId),
    };
    if (settings.behavior_settings) body.behavior_settings = settings.behavior_settings;
    void deriveSectionId;
    const { url } = await deps.proctoring.reviewerLaunch(body);
    return { url, examId: exam.id };
  }

  return {
    async handle(launch: LtiLaunch, req: Request, res: Response): Promise<void> {
      const started = performance.now();
      const decision = mapRoles({ roles: launch.roles });
      const target = decideLaunchTarget({ decision, hasResourceLink: Boolean(launch.resourceLink), placement: launch.placement });
      const key = examKeyOf(launch);
      const userId = deriveUserId(deps.pseudonymSecret, launch.issuer, launch.userSub);
      const record = { issuer: launch.issuer, contextId: launch.context?.id, userId, role: decision.kind };
      let examId: string | undefined;
      let endpoint: string | undefined;
      try {
        if (!key) {
          throw new AppError(400, 'no_resource_link', 'Open an exam link', 'Open the proctored exam from its link in your course.');
        }
        const exam = target === 'candidate-launch' ? await deps.exams.find(key) : await deps.exams.ensure(key, launch.resourceLink?.title ?? 'Proctored exam');
        examId = exam?.id;
        let result: { url: string; examId: string };
        if (target === 'candidate-launch') {
          endpoint = 'candidate';
          result = await candidate(launch, exam, decision);
        } else if ((target === 'instructor-hub' || target === 'live-launch') && exam && decision.canReview) {
          endpoint = 'reviewer';
          result = await reviewer(launch, exam);
        } else {
          throw new AppError(403, 'role_not_allowed', 'No access', 'Your role in this course does not allow opening this proctored exam.', { adminMessage: decision.reason });
        }
        await deps.log.record({ ...record, examId: result.examId, endpoint, outcome: 'redirected', durationMs: performance.now() - started });
        respondWithProctoringUrl(req, res, launch, result.url);
      } catch (error) {
        const appError = error instanceof ProctoringError ? upstreamError(error, decision) : error;
        const outcome = error instanceof ProctoringError ? 'upstream_error' : 'refused';
        await deps.log
          .record({
            ...record,
            examId,
            endpoint,
            outcome,
            errorCode: appError instanceof AppError ? appError.code : 'internal',
            incidentId: appError instanceof AppError ? appError.incidentId : undefined,
            durationMs: performance.now() - started,
          })
          .catch((logError: unknown) => deps.logger.error({ err: logError }, 'could not record launch'));
        if (appError instanceof AppError && decision.kind !== 'candidate') res.locals.showAdminDetail = true;
        throw appError;
      }
    },
  };
}

export type LaunchService = ReturnType<typeof createLaunchService>;
