import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.js';
import { LtiRefusal, userMessageFor } from '../lti/errors.js';
import { AppError, NotFoundError } from './errors.js';

/** API routes live under /api/ (and /lti/api/ behind the LTI session); hosted endpoints are fetched by scripts. */
const JSON_PATHS = /^\/(?:lti\/)?api\/|^\/hosted\//;

const wantsJson = (req: Request) =>
  JSON_PATHS.test(new URL(req.originalUrl, 'http://x').pathname) || (req.accepts(['html', 'json']) === 'json' && !req.accepts('html'));

/** Refused LTI messages: a clear page for the LMS user, the cause in the log (never the token itself). */
export function renderRefusal(logger: Logger) {
  return (req: Request, res: Response, refusal: LtiRefusal, status: number): void => {
    const incidentId = randomUUID();
    logger.warn({ incidentId, code: refusal.code, detail: refusal.detail, path: req.path }, 'LTI message refused');
    if (res.headersSent) return;
    res.status(status).set('Cache-Control', 'no-store');
    if (wantsJson(req)) {
      res.json({ error: refusal.code, message: userMessageFor(refusal.code), incidentId });
      return;
    }
    res.render('error', {
      title: refusal.code === 'session_expired' ? 'Your session has ended' : 'This launch could not be accepted',
      message: userMessageFor(refusal.code),
      incidentId,
    });
  };
}

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
    const bodyError = error as { type?: string; status?: number };
    const appError =
      error instanceof AppError
        ? error
        : bodyError.type === 'entity.too.large'
          ? new AppError(413, 'too_large', 'Too large', 'The request is too large.')
          : bodyError.type === 'entity.parse.failed'
            ? new AppError(400, 'bad_request', 'Unreadable request', 'The request body could not be read.')
            : new AppError(500, 'internal', 'Something went wrong', 'Something went wrong on our side. Please try again.', { cause: error });
    const log = { incidentId: appError.incidentId, code: appError.code, path: req.path, cause: appError.cause };
    if (appError.status >= 500) logger.error({ ...log, err: error }, appError.message);
    else logger.info(log, appError.message);
    const showAdmin = res.locals.showAdminDetail === true;
    res.status(appError.status).set('Cache-Control', 'no-store');
    if (wantsJson(req)) {
      res.json({
        error: appError.code,
        message: appError.publicMessage,
        incidentId: appError.incidentId,
        ...(showAdmin && appError.options.adminMessage ? { adminMessage: appError.options.adminMessage } : {}),
      });
      return;
    }
    res.render('error', {
      title: appError.title,
      message: appError.publicMessage,
      adminMessage: showAdmin ? appError.options.adminMessage : undefined,
      incidentId: appError.incidentId,
      retryUrl: appError.options.retryable && req.method === 'GET' ? req.originalUrl : undefined,
    });
  };
}
