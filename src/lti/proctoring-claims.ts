import { z } from 'zod';

/**
 * The claims of 1EdTech LTI Proctoring Services 1.0 (https://www.imsglobal.org/spec/proctoring/v1p0) the tool
 * reads and writes: the platform's `LtiStartProctoring` and `LtiEndAssessment`, the tool's `LtiStartAssessment`.
 * Pure: no web framework, no LTI library; the token validator calls `readProctoringClaims` after the signature and
 * the core claims are checked.
 */
export const AP_CLAIM = {
  startAssessmentUrl: 'https://purl.imsglobal.org/spec/lti-ap/claim/start_assessment_url',
  sessionData: 'https://purl.imsglobal.org/spec/lti-ap/claim/session_data',
  attemptNumber: 'https://purl.imsglobal.org/spec/lti-ap/claim/attempt_number',
  verifiedUser: 'https://purl.imsglobal.org/spec/lti-ap/claim/verified_user',
  endAssessmentReturn: 'https://purl.imsglobal.org/spec/lti-ap/claim/end_assessment_return',
  proctoringSettings: 'https://purl.imsglobal.org/spec/lti-ap/claim/proctoring_settings',
  acs: 'https://purl.imsglobal.org/spec/lti-ap/claim/acs',
  errorMessage: 'https://purl.imsglobal.org/spec/lti-ap/claim/errormsg',
  errorLog: 'https://purl.imsglobal.org/spec/lti-ap/claim/errorlog',
} as const;

export const PROCTORING_MESSAGE_TYPES = ['LtiStartProctoring', 'LtiEndAssessment'] as const;
export type ProctoringMessageType = (typeof PROCTORING_MESSAGE_TYPES)[number];

export function isProctoringMessageType(value: unknown): value is ProctoringMessageType {
  return value === 'LtiStartProctoring' || value === 'LtiEndAssessment';
}

/** What an `LtiStartProctoring` message asks of the tool. */
export interface StartProctoring {
  kind: 'start';
  /** Where the tool posts its `LtiStartAssessment` (the platform's endpoint). */
  startAssessmentUrl: string;
  /** The platform's value (often an anti-CSRF token), returned unchanged. */
  sessionData: string;
  /** Which attempt of the assessment this is: a new number is a new proctoring attempt. */
  attemptNumber: number;
  /** Whether the platform offered an `LtiEndAssessment` at the end (the tool answers for itself in `LtiStartAssessment`). */
  endAssessmentReturn?: boolean;
  /** The Assessment Control Service, when the platform offers it (not used by the tool yet). */
  acs?: { assessmentControlUrl: string; actions: string[] };
}

/** What an `LtiEndAssessment` message says. */
export interface EndAssessment {
  kind: 'end';
  attemptNumber: number;
  /** Open edX sends `session_data: null` here. */
  sessionData?: string;
  /** The platform's error, for people and for the log. */
  errorMessage?: string;
  errorLog?: string;
}

export type ProctoringMessage = StartProctoring | EndAssessment;

export type ProctoringClaimsResult = { ok: true; message: ProctoringMessage } | { ok: false; claim: string; problem: string };

const MAX_URL = 2000;
const MAX_SESSION_DATA = 4096;
const MAX_ERROR_TEXT = 4000;

const httpUrl = z
  .string()
  .max(MAX_URL)
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'https:' || url.protocol === 'http:';
    } catch {
      return false;
    }
  }, 'not an http(s) URL');

const attemptNumber = z.number().int('not an integer').min(1, 'below 1').max(1_000_000, 'too large');

const acsSchema = z.object({
  assessment_control_url: httpUrl,
  actions: z.array(z.string().max(100)).max(20).default([]),
});

/**
 * A claim's value, also under the names a released platform library writes them with: lib-lti1p3-core declares
 * `errormsg` with a leading space and `errorlog` with spaces on both sides
 * (https://github.com/oat-sa/lib-lti1p3-core, `LtiMessagePayloadInterface`).
 */
function claimOf(payload: Readonly<Record<string, unknown>>, name: string): unknown {
  if (name in payload) return payload[name];
  for (const key of Object.keys(payload)) if (key.trim() === name) return payload[key];
  return undefined;
}

type Check<T> = { ok: true; value: T } | { ok: false; claim: string; problem: string };

function optional<T>(payload: Readonly<Record<string, unknown>>, claim: string, schema: z.ZodType<T>): Check<T | undefined> {
  const value = claimOf(payload, claim);
  if (value === undefined || value === null) return { ok: true, value: undefined };
  return parse(claim, schema, value);
}

function required<T>(payload: Readonly<Record<string, unknown>>, claim: string, schema: z.ZodType<T>): Check<T> {
  const value = claimOf(payload, claim);
  if (value === undefined || value === null) return { ok: false, claim, problem: 'missing' };
  return parse(claim, schema, value);
}

function parse<T>(claim: string, schema: z.ZodType<T>, value: unknown): Check<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, claim, problem: parsed.error.issues[0]?.message ?? 'invalid' };
}

const text = (max: number) => z.string().max(max, `longer than ${max} characters`);

/**
 * The proctoring claims of a verified message of type `messageType`, or the first claim that is missing or of
 * the wrong type. Roles are not read here: an `LtiStartProctoring` is a candidate's launch whatever its roles
 * (Open edX sends `roles: []`).
 */
export function readProctoringClaims(messageType: ProctoringMessageType, payload: Readonly<Record<string, unknown>>): ProctoringClaimsResult {
  const number = required(payload, AP_CLAIM.attemptNumber, attemptNumber);
  if (!number.ok) return number;
  const attempt = number.value;
  if (messageType === 'LtiEndAssessment') {
    const sessionData = optional(payload, AP_CLAIM.sessionData, text(MAX_SESSION_DATA));
    if (!sessionData.ok) return sessionData;
    const errorMessage = optional(payload, AP_CLAIM.errorMessage, text(MAX_ERROR_TEXT));
    if (!errorMessage.ok) return errorMessage;
    const errorLog = optional(payload, AP_CLAIM.errorLog, text(MAX_ERROR_TEXT));
    if (!errorLog.ok) return errorLog;
    return { ok: true, message: { kind: 'end', attemptNumber: attempt, sessionData: sessionData.value, errorMessage: errorMessage.value, errorLog: errorLog.value } };
  }
  const url = required(payload, AP_CLAIM.startAssessmentUrl, httpUrl);
  if (!url.ok) return url;
  const sessionData = required(payload, AP_CLAIM.sessionData, text(MAX_SESSION_DATA));
  if (!sessionData.ok) return sessionData;
  // The person's details the platform asks the tool to verify: checked for type, never kept (claims.ts drops it).
  const verifiedUser = optional(payload, AP_CLAIM.verifiedUser, z.record(z.string(), z.unknown()));
  if (!verifiedUser.ok) return verifiedUser;
  const endReturn = optional(payload, AP_CLAIM.endAssessmentReturn, z.boolean());
  if (!endReturn.ok) return endReturn;
  const acs = optional(payload, AP_CLAIM.acs, acsSchema);
  if (!acs.ok) return acs;
  return {
    ok: true,
    message: {
      kind: 'start',
      startAssessmentUrl: url.value,
      sessionData: sessionData.value,
      attemptNumber: attempt,
      endAssessmentReturn: endReturn.value,
      acs: acs.value ? { assessmentControlUrl: acs.value.assessment_control_url, actions: acs.value.actions } : undefined,
    },
  };
}
