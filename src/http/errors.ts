import { randomUUID } from 'node:crypto';
import { DEFAULT_LOCALE, translator, type MessageValues, type Wording } from '../i18n/index.js';
import { propertyOf } from '../values.js';

/**
 * Errors the tool shows to people. `publicMessage` is safe for anyone (students included);
 * `adminMessage` explains the cause and is shown only to instructors and administrators.
 * Every error gets an incident id, logged with its cause, so support can find it.
 */
export class AppError extends Error {
  readonly incidentId: string;
  readonly options: AppErrorOptions;
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    readonly publicMessage: string,
    options: AppErrorOptions = {},
  ) {
    // The log's English sentence for a cause worded in the catalogs.
    const adminMessage = options.adminMessage ?? options.adminText?.(translator(DEFAULT_LOCALE));
    super(`${code}: ${adminMessage ?? publicMessage}`, { cause: options.cause });
    this.name = 'AppError';
    this.options = adminMessage === options.adminMessage ? options : { ...options, adminMessage };
    this.incidentId = options.incidentId ?? randomUUID();
  }
}

export interface AppErrorOptions {
  /** The cause for staff and the log, in English (derived from `adminText` when not given). */
  adminMessage?: string;
  /** The cause in the reader's language, shown to staff instead of `adminMessage`. */
  adminText?: Wording;
  cause?: unknown;
  retryable?: boolean;
  /** The incident id a domain error already logged its cause under. */
  incidentId?: string;
  /** An ordinary situation (an exam not ready yet), not a failure: the page shows no incident id to quote. */
  ordinary?: boolean;
  /**
   * The title and message in the user's language: `<messageKey>.title` and `<messageKey>.message` of the
   * catalogs (e.g. `common:errors.examClosed`), with `messageValues` as the message's ICU arguments. Without
   * it, people see the English `title` and `publicMessage`.
   */
  messageKey?: string;
  /** Like `messageKey`, for readers who see the cause (staff): their title and message say who fixes it, and where. */
  staffMessageKey?: string;
  messageValues?: MessageValues;
  /** Safe, structured detail for API clients (e.g. the violations of a rejected settings document). */
  details?: Record<string, unknown>;
}

/**
 * An error of a feature that knows how it is answered (its status, stable code and message key): the error
 * funnel asks it for its AppError, so the funnel depends on no feature.
 */
export interface AnswerableError {
  toAppError(): AppError;
}

export function isAnswerable(error: unknown): error is AnswerableError {
  return error instanceof Error && 'toAppError' in error && typeof error.toAppError === 'function';
}

export class NotFoundError extends AppError {
  constructor(what = 'page') {
    super(404, 'not_found', 'Not found', `This ${what} does not exist.`, { messageKey: 'common:errors.notFound', messageValues: { what } });
  }
}

export class ForbiddenError extends AppError {
  /** `messageKey`: the title and message in the user's language (see `AppErrorOptions.messageKey`). */
  constructor(message: string, admin?: string | Wording, messageKey?: string) {
    super(403, 'forbidden', 'Not allowed', message, typeof admin === 'function' ? { adminText: admin, messageKey } : { adminMessage: admin, messageKey });
  }
}

/**
 * The fields one log line gives an error: its code, incident id, the administrator's explanation once, and
 * the cause's identifying fields (name, code, operation, status, message) without stacks or repeats.
 */
export function errorLogFields(error: AppError): Record<string, unknown> {
  return {
    incidentId: error.incidentId,
    code: error.code,
    status: error.status,
    adminMessage: error.options.adminMessage,
    cause: causeFields(error.cause),
  };
}

function causeFields(cause: unknown): Record<string, unknown> | undefined {
  if (!(cause instanceof Error)) return cause === undefined ? undefined : { message: String(cause) };
  const field = (key: string) => propertyOf(cause, key);
  // A proctoring error's message and admin message say the same as the AppError's adminMessage: keep the short one.
  return { name: cause.name, code: field('code'), operation: field('operation'), status: field('status'), upstreamCode: field('upstreamCode'), message: cause.message };
}

const logged = new WeakSet<AppError>();

/** Marks an error whose log line was already written (e.g. as its launch's line): the error handler writes no second one. */
export function markLogged<E extends AppError>(error: E): E {
  logged.add(error);
  return error;
}

export const isLogged = (error: AppError): boolean => logged.has(error);
