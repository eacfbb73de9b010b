import { randomBytes } from 'node:crypto';
import cookieParser from 'cookie-parser';
import express, { type Router } from 'express';
import { z } from 'zod';
import { plainCookie } from '../http/cookies.js';
import { AppError, NotFoundError } from '../http/errors.js';
import { parseParams, pathParam } from '../http/request-input.js';
import { requestLogger } from '../http/request-id.js';
import { translatorOf } from '../i18n/middleware.js';
import type { Logger } from '../logger.js';
import { isUuid } from '../values.js';
import type { AssessmentHandoffStore, HandoffTake } from './assessment-handoffs.js';
import { handoffCookieName } from './proctoring-launch.js';
import { HANDOFF_PATH, startAssessmentClaims } from './proctoring-services.js';

const HANDOFF_PARAMS = z.object({ handoffId: pathParam });

/** Signs a tool-originating message with the tool's key for that platform (RS256, its kid). */
export type SignToolMessage = (platform: { issuer: string; clientId: string }, claims: Record<string, unknown>) => Promise<string>;

const REFUSALS: Record<Exclude<HandoffTake, { ok: true }>['reason'], () => AppError> = {
  unknown: () => new NotFoundError('start of an exam'),
  other_browser: () =>
    new AppError(403, 'handoff_other_browser', 'Open the exam from your course', 'This page starts an exam only in the browser that opened it from the course. Go back to your course and open the exam again.', {
      messageKey: 'common:errors.handoffOtherBrowser',
    }),
  used: () =>
    new AppError(409, 'handoff_used', 'This exam was already started', 'This page already started your exam once. To continue, go back to your course and open the exam again.', {
      messageKey: 'common:errors.handoffUsed',
      ordinary: true,
    }),
  expired: () =>
    new AppError(410, 'handoff_expired', 'This start has expired', 'Too much time has passed since you opened the exam. Go back to your course and open the exam again.', {
      messageKey: 'common:errors.handoffExpired',
      ordinary: true,
    }),
};

/**
 * LTI Proctoring Services: the proctoring service's launch_url. Once its checks pass, the candidate's browser comes
 * here and is returned to the platform with a signed `LtiStartAssessment`, posted as the form field `JWT` to the
 * platform's start_assessment_url. The hand-off works once, only for the browser that carries its cookie, until it
 * expires; the URL carries no token (the id is not a credential).
 */
export function createAssessmentRoutes(deps: { handoffs: AssessmentHandoffStore; sign: SignToolMessage; logger: Logger; now?: () => number }): Router {
  const router = express.Router();
  router.get(`${HANDOFF_PATH}/:handoffId`, cookieParser(), async (req, res) => {
    const { handoffId } = parseParams(HANDOFF_PARAMS, req);
    if (!isUuid(handoffId)) throw new NotFoundError('start of an exam');
    const taken = await deps.handoffs.take(handoffId, plainCookie(req, handoffCookieName(handoffId)));
    if (!taken.ok) {
      requestLogger(deps.logger, req).info({ handoffId, reason: taken.reason }, 'LtiStartAssessment hand-off refused');
      throw REFUSALS[taken.reason]();
    }
    const { handoff } = taken;
    const nowSeconds = Math.floor((deps.now?.() ?? Date.now()) / 1000);
    const jwt = await deps.sign({ issuer: handoff.issuer, clientId: handoff.clientId }, startAssessmentClaims(handoff, randomBytes(18).toString('base64url'), nowSeconds));
    requestLogger(deps.logger, req).info({ handoffId, attemptId: handoff.attemptId }, 'LtiStartAssessment sent');
    res.set('Cache-Control', 'no-store').render('launch/start-assessment', {
      title: translatorOf(req, res).t('student:startAssessment.title'),
      action: handoff.startAssessmentUrl,
      jwt,
    });
  });
  return router;
}
