import { randomBytes } from 'node:crypto';
import { decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { z } from 'zod';
import { CLAIM } from '../../lti/claims.js';
import { AP_CLAIM } from '../../lti/proctoring-claims.js';

/**
 * The demo LMS's side of LTI Proctoring Services 1.0, as Learn Ultra plays it: a learner's launch of the exam is an
 * `LtiStartProctoring` (a new attempt number after a finished attempt, the same one while it runs, a fresh
 * `session_data` each time), the tool's `LtiStartAssessment` is verified strictly before the quiz opens, and
 * submitting the quiz sends `LtiEndAssessment` when the tool asked for it.
 */
export interface ProctoringAttempt {
  /** Names the attempt in the quiz's form. */
  id: string;
  userId: string;
  linkId: string;
  attemptNumber: number;
  sessionData: string;
  /** The tool's LtiStartAssessment was accepted: the quiz is open. */
  started: boolean;
  ended: boolean;
  /** The tool asked for LtiEndAssessment (end_assessment_return). */
  endReturn: boolean;
}

export interface ProctoringMessage {
  message: 'start' | 'end';
  attemptNumber: number;
  sessionData?: string;
}

export interface ProctoringAttempts {
  /** The running attempt of this user and link, or the next one; its start message (a fresh session_data). */
  start(userId: string, linkId: string): ProctoringMessage;
  byId(id: string): ProctoringAttempt | undefined;
  /** Verifies the tool's LtiStartAssessment: the attempt it opens, or why it is refused. */
  verifyStart(jwt: string | undefined): Promise<{ ok: true; attempt: ProctoringAttempt } | { ok: false; reason: string }>;
  /** The submitted quiz ends its attempt: its end message when the tool asked for one. */
  end(id: string): ProctoringMessage | undefined;
}

const MAX_ATTEMPTS = 10_000;
const USED_NONCES = 10_000;

const startAssessment = z.object({
  iss: z.string(),
  aud: z.union([z.string(), z.array(z.string())]),
  nonce: z.string().min(1),
  iat: z.number(),
  exp: z.number(),
  [CLAIM.deploymentId]: z.string(),
  [CLAIM.messageType]: z.literal('LtiStartAssessment'),
  [CLAIM.version]: z.literal('1.3.0'),
  [CLAIM.resourceLink]: z.object({ id: z.string() }),
  [AP_CLAIM.sessionData]: z.string(),
  [AP_CLAIM.attemptNumber]: z.number().int(),
  [AP_CLAIM.endAssessmentReturn]: z.boolean().optional(),
});

export function createProctoringAttempts(options: { issuer: string; clientId: string; deploymentId: string; toolKeys: () => JWTVerifyGetKey; now: () => number; lifetimeSeconds?: number }): ProctoringAttempts {
  const attempts = new Map<string, ProctoringAttempt>();
  const current = new Map<string, ProctoringAttempt>();
  const numbers = new Map<string, number>();
  const usedNonces = new Set<string>();
  const keyOf = (userId: string, linkId: string) => `${userId}\n${linkId}`;

  function remember(attempt: ProctoringAttempt): void {
    attempts.set(attempt.id, attempt);
    if (attempts.size > MAX_ATTEMPTS) {
      const oldest = attempts.keys().next();
      if (!oldest.done) attempts.delete(oldest.value);
    }
  }

  return {
    start(userId, linkId) {
      const key = keyOf(userId, linkId);
      let attempt = current.get(key);
      if (!attempt || attempt.ended) {
        const attemptNumber = (numbers.get(key) ?? 0) + 1;
        numbers.set(key, attemptNumber);
        attempt = { id: randomBytes(12).toString('base64url'), userId, linkId, attemptNumber, sessionData: '', started: false, ended: false, endReturn: false };
        current.set(key, attempt);
      }
      // Each start carries a new anti-forgery value (as Open edX and Learn do): only the latest start's is accepted.
      attempt.sessionData = randomBytes(24).toString('base64url');
      remember(attempt);
      return { message: 'start', attemptNumber: attempt.attemptNumber, sessionData: attempt.sessionData };
    },
    byId: (id) => attempts.get(id),
    async verifyStart(jwt) {
      if (!jwt) return { ok: false, reason: 'the form has no JWT field' };
      let header;
      try {
        header = decodeProtectedHeader(jwt);
      } catch {
        return { ok: false, reason: 'JWT is not a signed token' };
      }
      if (header.alg !== 'RS256') return { ok: false, reason: `alg is ${String(header.alg)}, not RS256` };
      if (!header.kid) return { ok: false, reason: 'the header names no kid' };
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(jwt, options.toolKeys(), {
          issuer: options.clientId,
          audience: options.issuer,
          algorithms: ['RS256'],
          requiredClaims: ['iat', 'exp', 'nonce'],
          currentDate: new Date(options.now()),
          maxTokenAge: options.lifetimeSeconds ?? 600,
        }));
      } catch (error) {
        const reason = error instanceof joseErrors.JOSEError ? `${error.code}: ${error.message}` : 'the token does not verify';
        return { ok: false, reason };
      }
      const parsed = startAssessment.safeParse(payload);
      if (!parsed.success) return { ok: false, reason: `claims: ${parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`).join('; ')}` };
      const claims = parsed.data;
      if (claims[CLAIM.deploymentId] !== options.deploymentId) return { ok: false, reason: 'deployment_id is not this deployment' };
      if (usedNonces.has(claims.nonce)) return { ok: false, reason: 'the nonce was used before (a replay)' };
      const attempt = [...attempts.values()].find((candidate) => candidate.sessionData === claims[AP_CLAIM.sessionData]);
      if (!attempt || attempt.ended) return { ok: false, reason: 'session_data is not that of a running start' };
      if (attempt.linkId !== claims[CLAIM.resourceLink].id) return { ok: false, reason: 'resource_link is not the assessment of this start' };
      if (attempt.attemptNumber !== claims[AP_CLAIM.attemptNumber]) return { ok: false, reason: 'attempt_number is not the one sent' };
      usedNonces.add(claims.nonce);
      if (usedNonces.size > USED_NONCES) usedNonces.clear();
      // The session data is used up: the same message cannot open the quiz again.
      attempt.sessionData = '';
      attempt.started = true;
      attempt.endReturn = claims[AP_CLAIM.endAssessmentReturn] === true;
      return { ok: true, attempt };
    },
    end(id) {
      const attempt = attempts.get(id);
      if (!attempt || !attempt.started || attempt.ended) return undefined;
      attempt.ended = true;
      return attempt.endReturn ? { message: 'end', attemptNumber: attempt.attemptNumber } : undefined;
    },
  };
}
