import express, { type Request, type Response, type Router } from 'express';
import { overrideForm, overrideFromFields } from '../exams/accommodations/form.js';
import type { AccommodationOverride } from '../exams/accommodations/override.js';
import type { Exam } from '../exams/store.js';
import { localizeViolation } from '../exams/settings/violations.js';
import { minutesRefusal } from '../exams/settings/durations.js';
import { AppError } from '../http/errors.js';
import { bodyFields } from '../http/request-input.js';
import { requestLogger } from '../http/request-id.js';
import { translatorOf } from '../i18n/middleware.js';
import type { Violation } from '../proctoring/contract.js';
import { isUuid } from '../values.js';
import type { LtiAdapter } from '../lti/provider.js';
import type { Logger } from '../logger.js';
import { renderHub, type HubPageDeps } from './hub-page.js';
import { examIdOf, LAUNCH_PATHS } from './paths.js';
import { notConfiguredError, type LaunchService, type LaunchSession } from './service.js';
import { shortId } from './summary.js';

export interface AccommodationRoutesDeps extends HubPageDeps {
  service: LaunchService;
  lti: HubPageDeps['lti'] & Pick<LtiAdapter, 'launchOf'>;
  /** Each request's session logs to this logger's child for the request (`requestLogger`). */
  logger: Logger;
}

const fieldsOf = bodyFields;

function studentOf(fields: Readonly<Record<string, unknown>>): string {
  const student = fields.student;
  if (typeof student !== 'string' || !isUuid(student)) {
    throw new AppError(400, 'no_student', 'Choose a student', 'Choose a student from the list first.', { messageKey: 'accommodations:errors.noStudent' });
  }
  return student;
}

/**
 * Accommodations on the exam's hub: the editor for one student (chosen from the course roster by name), its
 * save and its removal. Instructors who may change the exam's settings only; every change is CSRF-protected,
 * checked against every settings rule and recorded in the exam's change history.
 */
export function createAccommodationRoutes(deps: AccommodationRoutesDeps): Router {
  const router = express.Router();

  async function context(req: Request, res: Response): Promise<{ session: LaunchSession; exam: Exam & { settings: NonNullable<Exam['settings']> } }> {
    const session = await deps.service.session(await deps.lti.launchOf(res), requestLogger(deps.logger, req));
    try {
      const exam = await deps.service.editableExam(session, examIdOf(req));
      if (!exam.settings) throw notConfiguredError();
      return { session, exam: { ...exam, settings: exam.settings } };
    } catch (error) {
      if (session.decision.kind === 'instructor') res.locals.showAdminDetail = true;
      throw error;
    }
  }

  async function studentName(session: LaunchSession, exam: Exam, userId: string): Promise<string | undefined> {
    const course = deps.service.accommodationNames ? await deps.service.accommodationNames(exam, session.logger) : undefined;
    return course?.names?.get(userId);
  }

  /** `errors` are in the reader's words already. */
  async function renderEditor(req: Request, res: Response, session: LaunchSession, exam: Exam & { settings: NonNullable<Exam['settings']> }, userId: string, override: AccommodationOverride | undefined, existing: boolean, errors: Violation[] = []): Promise<void> {
    const i18n = translatorOf(req, res);
    const name = await studentName(session, exam, userId);
    res.set('Cache-Control', 'no-store').status(errors.length > 0 ? 422 : 200).render('hub/accommodation', {
      title: i18n.t('accommodations:editor.title', { student: name ?? shortId(userId) }),
      examTitle: exam.title,
      student: { userId, name, shortId: shortId(userId) },
      form: overrideForm(exam.settings, override, i18n.t),
      existing,
      errors,
      ltik: deps.lti.ltikOf(res),
      csrfToken: deps.csrf.tokenFor(req, res),
      urls: { hub: LAUNCH_PATHS.hub(exam.id), edit: LAUNCH_PATHS.accommodation(exam.id), save: LAUNCH_PATHS.saveAccommodation(exam.id), remove: LAUNCH_PATHS.removeAccommodation(exam.id) },
    });
  }

  async function hubWithNotice(req: Request, res: Response, session: LaunchSession, exam: Exam, notice: string): Promise<void> {
    renderHub(req, res, deps, await deps.service.hub(session, exam.id), session.launch, notice);
  }

  router.post('/hub/:examId/accommodations/edit', async (req, res) => {
    const { session, exam } = await context(req, res);
    const userId = studentOf(fieldsOf(req));
    const override = await deps.service.accommodations.get(exam.id, userId);
    await renderEditor(req, res, session, exam, userId, override, override !== undefined);
  });

  router.post('/hub/:examId/accommodations/save', deps.csrf.protect, async (req, res) => {
    const { session, exam } = await context(req, res);
    const fields = fieldsOf(req);
    const userId = studentOf(fields);
    const input = overrideFromFields(fields, exam.settings);
    const existing = (await deps.service.accommodations.get(exam.id, userId)) !== undefined;
    if (Object.keys(input).length === 0) {
      const nothing: Violation = { path: '', rule: 'type', message: translatorOf(req, res).t('accommodations:errors.nothingChosen') };
      await renderEditor(req, res, session, exam, userId, undefined, existing, [nothing]);
      return;
    }
    const saved = await deps.service.accommodations.set(exam.id, userId, input, { userId: session.userId });
    if (!saved.ok) {
      const { t } = translatorOf(req, res);
      // The form asks for minutes: a refused link validity is said in them, not in the document's seconds.
      const said = saved.violations.map((v) => (v.path === 'expire' ? { ...v, message: minutesRefusal(t) } : localizeViolation(t, v)));
      await renderEditor(req, res, session, exam, userId, input as AccommodationOverride, existing, said);
      return;
    }
    const name = (await studentName(session, exam, userId)) ?? shortId(userId);
    await hubWithNotice(req, res, session, exam, translatorOf(req, res).t('accommodations:notice.saved', { student: name }));
  });

  router.post('/hub/:examId/accommodations/remove', deps.csrf.protect, async (req, res) => {
    const { session, exam } = await context(req, res);
    const userId = studentOf(fieldsOf(req));
    const removed = await deps.service.accommodations.remove(exam.id, userId, { userId: session.userId });
    const name = (await studentName(session, exam, userId)) ?? shortId(userId);
    await hubWithNotice(req, res, session, exam, translatorOf(req, res).t(removed ? 'accommodations:notice.removed' : 'accommodations:notice.noneToRemove', { student: name }));
  });

  return router;
}
