import { validateSettingsDocument, type ExamSettingsDocument } from '../exams/settings/document.js';
import { escapeRegExp } from '../exams/settings/presets/lms.js';
import { applySecurityPreset, securityPreset } from '../exams/settings/presets/security.js';
import type { ProctoringServicesDefaults, ProctoringServicesLms } from '../institution/settings.js';
import { CLAIM } from '../lti/claims.js';
import { AP_CLAIM, type StartProctoring } from '../lti/proctoring-claims.js';
import type { Violation } from '../proctoring/contract.js';

/**
 * LTI Proctoring Services (https://www.imsglobal.org/spec/proctoring/v1p0) as the Launch API sees it: the platform
 * owns the assessment and sends the candidate to the tool first (`LtiStartProctoring`); the proctoring service's
 * `launch_url` is the tool's own hand-off page, which returns the candidate to the platform with a signed
 * `LtiStartAssessment`. So `launch_url` and `exam_start` are always the tool's, and `exam_take`/`exam_end` the
 * platform's assessment pages (per-platform patterns, with defaults for Learn Ultra and Open edX).
 */

/** Where the proctoring service sends the candidate once its checks pass: one hand-off of one attempt. */
export const HANDOFF_PATH = '/proctoring/start-assessment';
export const handoffPath = (handoffId: string): string => `${HANDOFF_PATH}/${encodeURIComponent(handoffId)}`;

/** `{origin}` in a pattern: the origin of the platform's start_assessment_url, as a regular expression. */
export const ORIGIN_PLACEHOLDER = '{origin}';

/**
 * The assessment pages of each platform, as patterns. Learn Ultra serves its tests under the course outline of the
 * school's Learn host (the host of start_assessment_url); the review of a submitted attempt is under
 * `…/overview/attempt/`. Open edX shows a proctored subsection in its learning app, which is often on another host
 * than the LMS (`apps.…/learning/course/…`). An empty end pattern means the platform's `LtiEndAssessment`: it reaches
 * the tool through its login URL, so `exam_end` is then the tool's login page.
 */
export const DEFAULT_PAGE_PATTERNS: Readonly<Record<ProctoringServicesLms, { examTake: string; examEnd: string }>> = {
  'blackboard-ultra': {
    examTake: `^${ORIGIN_PLACEHOLDER}/ultra/courses/.*`,
    examEnd: `^${ORIGIN_PLACEHOLDER}/ultra/courses/[^/]+/outline/assessment/[^/]+/overview/attempt/.*`,
  },
  'open-edx': {
    examTake: '^https://[^/]+/learning/course/.*',
    examEnd: '',
  },
  custom: { examTake: `^${ORIGIN_PLACEHOLDER}/.*`, examEnd: '' },
};

/** The security preset an assessment the tool has never seen runs with, unless the platform chose another. */
export const DEFAULT_PROCTORING_PRESET = 'standard';

/** Which platform's defaults apply: the console's choice, else Learn for Blackboard's product family, else Open edX (which names none). */
export function proctoringLmsOf(defaults: ProctoringServicesDefaults, productFamily: string | undefined): ProctoringServicesLms {
  if (defaults.lms) return defaults.lms;
  return productFamily?.toLowerCase().startsWith('blackboard') ? 'blackboard-ultra' : 'open-edx';
}

function withOrigin(pattern: string, origin: string): string {
  return pattern.split(ORIGIN_PLACEHOLDER).join(escapeRegExp(origin));
}

export interface ProctoringPagesInput {
  /** The tool's base URL (no trailing slash). */
  toolBaseUrl: string;
  handoffId: string;
  start: Pick<StartProctoring, 'startAssessmentUrl'>;
  defaults: ProctoringServicesDefaults;
  productFamily?: string;
}

/** launch_url, exam_start, exam_take and exam_end of one hand-off. */
export function proctoringPages(input: ProctoringPagesInput): Pick<ExamSettingsDocument, 'launch_url' | 'exam_start' | 'exam_take' | 'exam_end'> {
  const lms = proctoringLmsOf(input.defaults, input.productFamily);
  const origin = new URL(input.start.startAssessmentUrl).origin;
  const fallback = DEFAULT_PAGE_PATTERNS[lms];
  return {
    launch_url: `${input.toolBaseUrl}${handoffPath(input.handoffId)}`,
    exam_start: `^${escapeRegExp(`${input.toolBaseUrl}${HANDOFF_PATH}/`)}.*`,
    exam_take: withOrigin(input.defaults.examTake || fallback.examTake, origin),
    exam_end: withOrigin(input.defaults.examEnd || fallback.examEnd, origin) || `^${escapeRegExp(`${input.toolBaseUrl}/lti/login`)}.*`,
  };
}

/**
 * The settings a proctoring-services attempt runs with: the assessment's own settings when an instructor set them
 * up, else the platform's defaults (its security preset), with the hand-off's pages. Violations when the result
 * breaks a rule of the Launch API (a platform pattern that does not parse).
 */
export function proctoringDocument(
  own: ExamSettingsDocument | null,
  defaults: ProctoringServicesDefaults,
  pages: Pick<ExamSettingsDocument, 'launch_url' | 'exam_start' | 'exam_take' | 'exam_end'>,
): { ok: true; value: ExamSettingsDocument } | { ok: false; violations: Violation[] } {
  if (own) return validateSettingsDocument({ ...own, ...pages });
  // A preset id saved before a preset was withdrawn falls back to the default one.
  const preset = securityPreset(defaults.securityPreset) ?? securityPreset(DEFAULT_PROCTORING_PRESET);
  if (!preset) throw new Error(`the security preset ${DEFAULT_PROCTORING_PRESET} is missing`);
  return validateSettingsDocument({ ...pages, exam_settings: applySecurityPreset(preset).exam_settings, tool: { security_preset: preset.id } });
}

/** What the tool keeps of an `LtiStartProctoring` to return it in `LtiStartAssessment`. */
export interface StartAssessmentInput {
  issuer: string;
  clientId: string;
  deploymentId: string;
  resourceLink: { id: string; title?: string };
  sessionData: string;
  attemptNumber: number;
  /** Whether the tool asks the platform for an `LtiEndAssessment` at the end. */
  endAssessmentReturn: boolean;
}

/** How long the platform may take to receive the signed `LtiStartAssessment` (it is posted at once). */
export const START_ASSESSMENT_LIFETIME_SECONDS = 300;

/**
 * The claims of the tool's `LtiStartAssessment` (LTI Proctoring Services 1.0 §4.4): a tool-originating message,
 * so `iss` is the tool's client id and `aud` the platform's issuer; the resource link, session data and attempt
 * number are those the platform sent. The signer adds the header (RS256, kid).
 */
export function startAssessmentClaims(input: StartAssessmentInput, nonce: string, nowSeconds: number): Record<string, unknown> {
  const resourceLink: Record<string, string> = { id: input.resourceLink.id };
  if (input.resourceLink.title) resourceLink.title = input.resourceLink.title;
  return {
    iss: input.clientId,
    aud: input.issuer,
    iat: nowSeconds,
    exp: nowSeconds + START_ASSESSMENT_LIFETIME_SECONDS,
    nonce,
    [CLAIM.deploymentId]: input.deploymentId,
    [CLAIM.messageType]: 'LtiStartAssessment',
    [CLAIM.version]: '1.3.0',
    [CLAIM.resourceLink]: resourceLink,
    [AP_CLAIM.sessionData]: input.sessionData,
    [AP_CLAIM.attemptNumber]: input.attemptNumber,
    [AP_CLAIM.endAssessmentReturn]: input.endAssessmentReturn,
  };
}
