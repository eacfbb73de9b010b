import express, { type Request, type Response, type Router } from 'express';
import type { Csrf } from '../http/csrf.js';
import type { LtiLaunch } from '../lti/claims.js';
import type { LtiAdapter } from '../lti/provider.js';
import { respondWithProctoringUrl } from './respond.js';
import { isStaff, type HubAction, type HubView, type LaunchOutcome, type LaunchService, type LaunchSession } from './service.js';
import { ATTEMPT_OUTCOME_LABELS, LAUNCH_OUTCOME_LABELS, shortId } from './summary.js';

/** Paths under /lti (the session router), with the ltik carried as `?ltik=` or hidden field `ltik`. */
export const LAUNCH_PATHS = {
  hub: (examId: string) => `/lti/hub/${encodeURIComponent(examId)}`,
  review: (examId: string) => `/lti/hub/${encodeURIComponent(examId)}/review`,
  live: (examId: string) => `/lti/hub/${encodeURIComponent(examId)}/live`,
  settings: (examId: string) => `/lti/exams/${encodeURIComponent(examId)}/settings`,
  startFromList: (examId: string) => `/lti/course/exams/${encodeURIComponent(examId)}/start`,
} as const;

export interface LaunchRoutesDeps {
  service: LaunchService;
  lti: Pick<LtiAdapter, 'launchOf' | 'ltikOf'>;
  csrf: Csrf;
}

const withLtik = (path: string, ltik: string) => `${path}?ltik=${encodeURIComponent(ltik)}`;

const formatTime = (date: Date) => `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

function renderHub(req: Request, res: Response, deps: LaunchRoutesDeps, hub: HubView): void {
  const ltik = deps.lti.ltikOf(res);
  const examId = hub.exam.id;
  res.set('Cache-Control', 'no-store');
  res.render('hub/hub', {
    title: hub.exam.title,
    hub,
    ltik,
    csrfToken: deps.csrf.tokenFor(req, res),
    urls: {
      settings: withLtik(LAUNCH_PATHS.settings(examId), ltik),
      review: LAUNCH_PATHS.review(examId),
      live: LAUNCH_PATHS.live(examId),
    },
    formatTime,
    shortId,
    attemptLabels: ATTEMPT_OUTCOME_LABELS,
    launchLabels: LAUNCH_OUTCOME_LABELS,
  });
}

async function respond(req: Request, res: Response, deps: LaunchRoutesDeps, session: LaunchSession, outcome: LaunchOutcome): Promise<void> {
  switch (outcome.kind) {
    case 'redirect':
      respondWithProctoringUrl(req, res, session.launch, outcome.url);
      return;
    case 'settings':
      res.set('Cache-Control', 'no-store');
      res.redirect(303, withLtik(LAUNCH_PATHS.settings(outcome.examId), deps.lti.ltikOf(res)));
      return;
    case 'hub':
      renderHub(req, res, deps, outcome.hub);
      return;
    case 'exam-list': {
      const ltik = deps.lti.ltikOf(res);
      res.set('Cache-Control', 'no-store');
      res.render('hub/exam-list', {
        title: 'Proctored exams',
        list: outcome.list,
        startUrl: (examId: string) => withLtik(LAUNCH_PATHS.startFromList(examId), ltik),
      });
      return;
    }
  }
}

/** Staff see the cause of an error (the error handler shows `adminMessage` only when this is set). */
async function asSession<T>(res: Response, session: LaunchSession, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isStaff(session.decision)) res.locals.showAdminDetail = true;
    throw error;
  }
}

/** The LTI launch (ltijs's onConnect): decide, run, answer. A GET of the same URL with the ltik retries it without the LMS. */
export function createLaunchHandler(deps: LaunchRoutesDeps) {
  return async (launch: LtiLaunch, req: Request, res: Response): Promise<void> => {
    const session = await deps.service.session(launch);
    await asSession(res, session, async () => respond(req, res, deps, session, await deps.service.launch(session)));
  };
}

/** Routes behind ltijs's session check (mounted on the adapter's session router, under /lti). */
export function createLaunchRoutes(deps: LaunchRoutesDeps): Router {
  const router = express.Router();

  async function sessionOf(res: Response): Promise<LaunchSession> {
    return deps.service.session(await deps.lti.launchOf(res));
  }

  router.get('/hub/:examId', async (req, res) => {
    const session = await sessionOf(res);
    const hub = await asSession(res, session, () => deps.service.hub(session, req.params.examId));
    renderHub(req, res, deps, hub);
  });

  for (const action of ['review', 'live'] as const satisfies readonly HubAction[]) {
    router.post(`/hub/:examId/${action}`, deps.csrf.protect, async (req, res) => {
      const session = await sessionOf(res);
      await asSession(res, session, async () => respond(req, res, deps, session, await deps.service.hubAction(session, String(req.params.examId), action)));
    });
  }

  // A link of the course-level exam list: a GET, so that the error page's "Try again" can repeat it.
  router.get('/course/exams/:examId/start', async (req, res) => {
    const session = await sessionOf(res);
    await asSession(res, session, async () => respond(req, res, deps, session, await deps.service.startFromList(session, req.params.examId)));
  });

  return router;
}
