import { AppError, type AnswerableError } from '../http/errors.js';
import { translator, type Translator } from '../i18n/index.js';

/**
 * Why an LTI message was refused. Each code maps to one check; the message is for the LMS user,
 * the detail (never containing tokens) for the log and for administrators.
 */
export type LtiRefusalCode =
  | 'missing_validation_cookie'
  | 'cookies_refused_top_level'
  | 'login_too_slow'
  | 'issuer_mismatch'
  | 'unregistered_platform'
  | 'inactive_platform'
  | 'invalid_token'
  | 'bad_signature'
  | 'key_unavailable'
  | 'token_expired'
  | 'token_from_future'
  | 'audience_mismatch'
  | 'nonce_invalid'
  | 'unknown_deployment'
  | 'wrong_target'
  | 'unsupported_message'
  | 'missing_claim'
  | 'session_expired'
  | 'session_in_url'
  | 'login_invalid';

/** The ids an administrator must register for a launch refused as unregistered or of an unknown deployment. */
export interface RefusedRegistration {
  issuer: string;
  clientId: string;
  deploymentId?: string;
}

/** As many logins as the tool keeps are waiting for their launch: new ones are turned away until some expire. */
export class LoginCapacityError extends Error implements AnswerableError {
  override readonly name = 'LoginCapacityError';
  constructor(readonly maxPending: number) {
    super(`${maxPending} logins are waiting for their launch: new logins refused`);
  }

  toAppError(): AppError {
    return new AppError(503, 'busy', 'Too many sign-ins right now', 'The proctoring tool is receiving more sign-ins than it can take right now. Please wait a minute and open the exam again from your course.', { cause: this, retryable: true, messageKey: 'common:errors.busy' });
  }
}

export class LtiRefusal extends Error {
  constructor(
    readonly code: LtiRefusalCode,
    readonly detail: string,
    readonly registration?: RefusedRegistration,
  ) {
    super(`${code}: ${detail}`);
    this.name = 'LtiRefusal';
  }
}

/**
 * The LMS user's explanation of a refusal, in their language (`common:refusal.message.<code>` of the
 * catalogs under locales/); English when no translator is given.
 */
export function userMessageFor(code: LtiRefusalCode, t: Translator['t'] = translator('en').t): string {
  return t(`common:refusal.message.${code}`);
}

/** ltijs reports its own failures as error messages; these are the ones it can still produce. */
export function refusalFromLtijsMessage(message: string): LtiRefusalCode {
  switch (message) {
    case 'MISSING_VALIDATION_COOKIE':
      return 'missing_validation_cookie';
    case 'ISS_CLAIM_DOES_NOT_MATCH':
      return 'issuer_mismatch';
    case 'UNREGISTERED_PLATFORM':
      return 'unregistered_platform';
    case 'PLATFORM_NOT_ACTIVATED':
      return 'inactive_platform';
    case 'Session not found.':
      return 'session_expired';
    default:
      return 'invalid_token';
  }
}
