import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import multer from 'multer';
import { DatabaseUnavailableError } from '../db/errors.js';
import type { Translator } from '../i18n/index.js';
import { translatorOf } from '../i18n/middleware.js';
import type { Logger } from '../logger.js';
import { AppError, errorLogFields, isAnswerable, isLogged, NotFoundError } from './errors.js';
import { localsOf } from './locals.js';
import { requestLogger } from './request-id.js';
import { fileTooLarge } from './uploads.js';
import { propertyOf } from '../values.js';

/** API routes live under /api/ (and /lti/api/ behind the LTI session); hosted endpoints are fetched by scripts, webhooks sent by a service. */
const JSON_PATHS = /^\/(?:lti\/)?api\/|^\/hosted\/|^\/webhooks\//;

export const wantsJson = (req: Request): boolean =>
  JSON_PATHS.test(new URL(req.originalUrl, 'http://x').pathname) || (req.accepts(['html', 'json']) === 'json' && !req.accepts('html'));

/** How one kind of domain or library error becomes an AppError (status, stable code, messages). */
interface ErrorMapping {
  matches(error: unknown): boolean;
  toAppError(error: unknown): AppError;
}

const toInternal = (error: unknown): AppError =>
  new AppError(500, 'internal', 'Something went wrong', 'Something went wrong on our side. Please try again.', { cause: error, messageKey: 'common:errors.internal' });

const bodyErrorType = (error: unknown) => propertyOf(error, 'type');

/**
 * Every error the tool answers, mapped once: the first row that matches wins; anything unknown is a 500.
 * Errors with a page of their own (an LTI refusal) are answered before this table (`ownAnswers`).
 */
export const ERROR_MAPPINGS: readonly ErrorMapping[] = [
  { matches: (error) => error instanceof AppError, toAppError: (error) => (error instanceof AppError ? error : toInternal(error)) },
  // A feature's own errors (a Launch API failure, a roster failure, too many pending logins) say how they are answered.
  { matches: isAnswerable, toAppError: (error) => (isAnswerable(error) ? error.toAppError() : toInternal(error)) },
  {
    matches: (error) => error instanceof DatabaseUnavailableError,
    toAppError: (error) => new AppError(503, 'unavailable', 'Temporarily unavailable', 'The proctoring tool cannot reach its database right now. Please try again in a minute.', { cause: error, retryable: true, messageKey: 'common:errors.unavailable' }),
  },
  {
    matches: (error) => error instanceof multer.MulterError,
    toAppError: (error) =>
      !(error instanceof multer.MulterError)
        ? toInternal(error)
        : error.code === 'LIMIT_FILE_SIZE'
        ? fileTooLarge()
        : new AppError(400, 'bad_request', 'Unreadable form', 'The form could not be read. Choose one file and try again.', { adminMessage: error.code, messageKey: 'common:errors.unreadableForm' }),
  },
  { matches: (error) => bodyErrorType(error) === 'entity.too.large', toAppError: () => new AppError(413, 'too_large', 'Too large', 'The request is too large.', { messageKey: 'common:errors.requestTooLarge' }) },
  { matches: (error) => bodyErrorType(error) === 'entity.parse.failed', toAppError: () => new AppError(400, 'bad_request', 'Unreadable request', 'The request body could not be read.', { messageKey: 'common:errors.unreadableRequest' }) },
  // The client went away before its body arrived, or was cut off by the request timeout: not the tool's fault.
  { matches: (error) => bodyErrorType(error) === 'request.aborted', toAppError: () => new AppError(400, 'bad_request', 'Unreadable request', 'The request body could not be read.', { messageKey: 'common:errors.unreadableRequest' }) },
];

export function toAppError(error: unknown): AppError {
  const mapping = ERROR_MAPPINGS.find((row) => row.matches(error));
  return mapping ? mapping.toAppError(error) : toInternal(error);
}

/** What a 503 asks clients to wait: a database restart or fail-over takes tens of seconds. */
const RETRY_AFTER_SECONDS = 30;

/**
 * The address an error page answered to a POST takes in the browser's history (`public/js/error-page.js`): the entry
 * holds the page itself, so reload, Back and Forward show it again without sending the form again.
 */
export const ERROR_AGAIN_PATH = '/lti/error';

/** What the error page needs to keep itself in the history when it answers a form (a POST). */
export const postedPage = (req: Request) => (req.method === 'POST' ? { againPath: ERROR_AGAIN_PATH } : {});

export const notFound: RequestHandler = (_req, _res, next) => next(new NotFoundError());

/** Answers an error with a page of its own and returns true, or returns false for an error it does not own. */
export type OwnAnswer = (error: unknown, req: Request, res: Response) => boolean;

/**
 * The one place errors become responses: JSON for APIs and hosted endpoints, a page for people. A feature
 * whose errors need a page of their own registers it in `ownAnswers` from the composition root.
 */
export function errorHandler(logger: Logger, ownAnswers: readonly OwnAnswer[] = []): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    if (ownAnswers.some((answer) => answer(error, req, res))) return;
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
    const text = localizedText(appError, reader, showAdmin);
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
      // Answered to a form: the page's script keeps it in the history entry, so reload and Back send nothing again.
      ...postedPage(req),
    });
  };
}

/** An error's title and message in the response's language, when the error names its messages. */
function localizedText(error: AppError, translator: Translator, staff: boolean): { title: string; message: string } {
  const key = (staff ? error.options.staffMessageKey : undefined) ?? error.options.messageKey;
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
