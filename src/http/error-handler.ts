import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { DatabaseUnavailableError } from '../db/errors.js';
import type { Translator } from '../i18n/index.js';
import { translatorOf } from '../i18n/middleware.js';
import type { Logger } from '../logger.js';
import { countRefusedLaunch } from '../metrics.js';
import { LoginCapacityError, LtiRefusal, userMessageFor, type RefusedRegistration } from '../lti/errors.js';
import multer from 'multer';
import { UPLOAD_MAX_BYTES } from '../admin/uploads.js';
import { RosterError } from '../hosted/roster.js';
import { ProctoringError, ProctoringRequestInvalid, requestInvalidWording } from '../proctoring/errors.js';
import { localizeViolation } from '../exams/settings/violations.js';
import { AppError, errorLogFields, isLogged, markLogged, NotFoundError } from './errors.js';
import { localsOf } from './locals.js';
import { requestLogger } from './request-id.js';

/** API routes live under /api/ (and /lti/api/ behind the LTI session); hosted endpoints are fetched by scripts. */
const JSON_PATHS = /^\/(?:lti\/)?api\/|^\/hosted\//;

const wantsJson = (req: Request) =>
  JSON_PATHS.test(new URL(req.originalUrl, 'http://x').pathname) || (req.accepts(['html', 'json']) === 'json' && !req.accepts('html'));

/** Refused LTI messages: a clear page for the LMS user, the cause in the log (never the token itself). */
export interface RefusalOptions {
  /** A launch refused for an unknown client id or deployment id: kept for the admin console. */
  onRefusedRegistration?(registration: RefusedRegistration, code: string, incidentId: string): Promise<unknown>;
}

export function renderRefusal(logger: Logger, options: RefusalOptions = {}) {
  return (req: Request, res: Response, refusal: LtiRefusal, status: number): void => {
    const incidentId = randomUUID();
    const registration = refusal.registration;
    const log = requestLogger(logger, req);
    countRefusedLaunch(refusal.code);
    log.warn({ incidentId, code: refusal.code, detail: refusal.detail, path: req.path, ...(registration ? { registration } : {}) }, 'LTI message refused');
    const answer = () => answerRefusal(req, res, refusal, status, incidentId);
    if (!registration || !options.onRefusedRegistration) {
      answer();
      return;
    }
    // The administrator may open the console right after the refusal: answer once the record is stored
    // (or has failed, or takes too long), so the console never misses a refusal the LMS user already saw.
    const recorded = options.onRefusedRegistration(registration, refusal.code, incidentId).catch((error: unknown) => {
      log.warn({ err: error, incidentId }, 'could not record the refused registration');
    });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, REFUSAL_RECORD_WAIT_MS);
    });
    void Promise.race([recorded, deadline]).finally(() => {
      clearTimeout(timer);
      answer();
    });
  };
}

const REFUSAL_RECORD_WAIT_MS = 2_000;

function answerRefusal(req: Request, res: Response, refusal: LtiRefusal, status: number, incidentId: string): void {
  if (res.headersSent) return;
  res.status(status).set('Cache-Control', 'no-store');
  const { t } = translatorOf(req, res);
  if (wantsJson(req)) {
    res.json({ error: refusal.code, message: userMessageFor(refusal.code, t), incidentId });
    return;
  }
  res.render('error', {
    title: t(refusal.code === 'session_expired' ? 'common:refusal.title.sessionEnded' : 'common:refusal.title.notAccepted'),
    message: userMessageFor(refusal.code, t),
    incidentId,
    registration: refusal.registration,
  });
}

/** How one kind of domain or library error becomes an AppError (status, stable code, messages). */
interface ErrorMapping {
  matches(error: unknown): boolean;
  toAppError(error: unknown): AppError;
}

const bodyErrorType = (error: unknown) => (typeof error === 'object' && error !== null ? (error as { type?: unknown }).type : undefined);

/**
 * Every error the tool answers, mapped once: the first row that matches wins; anything unknown is a 500.
 * LTI refusals are answered by `renderRefusal` (a page for the LMS user), before this table.
 */
export const ERROR_MAPPINGS: readonly ErrorMapping[] = [
  { matches: (error) => error instanceof AppError, toAppError: (error) => error as AppError },
  {
    matches: (error) => error instanceof LoginCapacityError,
    toAppError: (error) =>
      new AppError(503, 'busy', 'Too many sign-ins right now', 'The proctoring tool is receiving more sign-ins than it can take right now. Please wait a minute and open the exam again from your course.', { cause: error, retryable: true, messageKey: 'common:errors.busy' }),
  },
  {
    matches: (error) => error instanceof DatabaseUnavailableError,
    toAppError: (error) => new AppError(503, 'unavailable', 'Temporarily unavailable', 'The proctoring tool cannot reach its database right now. Please try again in a minute.', { cause: error, retryable: true, messageKey: 'common:errors.unavailable' }),
  },
  { matches: (error) => error instanceof ProctoringError, toAppError: (error) => upstreamError(error as ProctoringError) },
  {
    matches: (error) => error instanceof RosterError,
    toAppError: (error) => {
      const roster = error as RosterError;
      const appError = new AppError(roster.status, roster.code, 'Roster unavailable', roster.message, { cause: roster, incidentId: roster.incidentId });
      // A failure with an incident id was logged with its cause by the roster service.
      return roster.incidentId ? markLogged(appError) : appError;
    },
  },
  {
    matches: (error) => error instanceof multer.MulterError,
    toAppError: (error) =>
      (error as multer.MulterError).code === 'LIMIT_FILE_SIZE'
        ? new AppError(413, 'too_large', 'File too large', `The file is larger than ${UPLOAD_MAX_BYTES / 1024 / 1024} MiB.`, { messageKey: 'common:errors.fileTooLarge', messageValues: { megabytes: UPLOAD_MAX_BYTES / 1024 / 1024 } })
        : new AppError(400, 'bad_request', 'Unreadable form', 'The form could not be read. Choose one file and try again.', { adminMessage: (error as multer.MulterError).code, messageKey: 'common:errors.unreadableForm' }),
  },
  { matches: (error) => bodyErrorType(error) === 'entity.too.large', toAppError: () => new AppError(413, 'too_large', 'Too large', 'The request is too large.', { messageKey: 'common:errors.requestTooLarge' }) },
  { matches: (error) => bodyErrorType(error) === 'entity.parse.failed', toAppError: () => new AppError(400, 'bad_request', 'Unreadable request', 'The request body could not be read.', { messageKey: 'common:errors.unreadableRequest' }) },
];

/** A failure of the proctoring client as a page: friendly for students, the cause for staff. */
export function upstreamError(error: ProctoringError): AppError {
  if (error instanceof ProctoringRequestInvalid) {
    // The contract refused the request before sending: a configuration problem, not a passing fault.
    return new AppError(
      422,
      'exam_settings_invalid',
      "This exam's settings need attention",
      'This proctored exam cannot start because of a problem with its settings. Please tell your instructor; nothing has been lost.',
      {
        // Each broken rule in the reader's words, as the settings page writes it.
        adminText: requestInvalidWording(error.violations, (t, violation) => localizeViolation(t.t, violation).message),
        adminMessage: error.adminMessage,
        cause: error,
        messageKey: 'common:errors.examSettingsInvalid',
      },
    );
  }
  const timeout = error.code === 'timeout';
  return new AppError(
    timeout ? 504 : 502,
    `upstream_${error.code}`,
    timeout ? 'The proctoring service did not answer in time' : 'The proctoring service could not be reached',
    'Your proctored session could not be started just now. Nothing is lost: try again in a moment.',
    { adminText: error.adminText, adminMessage: error.adminMessage, cause: error, retryable: true, messageKey: timeout ? 'common:errors.upstreamTimeout' : 'common:errors.upstreamUnreachable' },
  );
}

export function toAppError(error: unknown): AppError {
  const mapping = ERROR_MAPPINGS.find((row) => row.matches(error));
  return mapping ? mapping.toAppError(error) : new AppError(500, 'internal', 'Something went wrong', 'Something went wrong on our side. Please try again.', { cause: error, messageKey: 'common:errors.internal' });
}

/** What a 503 asks clients to wait: a database restart or fail-over takes tens of seconds. */
const RETRY_AFTER_SECONDS = 30;

export const notFound: RequestHandler = (_req, _res, next) => next(new NotFoundError());

/** The one place errors become responses: JSON for APIs and hosted endpoints, a page for people. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  const refuse = renderRefusal(logger);
  return (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    if (error instanceof LtiRefusal) {
      refuse(req, res, error, error.code === 'session_expired' ? 401 : 400);
      return;
    }
    const appError = toAppError(error);
    if (!isLogged(appError)) {
      const log = requestLogger(logger, req);
      const fields = { ...errorLogFields(appError), path: req.path };
      // Only unexpected errors need their stack; known ones are explained by their code and cause.
      if (appError.code === 'internal') log.error({ ...fields, err: error }, appError.title);
      else if (appError.status >= 500) log.error(fields, appError.title);
      else log.info(fields, appError.title);
    }
    const showAdmin = localsOf(res).showAdminDetail === true;
    // Errors raised before the language was chosen (e.g. in the sandbox's routes) still get a page in one.
    const reader = translatorOf(req, res);
    const text = localizedText(appError, reader);
    const adminMessage = showAdmin ? (appError.options.adminText?.(reader) ?? appError.options.adminMessage) : undefined;
    res.status(appError.status).set('Cache-Control', 'no-store');
    if (appError.status === 503) res.set('Retry-After', String(RETRY_AFTER_SECONDS));
    if (wantsJson(req)) {
      res.json({
        ...appError.options.details,
        error: appError.code,
        message: text.message,
        incidentId: appError.options.ordinary ? undefined : appError.incidentId,
        ...(showAdmin && adminMessage ? { adminMessage } : {}),
      });
      return;
    }
    res.render('error', {
      title: text.title,
      message: text.message,
      adminMessage,
      incidentId: appError.options.ordinary ? undefined : appError.incidentId,
      ...retryOf(req, res, appError),
    });
  };
}

/** An error's title and message in the response's language, when the error names its messages. */
function localizedText(error: AppError, translator: Translator): { title: string; message: string } {
  const key = error.options.messageKey;
  if (!key) return { title: error.title, message: error.publicMessage };
  return { title: translator.t(`${key}.title`), message: translator.t(`${key}.message`, error.options.messageValues) };
}

/**
 * "Try again" repeats a GET as it was; a POST only within an LTI session, whose token the adapter leaves in
 * `res.locals.retryFields` (posted again as hidden fields, never put into the URL).
 */
function retryOf(req: Request, res: Response, error: AppError): { retryUrl?: string; retryMethod?: 'post'; retryFields?: Record<string, string> } {
  if (!error.options.retryable) return {};
  if (req.method === 'GET') return { retryUrl: req.originalUrl };
  const fields = localsOf(res).retryFields;
  if (req.method !== 'POST' || !fields) return {};
  return { retryUrl: req.originalUrl.split('?')[0], retryMethod: 'post', retryFields: fields };
}
