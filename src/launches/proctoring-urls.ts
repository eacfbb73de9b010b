import type { Attempt } from '../exams/attempts.js';
import type { Exam } from '../exams/store.js';
import type { ExamSettingsDocument } from '../exams/settings/document.js';
import { AppError } from '../http/errors.js';
import { deriveExamTag, deriveSectionId, platformKey } from '../lti/identifiers.js';
import { ProctoringRequestInvalid } from '../proctoring/errors.js';
import { candidateRequest, displayNameFor, expireFor, launchpadRequest, linkTtlSeconds, liveRequest, reviewerRequest, type LaunchIds } from './requests.js';
import { returnLink } from './return-links.js';
import { isTestLaunch, noCourseError, notConfiguredError, quizAddressUncheckedError, type LaunchServiceDeps, type LaunchSession, type ProctoringLaunches } from './service.js';

/** What one student's session runs with: the exam's settings with their accommodation laid over them. */
export interface CandidatePlan {
  settings: ExamSettingsDocument;
  exempt: boolean;
  /** LTI Proctoring Services: the platform's attempt number (one attempt per number). */
  ltiAttemptNumber?: number;
  /** Called with the attempt before the request is sent (the hand-off of LTI Proctoring Services is stored then). */
  onAttempt?: (attempt: Attempt) => Promise<void>;
}

/** The proctoring URL of each Launch API endpoint for one session: the request built, sent, its URL returned. */
export interface ProctoringUrls {
  /** The proctoring URL; for a student exempted from proctoring, the quiz itself (no Launch API call). */
  candidate(session: LaunchSession, exam: Exam | undefined, plan?: CandidatePlan): Promise<string>;
  reviewer(session: LaunchSession, exam: Exam): Promise<string>;
  live(session: LaunchSession, exam: Exam): Promise<string>;
  launchpad(session: LaunchSession): Promise<string>;
}

/**
 * Whether a student's session can be asked for: the exam is set up with settings that still pass, its quiz address
 * is checked and it is open. Throws the page the student gets otherwise (before any notice or Launch API call).
 */
export function launchableCandidate(exam: Exam | undefined, settings: ExamSettingsDocument | null | undefined): { exam: Exam; settings: ExamSettingsDocument } {
  // A stored document that no longer passes: the request would break the same rules, so none is sent.
  if (exam?.invalidSettings) throw new ProctoringRequestInvalid(exam.invalidSettings.violations, 'candidate_launch');
  if (!exam || !settings) throw notConfiguredError();
  if (exam.quizAddressCheck) throw quizAddressUncheckedError();
  if (exam.status === 'closed') {
    throw new AppError(409, 'exam_closed', 'This exam is closed', 'This proctored exam is not open for students at the moment. Contact your instructor if you expected it to be open.', { ordinary: true, messageKey: 'common:errors.examClosed' });
  }
  return { exam, settings };
}

export function createProctoringUrls(deps: LaunchServiceDeps): ProctoringUrls {
  const proctoringOf = async (session: LaunchSession): Promise<ProctoringLaunches> =>
    deps.proctoringFor ? deps.proctoringFor({ issuer: session.launch.issuer, clientId: session.launch.clientId }) : deps.proctoring;

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

  return {
    async candidate(session, given, plan) {
      const { exam, settings } = launchableCandidate(given, plan?.settings ?? given?.settings);
      const { launch, decision } = session;
      const account = deps.proctoringAccountFor ? await deps.proctoringAccountFor({ issuer: launch.issuer, clientId: launch.clientId }) : undefined;
      const exempt = plan?.exempt === true;
      const start = { examId: exam.id, userId: session.userId, isTest: isTestLaunch(launch, decision), practice: exam.practice, exempt, returnUrl: launch.returnUrl, accountRef: account?.accountRef, validForSeconds: linkTtlSeconds('candidate', expireFor('candidate', settings.expire)) };
      const attempt = plan?.ltiAttemptNumber === undefined ? await deps.attempts.startOrResume(start) : await deps.attempts.startOrResumeNumbered({ ...start, ltiAttemptNumber: plan.ltiAttemptNumber });
      await plan?.onAttempt?.(attempt);
      // Exempted from proctoring: straight to the quiz, recorded on the attempt, nothing sent to the service.
      if (exempt) return settings.launch_url;
      const ids = idsFor(session, exam);
      const key = platformKey(launch.issuer, launch.clientId);
      const request = candidateRequest(settings, {
        ids,
        institution: session.institution,
        attemptId: attempt.id,
        returnLinks: {
          graceful: returnLink(deps.baseUrl, deps.pseudonymSecret, attempt.id, 'submitted'),
          ungraceful: returnLink(deps.baseUrl, deps.pseudonymSecret, attempt.id, 'ended'),
        },
        rosterUrl: await deps.hostedLinks.rosterUrl(ids.sectionId, linkTtlSeconds('candidate', expireFor('candidate', settings.expire))),
        logoUrl: await logoUrlFor(session),
        extensionAllowlistUrl: deps.hostedLinks.extensionAllowlistUrl(key),
        displayName: displayNameFor(launch),
      });
      return (await (account?.client ?? (await proctoringOf(session))).candidateLaunch(request)).url;
    },

    async reviewer(session, exam) {
      if (exam.invalidSettings) throw new ProctoringRequestInvalid(exam.invalidSettings.violations, 'reviewer_launch');
      const ids = idsFor(session, exam);
      const request = reviewerRequest(exam.settings, {
        ids,
        institution: session.institution,
        rosterUrl: await deps.hostedLinks.rosterUrl(ids.sectionId, linkTtlSeconds('staff', expireFor('staff', exam.settings?.expire))),
        logoUrl: await logoUrlFor(session),
      });
      return (await (await proctoringOf(session)).reviewerLaunch(request)).url;
    },

    async live(session, exam) {
      if (exam.invalidSettings) throw new ProctoringRequestInvalid(exam.invalidSettings.violations, 'live_launch');
      const ids = idsFor(session, exam);
      const request = liveRequest(exam.settings, {
        examName: exam.title,
        ids,
        institution: session.institution,
        rosterUrl: await deps.hostedLinks.rosterUrl(ids.sectionId, linkTtlSeconds('staff', expireFor('staff', exam.settings?.expire))),
      });
      return (await (await proctoringOf(session)).liveLaunch(request)).url;
    },

    async launchpad(session) {
      const { launch } = session;
      if (!launch.context) throw noCourseError();
      const sectionId = deriveSectionId(deps.pseudonymSecret, launch.issuer, launch.deploymentId, launch.context.id);
      const ttl = linkTtlSeconds('staff', undefined);
      const request = launchpadRequest({
        userId: session.userId,
        institution: session.institution,
        examRosterUrl: await deps.hostedLinks.examRosterUrl(sectionId, ttl),
        rosterUrl: await deps.hostedLinks.rosterUrl(sectionId, ttl),
      });
      return (await (await proctoringOf(session)).launchpad(request)).url;
    },
  };
}
