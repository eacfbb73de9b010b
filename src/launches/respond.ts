import type { Request, Response } from 'express';
import type { LtiLaunch } from '../lti/claims.js';

/**
 * The proctoring URL always opens at the top level: a launch shown in a frame (Moodle's "Embed",
 * document_target iframe/frame) gets a small page that moves the top window; a window launch gets a 302.
 */
export function respondWithProctoringUrl(_req: Request, res: Response, launch: Pick<LtiLaunch, 'documentTarget'>, url: string): void {
  const framed = launch.documentTarget === 'iframe' || launch.documentTarget === 'frame';
  res.set('Cache-Control', 'no-store');
  if (framed) {
    res.status(200).render('launch/top-redirect', { title: 'Opening your proctored session', url });
    return;
  }
  res.redirect(302, url);
}
