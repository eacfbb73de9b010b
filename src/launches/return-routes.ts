import express, { type Router } from 'express';
import type { AttemptStore } from '../exams/attempts.js';
import type { ExamStore } from '../exams/store.js';
import { AppError, NotFoundError } from '../http/errors.js';
import { redirectOf } from './requests.js';
import { verifyReturnLink, type ReturnLinkSecret, type ReturnOutcome } from './return-links.js';
import { isUuid } from '../values.js';
import { translatorOf } from '../i18n/middleware.js';

import { parseParams, parseQuery, pathParam, textField } from '../http/request-input.js';
import { z } from 'zod';

const RETURN_PARAMS = z.object({ attemptId: pathParam, outcome: pathParam });
const RETURN_QUERY = z.object({ sig: textField });
const isReturnOutcome = (outcome: string): outcome is ReturnOutcome => outcome === 'submitted' || outcome === 'ended';

/**
 * Where the proctoring service sends the candidate after the exam: records the attempt's outcome
 * (graceful submission or ungraceful end) and forwards as the exam's settings say (`tool.redirect`):
 * back to the LMS's return URL from the launch (default), a "you may close this window" page, or a
 * web address of the instructor's choice. A second visit changes nothing but forwards again.
 */
export function createReturnRoutes(deps: { attempts: AttemptStore; exams: Pick<ExamStore, 'get'>; secret: ReturnLinkSecret }): Router {
  const router = express.Router();
  router.get('/return/:attemptId/:outcome', async (req, res) => {
    const { attemptId, outcome } = parseParams(RETURN_PARAMS, req);
    const { sig } = parseQuery(RETURN_QUERY, req);
    if (!isUuid(attemptId) || !isReturnOutcome(outcome)) throw new NotFoundError();
    if (!verifyReturnLink(deps.secret, attemptId, outcome, sig)) {
      throw new AppError(403, 'bad_return_link', 'This link is not valid', 'This return link is not valid. Go back to your course in the LMS.', { messageKey: 'common:errors.badReturnLink' });
    }
    const finished = await deps.attempts.finish(attemptId, outcome);
    if (!finished) throw new NotFoundError('attempt');
    res.set('Cache-Control', 'no-store');
    const redirect = redirectOf((await deps.exams.get(finished.attempt.examId))?.settings ?? null);
    const back = redirect.mode === 'message' ? undefined : redirect.mode === 'url' ? redirect.url : finished.returnUrl;
    if (back && /^https?:\/\//i.test(back)) {
      res.redirect(303, back);
      return;
    }
    res.render('launch/returned', {
      title: translatorOf(req, res).t(outcome === 'submitted' ? 'student:returned.submittedTitle' : 'student:returned.endedTitle'),
      submitted: outcome === 'submitted',
    });
  });
  return router;
}
