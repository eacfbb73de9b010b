import express, { type Router } from 'express';
import { translatorOf } from '../i18n/middleware.js';
import { ERROR_AGAIN_PATH } from '../http/error-handler.js';

/**
 * The staff pages whose history entries a browser loads again by GET (Back, reload): each is answered to a POST of
 * the session token, and `public/js/session-page.js` turns its entry into a GET of one of these addresses.
 */
export const RESUMABLE_PAGES: readonly string[] = ['/lti/hub/:examId', '/lti/hub/:examId/accommodations/edit', '/lti/exams/:examId/settings'];

/**
 * A GET of a staff page: no session (the token never travels in a URL), only a page whose script posts the
 * fields the history entry kept, to the same address. Mounted before the LTI session check, which would refuse it.
 */
export function createResumeRoutes(): Router {
  const router = express.Router();
  router.get([...RESUMABLE_PAGES], (req, res) => {
    const { t } = translatorOf(req, res);
    res.set('Cache-Control', 'no-store').render('launch/resume', { title: t('student:continue.resumeTitle'), action: req.originalUrl.split('?')[0] });
  });
  // Reload, Back or Forward to an error page that answered a POST: its script shows the page the entry holds.
  router.get(ERROR_AGAIN_PATH, (req, res) => {
    const { t } = translatorOf(req, res);
    res.set('Cache-Control', 'no-store').render('launch/error-again', { title: t('common:error.againTitle') });
  });
  return router;
}
