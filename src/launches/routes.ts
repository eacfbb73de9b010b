import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import type { Csrf } from '../http/csrf.js';
import { bodyFields } from '../http/request-input.js';
import { localsOf } from '../http/locals.js';
import { requestLogger } from '../http/request-id.js';
import type { Logger } from '../logger.js';
import type { LtiLaunch } from '../lti/claims.js';
import type { LtiAdapter } from '../lti/provider.js';
import { isFramed, respondWithNotice, respondWithProctoringUrl } from './respond.js';
import { translatorOf } from '../i18n/middleware.js';
import { isStaff, type CandidateView, type HubAction, type LaunchOutcome, type LaunchService, type LaunchSession } from './service.js';
import { resultsCsv } from '../webhooks/csv.js';
import { resultsQueryOf } from '../webhooks/results.js';

import { examIdOf, LAUNCH_PATHS } from './paths.js';
import { renderHub } from './hub-page.js';

export { LAUNCH_PATHS };

export interface LaunchRoutesDeps {
  service: LaunchService;
  lti: Pick<LtiAdapter, 'launchOf' | 'ltikOf' | 'launchTokenOf' | 'keepSession'>;
  csrf: Csrf;
  /** Each request's session logs to this logger's child for the request (`requestLogger`). */
  logger: Logger;
  /** The tool is served over https: cookies it sets for other sites' navigations are SameSite=None; Secure. */
  secureCookies?: boolean;
}

async function respond(req: Request, res: Response, deps: LaunchRoutesDeps, session: LaunchSession, outcome: LaunchOutcome, atLaunch = false): Promise<void> {
  // A page that posts the session token back to a session route needs the session stored; a redirect, a closed exam
  // and the privacy notice (its button's route reads only the token's launch) do not.
  if (outcome.kind !== 'redirect' && outcome.kind !== 'unavailable' && outcome.kind !== 'assessment-ended' && outcome.kind !== 'notice') await deps.lti.keepSession(res);
  switch (outcome.kind) {
    case 'redirect':
      if (outcome.handoffCookie) {
        // Sent back only by this browser, only to the hand-off's own page, which the proctoring service navigates to.
        const secure = deps.secureCookies === true;
        const { name, value, path, expires } = outcome.handoffCookie;
        res.cookie(name, value, { httpOnly: true, secure, sameSite: secure ? 'none' : 'lax', path, expires });
      }
      respondWithProctoringUrl(req, res, session.launch, outcome.url, outcome.start);
      return;
    case 'notice':
      respondWithNotice(req, res, outcome.start, { action: LAUNCH_PATHS.noticeContinue, ltik: deps.lti.launchTokenOf(res), exam: outcome.fromList ? outcome.examId : undefined });
      return;
    case 'assessment-ended': {
      res.set('Cache-Control', 'no-store');
      // The platform's own page when it named one; else the tool says the session has ended.
      if (outcome.returnUrl && /^https?:\/\//i.test(outcome.returnUrl)) {
        res.redirect(303, outcome.returnUrl);
        return;
      }
      res.render('launch/returned', { title: translatorOf(req, res).t('student:returned.submittedTitle'), submitted: true });
      return;
    }
    case 'settings':
      continueTo(res, LAUNCH_PATHS.settings(outcome.examId), deps.lti.ltikOf(res), translatorOf(req, res).t('student:continue.settingsTitle'));
      return;
    case 'hub':
      if (atLaunch) continueTo(res, LAUNCH_PATHS.hub(outcome.hub.exam.id), deps.lti.ltikOf(res), outcome.hub.exam.title);
      else renderHub(req, res, deps, outcome.hub, session.launch);
      return;
    case 'unavailable': {
      // An ordinary page, not an error: 403 (the exam may not be started now), no incident id.
      const i18n = translatorOf(req, res);
      const when = i18n.formatDateTime(outcome.at, { timeZone: outcome.timeZone, weekday: 'long' });
      const notYet = outcome.availability === 'not-yet-open';
      res.set('Cache-Control', 'no-store').status(403).render('launch/unavailable', {
        title: i18n.t(notYet ? 'student:unavailable.notYetOpenTitle' : 'student:unavailable.closedTitle'),
        examTitle: outcome.examTitle,
        message: i18n.t(notYet ? 'student:unavailable.opens' : 'student:unavailable.closed', { when, timeZone: outcome.timeZone }),
        availability: outcome.availability,
      });
      return;
    }
    case 'exam-list': {
      res.set('Cache-Control', 'no-store');
      res.render('hub/exam-list', {
        title: translatorOf(req, res).t('hub:examList.title'),
        list: outcome.list,
        ltik: deps.lti.ltikOf(res),
        startUrl: (examId: string) => LAUNCH_PATHS.startFromList(examId),
      });
      return;
    }
  }
}

/**
 * The launch (the id_token POST) hands staff on to their page by posting the session token to it: that page
 * can then be reloaded (the id_token cannot be posted twice), and the token stays out of every URL.
 */
function continueTo(res: Response, action: string, ltik: string, title: string): void {
  res.set('Cache-Control', 'no-store').render('launch/continue', { title, action, ltik });
}

/** Where a student's answer to this request is shown (the privacy notice comes first in a window of its own). */
const viewOf = (req: Request, launch: Pick<LtiLaunch, 'documentTarget'>): CandidateView => ({ framed: isFramed(req, launch) });

/** Staff see the cause of an error (the error handler shows `adminMessage` only when this is set). */
async function asSession<T>(res: Response, session: LaunchSession, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isStaff(session.decision)) res.locals.showAdminDetail = true;
    throw error;
  }
}

/** The LTI launch (ltijs's onConnect): decide, run, answer. A POST of the session token to the same URL retries it without the LMS. */
export function createLaunchHandler(deps: LaunchRoutesDeps) {
  return async (launch: LtiLaunch, req: Request, res: Response): Promise<void> => {
    const session = await deps.service.session(launch, requestLogger(deps.logger, req));
    await asSession(res, session, async () => respond(req, res, deps, session, await deps.service.launch(session, viewOf(req, launch)), true));
  };
}

/** Routes behind ltijs's session check (mounted on the adapter's session router, under /lti). */
export function createLaunchRoutes(deps: LaunchRoutesDeps): Router {
  const router = express.Router();

  async function sessionOf(req: Request, res: Response): Promise<LaunchSession> {
    return deps.service.session(await deps.lti.launchOf(res), requestLogger(deps.logger, req));
  }

  // The hub's fields are each checked where they are read (an unknown filter is no filter).
  const fieldsOf = bodyFields;

  router.post('/hub/:examId', async (req, res) => {
    const session = await sessionOf(req, res);
    const hub = await asSession(res, session, () => deps.service.hub(session, examIdOf(req), resultsQueryOf(fieldsOf(req))));
    renderHub(req, res, deps, hub, session.launch);
  });

  // The exam's attempts with names, outcome, suspicion and flags, for a spreadsheet.
  router.post('/hub/:examId/attempts.csv', async (req, res) => {
    const session = await sessionOf(req, res);
    const { exam, results } = await asSession(res, session, () => deps.service.examResults(session, examIdOf(req), resultsQueryOf(fieldsOf(req)).tests));
    const slug = exam.title.normalize('NFKD').replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60).toLowerCase() || 'exam';
    res.set('Cache-Control', 'no-store');
    res.attachment(`${slug}-attempts.csv`);
    res.type('text/csv; charset=utf-8').send(resultsCsv(results.rows));
  });

  for (const action of ['review', 'live'] as const satisfies readonly HubAction[]) {
    router.post(`/hub/:examId/${action}`, deps.csrf.protect, async (req, res) => {
      const csrfToken = fieldsOf(req)._csrf;
      const locals = localsOf(res);
      if (typeof csrfToken === 'string') locals.retryFields = { ...locals.retryFields, _csrf: csrfToken };
      const session = await sessionOf(req, res);
      await asSession(res, session, async () => respond(req, res, deps, session, await deps.service.hubAction(session, examIdOf(req), action)));
    });
  }

  // A button of the course-level exam list (the error page's "Try again" posts the session token again).
  router.post('/course/exams/:examId/start', async (req, res) => {
    const session = await sessionOf(req, res);
    await asSession(res, session, async () => respond(req, res, deps, session, await deps.service.startFromList(session, examIdOf(req), viewOf(req, session.launch))));
  });

  return router;
}

/**
 * The privacy notice's button: on to the session, the notice recorded as seen ("Try again" keeps the exam field).
 * Registered with the adapter's `postWithLaunchToken`: the notice a launch answers with does not store its session.
 */
export function createNoticeContinue(deps: LaunchRoutesDeps): RequestHandler {
  return async (req, res) => {
    const exam = bodyFields(req).exam;
    const listedExamId = typeof exam === 'string' && exam !== '' ? exam : undefined;
    if (listedExamId) localsOf(res).retryFields = { ...localsOf(res).retryFields, exam: listedExamId };
    const session = await deps.service.session(await deps.lti.launchOf(res), requestLogger(deps.logger, req));
    await asSession(res, session, async () => respond(req, res, deps, session, await deps.service.continueAfterNotice(session, listedExamId)));
  };
}
