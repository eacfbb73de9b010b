/**
 * Why an LTI message was refused. Each code maps to one check; the message is for the LMS user,
 * the detail (never containing tokens) for the log and for administrators.
 */
export type LtiRefusalCode =
  | 'missing_validation_cookie'
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
  | 'login_invalid';

export class LtiRefusal extends Error {
  constructor(
    readonly code: LtiRefusalCode,
    readonly detail: string,
  ) {
    super(`${code}: ${detail}`);
    this.name = 'LtiRefusal';
  }
}

const USER_MESSAGES: Record<LtiRefusalCode, string> = {
  missing_validation_cookie:
    'Your browser did not keep the cookie this tool sets while signing you in. This happens when the LMS shows the tool inside a frame and the browser blocks third-party cookies. Open the exam again from your course; if it happens again, open it in a new window.',
  issuer_mismatch: 'The sign-in answer came from a different LMS than the one that started it. Open the exam again from your course.',
  unregistered_platform: 'This LMS is not registered with the proctoring tool. Ask your LMS administrator to install the tool.',
  inactive_platform: 'This LMS registration has not been activated yet. Ask your LMS administrator to activate it.',
  invalid_token: 'The sign-in message from your LMS could not be read. Open the exam again from your course.',
  bad_signature: 'The sign-in message from your LMS could not be verified. Open the exam again from your course.',
  key_unavailable: "The LMS's signing keys could not be fetched to verify your sign-in. Try again in a moment.",
  token_expired: 'The sign-in message from your LMS has expired. Open the exam again from your course.',
  token_from_future: "The sign-in message from your LMS is dated in the future; the LMS's or the tool's clock is wrong. Ask your administrator to check the server clocks.",
  audience_mismatch: 'The sign-in message was meant for another tool. Open the exam again from your course.',
  nonce_invalid: 'This sign-in message was already used or was not requested by this tool. Open the exam again from your course.',
  unknown_deployment: 'This tool installation (deployment) is not known to the proctoring tool. Ask your LMS administrator to add its deployment id.',
  wrong_target: 'The link points at another site than this tool. Ask your LMS administrator to check the tool configuration.',
  unsupported_message: 'Your LMS sent a kind of message this tool does not handle.',
  missing_claim: 'Your LMS left out information this tool needs. Ask your LMS administrator to check the tool configuration.',
  session_expired: 'Your session with the proctoring tool has ended. Open the exam again from your course.',
  login_invalid: 'The sign-in request from your LMS is incomplete or invalid. Open the exam again from your course.',
};

export function userMessageFor(code: LtiRefusalCode): string {
  return USER_MESSAGES[code];
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
