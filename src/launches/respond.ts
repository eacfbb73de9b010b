import type { Request, Response } from 'express';
import { translatorOf } from '../i18n/middleware.js';
import type { LtiLaunch } from '../lti/claims.js';
import type { CandidateStart, StartPage } from './start-page.js';

const TITLES = { candidate: 'titleCandidate', reviewer: 'titleReviewer', live: 'titleLive', launchpad: 'titleLaunchpad' } as const;
const BUTTONS = { candidate: 'button', reviewer: 'buttonReviewer', live: 'buttonLive', launchpad: 'buttonLaunchpad' } as const;

/**
 * The proctoring URL always opens at the top level. A launch shown in a frame (Moodle's "Embed",
 * document_target iframe/frame) gets the start page: browsers refuse to move the top window from a framed
 * page without a click, so the page says what the session will check and record, and its button (a link
 * with target="_top") moves the top window. A window launch gets a 302.
 */
export function respondWithProctoringUrl(req: Request, res: Response, launch: Pick<LtiLaunch, 'documentTarget'>, url: string, start: StartPage): void {
  const framed = isFramed(req, launch);
  res.set('Cache-Control', 'no-store');
  if (!framed) {
    res.redirect(302, url);
    return;
  }
  renderStart(req, res, start, { url });
}

/**
 * A student's first launch of an exam in a window of its own: the start page, with the privacy notice, whose button
 * posts the session token (a hidden field, never a URL) on to the session (`LAUNCH_PATHS.noticeContinue`).
 */
export function respondWithNotice(req: Request, res: Response, start: CandidateStart, form: { action: string; ltik: string; exam?: string }): void {
  res.set('Cache-Control', 'no-store');
  renderStart(req, res, start, { form });
}

function renderStart(req: Request, res: Response, start: StartPage, action: { url: string } | { form: { action: string; ltik: string; exam?: string } }): void {
  const { t } = translatorOf(req, res);
  const candidate = start.endpoint === 'candidate' ? start : undefined;
  const variant = candidate?.exempt ? 'Exempt' : candidate?.practice ? 'Practice' : undefined;
  res.status(200).render('launch/start', {
    title: t(`student:start.${variant ? `title${variant}` : TITLES[start.endpoint]}`),
    button: t(`student:start.${variant ? `button${variant}` : BUTTONS[start.endpoint]}`),
    page: start,
    url: 'url' in action ? action.url : undefined,
    form: 'form' in action ? action.form : undefined,
  });
}

/**
 * Where the browser shows this answer: its Sec-Fetch-Dest when it sends one (a framed launch whose cookie
 * check reopened it in a new window is at the top level, whatever the LMS asked for), else the launch's
 * document_target.
 */
export function isFramed(req: Request, launch: Pick<LtiLaunch, 'documentTarget'>): boolean {
  const dest = req.get('sec-fetch-dest');
  if (dest === 'document') return false;
  if (dest === 'iframe' || dest === 'frame') return true;
  return launch.documentTarget === 'iframe' || launch.documentTarget === 'frame';
}
