import type { Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { postedPage, wantsJson, type OwnAnswer } from '../http/error-handler.js';
import { requestLogger } from '../http/request-id.js';
import { translatorOf } from '../i18n/middleware.js';
import type { Logger } from '../logger.js';
import { countRefusedLaunch } from '../metrics.js';
import { LtiRefusal, userMessageFor, type RefusedRegistration } from './errors.js';

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
    // The launch's POST (id_token) or a form: reload and Back show this page again without sending it again.
    ...postedPage(req),
  });
}

/** The error funnel's answer to an LTI refusal thrown by a route: the refusal page (401 for an expired session). */
export function refusalAnswer(logger: Logger): OwnAnswer {
  const refuse = renderRefusal(logger);
  return (error, req, res) => {
    if (!(error instanceof LtiRefusal)) return false;
    refuse(req, res, error, error.code === 'session_expired' ? 401 : 400);
    return true;
  };
}
