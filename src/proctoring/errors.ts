import { AppError, type AnswerableError } from '../http/errors.js';
import { DEFAULT_LOCALE, translator, wording, type Wording } from '../i18n/index.js';
import type { Violation } from './contract.js';
import { localizeViolation } from './violations.js';

/**
 * Errors of the proctoring client: one small hierarchy, each with a stable `code` and an
 * `adminText` that says what an administrator should do, in the reader's language (`adminMessage` is its
 * English, for logs and the command line). None of them carries the api key: the client builds every
 * message itself and never attaches a raw transport error (see client.ts).
 */
export type ProctoringErrorCode =
  | 'invalid_request'
  | 'bad_request'
  | 'account_inactive'
  | 'wrong_region'
  | 'invalid_api_key'
  | 'unauthorized'
  | 'timeout'
  | 'unavailable'
  | 'connection_failed'
  | 'bad_response';

export type ProctoringOperation =
  | 'candidate_launch'
  | 'reviewer_launch'
  | 'live_launch'
  | 'launchpad'
  | 'webhooks_list'
  | 'webhooks_subscribe'
  | 'webhooks_unsubscribe';

interface ErrorOptions {
  operation: ProctoringOperation;
  /** HTTP status, when the service answered. */
  status?: number;
  /** Whether trying again later may help. */
  retryable?: boolean;
  cause?: unknown;
}

export class ProctoringError extends Error implements AnswerableError {
  readonly operation: ProctoringOperation;
  readonly status?: number;
  readonly retryable: boolean;
  readonly adminMessage: string;

  constructor(
    readonly code: ProctoringErrorCode,
    message: string,
    readonly adminText: Wording,
    options: ErrorOptions,
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ProctoringError';
    this.adminMessage = adminText(translator(DEFAULT_LOCALE));
    this.operation = options.operation;
    this.status = options.status;
    this.retryable = options.retryable ?? false;
  }

  /** A failure of the proctoring client as a page: friendly for students, the cause for staff. */
  toAppError(): AppError {
    const timeout = this.code === 'timeout';
    return new AppError(
      timeout ? 504 : 502,
      `upstream_${this.code}`,
      timeout ? 'The proctoring service did not answer in time' : 'The proctoring service could not be reached',
      'Your proctored session could not be started just now. Nothing is lost: try again in a moment.',
      { adminText: this.adminText, adminMessage: this.adminMessage, cause: this, retryable: true, messageKey: timeout ? 'common:errors.upstreamTimeout' : 'common:errors.upstreamUnreachable' },
    );
  }
}

/** The request broke the contract; it was not sent. */
export class ProctoringRequestInvalid extends ProctoringError {
  declare readonly code: 'invalid_request';
  constructor(
    readonly violations: Violation[],
    operation: ProctoringOperation,
  ) {
    super(
      'invalid_request',
      `${operation}: request not sent, it breaks ${violations.length} rule(s) of the Launch API: ${violations.map((v) => `${v.path || '(body)'} ${v.rule}`).join(', ')}`,
      requestInvalidWording(violations, (_t, v) => v.message),
      { operation },
    );
    this.name = 'ProctoringRequestInvalid';
  }

  /** The contract refused the request before sending: a configuration problem, not a passing fault. */
  override toAppError(): AppError {
    return new AppError(
      422,
      'exam_settings_invalid',
      "This exam's settings need attention",
      'This proctored exam cannot start because of a problem with its settings. Please tell your instructor; nothing has been lost.',
      {
        // Each broken rule in the reader's words, as the settings page writes it.
        adminText: requestInvalidWording(this.violations, (t, violation) => localizeViolation(t.t, violation).message),
        adminMessage: this.adminMessage,
        cause: this,
        messageKey: 'common:errors.examSettingsInvalid',
      },
    );
  }
}

/** Why a request was not sent, each broken rule in the reader's words (`describe`: the settings' sentences for them). */
export function requestInvalidWording(violations: readonly Violation[], describe: (t: Parameters<Wording>[0], violation: Violation) => string): Wording {
  return (t) => t.t('causes:proctoring.requestInvalid', { rules: violations.map((v) => describe(t, v)).join(' ') });
}

/** HTTP 400: the service refused the request. `body` keeps (the start of) what it answered. */
export class ProctoringBadRequest extends ProctoringError {
  declare readonly code: 'bad_request';
  constructor(
    readonly body: string,
    operation: ProctoringOperation,
  ) {
    super(
      'bad_request',
      `${operation}: the proctoring service answered 400 Bad request${body ? `: ${body}` : ''}`,
      body ? wording('causes:proctoring.badRequestAnswering', { body }) : wording('causes:proctoring.badRequest'),
      { operation, status: 400 },
    );
    this.name = 'ProctoringBadRequest';
  }
}

/** Upstream codes of HTTP 401 (spec: Errors) and what each means for an administrator. */
export const UNAUTHORIZED_CODES = {
  2154: {
    code: 'account_inactive',
    summary: 'account not active',
    causeKey: 'causes:proctoring.accountInactive',
  },
  2155: {
    code: 'wrong_region',
    summary: 'wrong region for this key',
    causeKey: 'causes:proctoring.wrongRegion',
  },
  2655: {
    code: 'invalid_api_key',
    summary: 'invalid api_key',
    causeKey: 'causes:proctoring.invalidApiKey',
  },
} as const satisfies Record<number, { code: ProctoringErrorCode; summary: string; causeKey: string }>;

type UnauthorizedMeaning = (typeof UNAUTHORIZED_CODES)[keyof typeof UNAUTHORIZED_CODES];
const UNAUTHORIZED_BY_CODE = new Map<number, UnauthorizedMeaning>([
  [2154, UNAUTHORIZED_CODES[2154]],
  [2155, UNAUTHORIZED_CODES[2155]],
  [2655, UNAUTHORIZED_CODES[2655]],
]);

export type UnauthorizedCode = (typeof UNAUTHORIZED_CODES)[keyof typeof UNAUTHORIZED_CODES]['code'] | 'unauthorized';

/** HTTP 401, with the service's code 2154, 2155 or 2655 (or none it documents: `unauthorized`). */
export class ProctoringUnauthorized extends ProctoringError {
  declare readonly code: UnauthorizedCode;
  constructor(
    readonly upstreamCode: number | undefined,
    operation: ProctoringOperation,
    account: { region?: string; baseUrl?: string } = {},
  ) {
    const known = upstreamCode === undefined ? undefined : UNAUTHORIZED_BY_CODE.get(upstreamCode);
    // A 2155 says the key and the base URL belong to different regions: name the region the account is set up for.
    const where =
      upstreamCode !== 2155 || !account.region
        ? undefined
        : account.baseUrl
          ? wording('causes:proctoring.accountRegionAt', { region: account.region, baseUrl: account.baseUrl })
          : wording('causes:proctoring.accountRegion', { region: account.region });
    const cause = known ? wording(known.causeKey) : wording('causes:proctoring.unauthorized', { code: upstreamCode === undefined ? 'none' : String(upstreamCode) });
    super(
      known?.code ?? 'unauthorized',
      `${operation}: the proctoring service answered 401 (${known ? `${known.summary}, code ${upstreamCode}` : `code ${upstreamCode ?? 'none'}`})`,
      where ? (t) => `${cause(t)} ${where(t)}` : cause,
      { operation, status: 401 },
    );
    this.name = 'ProctoringUnauthorized';
  }

  /** The account is refused: a retry cannot help, so the page says who fixes it instead of "try again". */
  override toAppError(): AppError {
    const where = wording('causes:proctoring.fixInConsole');
    return new AppError(
      502,
      `upstream_${this.code}`,
      'The proctoring account is not set up correctly',
      'This proctored exam cannot start until the proctoring account is corrected; trying again will not help. Please tell your instructor, who can ask the LMS administrator to fix it. Nothing has been lost.',
      {
        adminText: (t) => `${this.adminText(t)} ${where(t)}`,
        adminMessage: this.adminMessage,
        cause: this,
        messageKey: 'common:errors.upstreamConfiguration',
        staffMessageKey: 'common:errors.upstreamConfigurationStaff',
      },
    );
  }
}

/** No answer within the timeout. Not retried: the service may have acted on the request. */
export class ProctoringTimeout extends ProctoringError {
  declare readonly code: 'timeout';
  constructor(
    readonly timeoutMs: number,
    readonly host: string,
    operation: ProctoringOperation,
  ) {
    super(
      'timeout',
      `${operation}: no answer from the proctoring service at ${host} within ${timeoutMs} ms`,
      wording('causes:proctoring.timeout', { host, milliseconds: timeoutMs }),
      { operation, retryable: true },
    );
    this.name = 'ProctoringTimeout';
  }
}

/** HTTP 5xx (or 429): the service is failing or overloaded. */
export class ProctoringUnavailable extends ProctoringError {
  declare readonly code: 'unavailable';
  constructor(status: number, operation: ProctoringOperation) {
    super(
      'unavailable',
      `${operation}: the proctoring service is unavailable (HTTP ${status})`,
      wording('causes:proctoring.unavailable', { status }),
      { operation, status, retryable: true },
    );
    this.name = 'ProctoringUnavailable';
  }
}

/** The connection failed before any answer, also on the one retry, or dropped while reading the answer. */
export class ProctoringConnectionFailed extends ProctoringError {
  declare readonly code: 'connection_failed';
  constructor(
    readonly reason: string,
    readonly host: string,
    readonly attempts: number,
    operation: ProctoringOperation,
  ) {
    super(
      'connection_failed',
      `${operation}: connection to the proctoring service at ${host} failed (${reason}) after ${attempts} attempt(s)`,
      wording('causes:proctoring.connectionFailed', { host, reason }),
      { operation, retryable: true },
    );
    this.name = 'ProctoringConnectionFailed';
  }
}

/** The service answered something the tool cannot use: an unexpected status or body. */
export class ProctoringBadResponse extends ProctoringError {
  declare readonly code: 'bad_response';
  constructor(
    readonly detail: string,
    operation: ProctoringOperation,
    status?: number,
  ) {
    super(
      'bad_response',
      `${operation}: unusable answer from the proctoring service${status ? ` (HTTP ${status})` : ''}: ${detail}`,
      status ? wording('causes:proctoring.badResponseStatus', { status, detail }) : wording('causes:proctoring.badResponse', { detail }),
      { operation, status },
    );
    this.name = 'ProctoringBadResponse';
  }
}
