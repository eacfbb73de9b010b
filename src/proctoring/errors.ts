import type { Violation } from './contract.js';

/**
 * Errors of the proctoring client: one small hierarchy, each with a stable `code` and an
 * `adminMessage` that says what an administrator should do. None of them carries the api key: the
 * client builds every message itself and never attaches a raw transport error (see client.ts).
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

export class ProctoringError extends Error {
  readonly operation: ProctoringOperation;
  readonly status?: number;
  readonly retryable: boolean;

  constructor(
    readonly code: ProctoringErrorCode,
    message: string,
    readonly adminMessage: string,
    options: ErrorOptions,
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ProctoringError';
    this.operation = options.operation;
    this.status = options.status;
    this.retryable = options.retryable ?? false;
  }
}

/** The request broke the contract; it was not sent. */
export class ProctoringRequestInvalid extends ProctoringError {
  declare readonly code: 'invalid_request';
  constructor(
    readonly violations: Violation[],
    operation: ProctoringOperation,
  ) {
    const list = violations.map((v) => v.message).join(' ');
    super(
      'invalid_request',
      `${operation}: request not sent, it breaks ${violations.length} rule(s) of the Launch API: ${violations.map((v) => `${v.path || '(body)'} ${v.rule}`).join(', ')}`,
      `The request was not sent to the proctoring service because it breaks the service's rules. ${list} Correct the exam's settings and try again.`,
      { operation },
    );
    this.name = 'ProctoringRequestInvalid';
  }
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
      `The proctoring service refused this request as invalid (HTTP 400)${body ? `, answering: ${body}` : ''}. Check the exam's settings; if they look right, report this answer to the proctoring vendor.`,
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
    adminMessage:
      "The proctoring service says the institution's account is not active (code 2154): it is disabled or suspended. Ask the proctoring vendor to reactivate it; nothing needs to change in this tool.",
  },
  2155: {
    code: 'wrong_region',
    summary: 'wrong region for this key',
    adminMessage:
      "The API key was issued for another region than this base URL (code 2155). Set the proctoring base URL to the region the key was issued for, or use the key issued for this region.",
  },
  2655: {
    code: 'invalid_api_key',
    summary: 'invalid api_key',
    adminMessage:
      'The proctoring service rejected the API key (code 2655): it is missing, mistyped or revoked, or not enabled for this operation. Check the consumer key and secret (or the API key) in the proctoring settings, and ask the vendor to enable this operation for the key.',
  },
} as const satisfies Record<number, { code: ProctoringErrorCode; summary: string; adminMessage: string }>;

export type UnauthorizedCode = (typeof UNAUTHORIZED_CODES)[keyof typeof UNAUTHORIZED_CODES]['code'] | 'unauthorized';

/** HTTP 401, with the service's code 2154, 2155 or 2655 (or none it documents: `unauthorized`). */
export class ProctoringUnauthorized extends ProctoringError {
  declare readonly code: UnauthorizedCode;
  constructor(
    readonly upstreamCode: number | undefined,
    operation: ProctoringOperation,
    account: { region?: string; baseUrl?: string } = {},
  ) {
    const known = upstreamCode !== undefined && upstreamCode in UNAUTHORIZED_CODES ? UNAUTHORIZED_CODES[upstreamCode as keyof typeof UNAUTHORIZED_CODES] : undefined;
    // A 2155 says the key and the base URL belong to different regions: name the region the account is set up for.
    const where = upstreamCode === 2155 && account.region ? ` This account is set up for region ${account.region}${account.baseUrl ? ` at ${account.baseUrl}` : ''}.` : '';
    super(
      known?.code ?? 'unauthorized',
      `${operation}: the proctoring service answered 401 (${known ? `${known.summary}, code ${upstreamCode}` : `code ${upstreamCode ?? 'none'}`})`,
      known ? `${known.adminMessage}${where}` :
        `The proctoring service refused the credentials (HTTP 401, code ${upstreamCode ?? 'none'}). Check the API key, the region's base URL and that the account is active.`,
      { operation, status: 401 },
    );
    this.name = 'ProctoringUnauthorized';
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
      `The proctoring service at ${host} did not answer within ${timeoutMs} ms. It may be overloaded or unreachable from this server: try again, and if it lasts, check the vendor's status and the network path from this server.`,
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
      `The proctoring service answered HTTP ${status}: it is failing or overloaded. This is usually temporary; try again in a few minutes, and contact the vendor if it lasts.`,
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
      `The connection to the proctoring service at ${host} failed (${reason}), also when tried again. Check the proctoring base URL and that this server may connect to it (firewall, DNS, proxy).`,
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
      `The proctoring service answered${status ? ` HTTP ${status}` : ''} with something this tool cannot use (${detail}). Check that the proctoring base URL points at the Launch API of your region, not at a web page or a proxy; if it does, report this to the vendor.`,
      { operation, status },
    );
    this.name = 'ProctoringBadResponse';
  }
}
