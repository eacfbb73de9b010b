import express, { type ErrorRequestHandler, type Request, type Response, type Router } from 'express';
import { deriveUserId } from '../../lti/identifiers.js';
import type { LtiLaunch } from '../../lti/claims.js';
import { LtiRefusal, userMessageFor } from '../../lti/errors.js';
import type { RolePolicy } from '../../institution/role-policy.js';
import type { RoleDecision } from '../../lti/roles.js';
import { AppError, ForbiddenError, NotFoundError } from '../../http/errors.js';
import type { Csrf } from '../../http/csrf.js';
import type { Logger } from '../../logger.js';
import { PATTERN_FLAGS } from '../../proctoring/assumptions.js';
import { POST_MESSAGE_NOTIFICATION } from '../../proctoring/contract.js';
import type { Exam } from '../store.js';
import type { ExamSettingsDocument } from './document.js';
import { BEHAVIOR_FIELDS, BREAK_FIELDS, fieldId, formValues, OTHER_FIELDS, PAGE_FIELDS, PROCTOR_FIELDS, SETTINGS_GROUPS } from './fields.js';
import { requirementsForBrowser } from './prerequisites.js';
import { deriveExamPages, offeredLmsPresets } from './presets/lms.js';
import { applySecurityPreset, SECURITY_PRESETS } from './presets/security.js';
import { initialDocument, type ExamSettingsService } from './service.js';

/** What the routes need from the LTI adapter (src/lti/provider.ts). */
export interface SessionAccess {
  launchOf(res: Response): Promise<LtiLaunch>;
  ltikOf(res: Response): string;
}

export interface SettingsRoutesDeps {
  lti: SessionAccess;
  /** Role decisions with the institution's settings (src/institution/role-policy.ts). */
  decide: RolePolicy;
  service: ExamSettingsService;
  csrf: Csrf;
  /** Per-installation secret of the pseudonymous user ids (who changed what). */
  pseudonymSecret: string;
  sandbox: boolean;
  logger: Logger;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Staff who may edit settings, in the exam's own course (issuer, client, deployment and context). */
export function checkSettingsAccess(launch: LtiLaunch, decision: RoleDecision, exam: Exam | undefined): Exam {
  if (!decision.canEditSettings) {
    throw new ForbiddenError('Only the instructors of this course can change the proctoring settings.', decision.reason);
  }
  if (!exam) throw new NotFoundError('exam');
  const sameCourse =
    exam.issuer === launch.issuer && exam.clientId === launch.clientId && exam.deploymentId === launch.deploymentId && exam.contextId === launch.context?.id;
  if (!sameCourse) throw new ForbiddenError('This exam belongs to another course: open it from its own course.', 'exam of another context');
  return exam;
}

/** JSON for data blocks in pages: `<` escaped so no text can close the script element. */
export function jsonForPage(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

export function createExamSettingsRoutes(deps: SettingsRoutesDeps): Router {
  const router = express.Router();

  async function examFor(req: Request, res: Response): Promise<{ launch: LtiLaunch; exam: Exam }> {
    const launch = await deps.lti.launchOf(res);
    const id = String(req.params.examId ?? '');
    const exam = UUID.test(id) ? await deps.service.get(id) : undefined;
    return { launch, exam: checkSettingsAccess(launch, await deps.decide(launch), exam) };
  }

  const userIdOf = (launch: LtiLaunch) => deriveUserId(deps.pseudonymSecret, launch.issuer, launch.userSub);

  router.get('/exams/:examId/settings', async (req, res) => {
    const { launch, exam } = await examFor(req, res);
    const document = (exam.settings as Partial<ExamSettingsDocument> | null) ?? initialDocument(launch.platformFamily, deps.sandbox);
    const me = userIdOf(launch);
    const history = (await deps.service.history(exam.id, 10)).map((entry) => ({
      at: entry.at.toISOString(),
      who: entry.userId === me ? 'you' : entry.userId ? `user ${entry.userId.slice(0, 8)}` : entry.source === 'import' ? 'an import' : 'the tool',
      source: entry.source,
      fields: entry.changes.map((c) => c.path),
    }));
    const base = req.baseUrl;
    const ltik = deps.lti.ltikOf(res);
    const lmsPresets = offeredLmsPresets(deps.sandbox);
    res.set('Cache-Control', 'no-store');
    res.render('exams/settings', {
      title: `Proctoring settings: ${exam.title}`,
      exam: { id: exam.id, title: exam.title, status: exam.status, configured: exam.settings !== null },
      values: formValues(document),
      groups: SETTINGS_GROUPS,
      pageFields: PAGE_FIELDS,
      behavior: BEHAVIOR_FIELDS,
      proctorFields: PROCTOR_FIELDS,
      breakFields: BREAK_FIELDS,
      otherFields: OTHER_FIELDS,
      lmsPresets,
      securityPresets: SECURITY_PRESETS,
      history,
      fieldId,
      csrfToken: deps.csrf.tokenFor(req, res),
      ltik,
      postMessage: POST_MESSAGE_NOTIFICATION,
      pageData: jsonForPage({
        examId: exam.id,
        apiUrl: `${base}/api/exams/${exam.id}/settings`,
        deriveUrl: `${base}/api/exam-pages`,
        requirements: requirementsForBrowser(),
        securityPresets: SECURITY_PRESETS.map((preset) => {
          const applied = applySecurityPreset(preset);
          return { id: preset.id, label: preset.label, exam_settings: applied.exam_settings, behavior: preset.behavior ?? null };
        }),
        lmsPresets: lmsPresets.map((p) => ({ id: p.id, label: p.label, note: p.note, example: p.example, limited: p.limited })),
        patternFlags: PATTERN_FLAGS,
        postMessage: POST_MESSAGE_NOTIFICATION,
      }),
    });
  });

  router.get('/api/exams/:examId/settings', async (req, res) => {
    const { launch, exam } = await examFor(req, res);
    res.set('Cache-Control', 'no-store').json({
      exam: { id: exam.id, title: exam.title, status: exam.status, configured: exam.settings !== null },
      settings: exam.settings ?? initialDocument(launch.platformFamily, deps.sandbox),
      status: exam.status,
    });
  });

  router.put('/api/exams/:examId/settings', deps.csrf.protect, async (req, res) => {
    const { launch, exam } = await examFor(req, res);
    const result = await deps.service.save(exam.id, req.body, { userId: userIdOf(launch) });
    res.set('Cache-Control', 'no-store');
    if (!result.ok) {
      res.status(422).json({ error: 'invalid_settings', message: 'Some settings need your attention: nothing was saved.', violations: result.violations });
      return;
    }
    res.json({ exam: { id: result.exam.id, title: result.exam.title, status: result.exam.status, configured: true }, settings: result.settings, status: result.exam.status });
  });

  router.get('/api/exams/:examId/settings/history', async (req, res) => {
    const { exam } = await examFor(req, res);
    res.set('Cache-Control', 'no-store').json({ changes: await deps.service.history(exam.id, 50) });
  });

  // The exam-page presets, for the form's live preview (the derivation stays in one place, on the server).
  router.get('/api/exam-pages', async (req, res) => {
    const launch = await deps.lti.launchOf(res);
    if (!(await deps.decide(launch)).canEditSettings) throw new ForbiddenError('Only instructors can use the exam-page presets.');
    const preset = typeof req.query.preset === 'string' ? req.query.preset : '';
    const quizUrl = typeof req.query.quiz_url === 'string' ? req.query.quiz_url.slice(0, 2000) : '';
    res.set('Cache-Control', 'no-store').json(deriveExamPages(preset, quizUrl));
  });

  router.use('/api', apiErrors(deps.logger));
  return router;
}

/** Errors of the JSON API as JSON, whatever the Accept header says. */
function apiErrors(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    if (error instanceof LtiRefusal) {
      res.status(401).set('Cache-Control', 'no-store').json({ error: error.code, message: userMessageFor(error.code) });
      return;
    }
    const appError = error instanceof AppError ? error : new AppError(500, 'internal', 'Something went wrong', 'Something went wrong on our side. Please try again.', { cause: error });
    if (appError.status >= 500) logger.error({ err: error, incidentId: appError.incidentId, path: req.path }, appError.message);
    res.status(appError.status).set('Cache-Control', 'no-store').json({ error: appError.code, message: appError.publicMessage, incidentId: appError.incidentId });
  };
}
