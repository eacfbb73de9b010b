import express, { type Request, type Response, type Router } from 'express';
import { AppError, NotFoundError } from '../http/errors.js';
import { bodyFields } from '../http/request-input.js';
import { requestLogger } from '../http/request-id.js';
import { translatorOf } from '../i18n/middleware.js';
import type { CourseStaffStore } from '../institution/course-staff.js';
import type { LtiAdapter } from '../lti/provider.js';
import type { Logger } from '../logger.js';
import { isUuid } from '../values.js';
import { renderHub, type HubPageDeps } from './hub-page.js';
import { examIdOf } from './paths.js';
import type { LaunchService, LaunchSession } from './service.js';
import type { Exam } from '../exams/store.js';
import { shortId } from './summary.js';

export interface ProctorRoutesDeps extends HubPageDeps {
  service: LaunchService;
  courseStaff?: CourseStaffStore;
  lti: HubPageDeps['lti'] & Pick<LtiAdapter, 'launchOf'>;
  logger: Logger;
}

function memberOf(fields: Readonly<Record<string, unknown>>): string {
  const member = fields.member;
  if (typeof member !== 'string' || !isUuid(member)) {
    throw new AppError(400, 'no_member', 'Choose a person', 'Choose a person from the list first.', { messageKey: 'hub:proctors.errors.noMember' });
  }
  return member;
}

/**
 * The course's proctors, named on an exam's hub by an instructor who may change its settings: Moodle sends plain
 * Instructor for its proctors, so the course names them (institution/course-staff.ts). A named proctor reaches
 * live monitoring and the launchpad only. CSRF-protected; an instructor cannot name themself.
 */
export function createProctorRoutes(deps: ProctorRoutesDeps): Router {
  const router = express.Router();

  async function context(req: Request, res: Response): Promise<{ session: LaunchSession; exam: Exam; staff: CourseStaffStore }> {
    const session = await deps.service.session(await deps.lti.launchOf(res), requestLogger(deps.logger, req));
    try {
      if (!deps.courseStaff) throw new NotFoundError('proctors');
      return { session, exam: await deps.service.editableExam(session, examIdOf(req)), staff: deps.courseStaff };
    } catch (error) {
      if (session.decision.kind === 'instructor') res.locals.showAdminDetail = true;
      throw error;
    }
  }

  async function nameOf(session: LaunchSession, exam: Exam, userId: string): Promise<string> {
    const course = deps.service.accommodationNames ? await deps.service.accommodationNames(exam, session.logger) : undefined;
    return course?.names?.get(userId) ?? shortId(userId);
  }

  async function hubWithNotice(req: Request, res: Response, session: LaunchSession, exam: Exam, notice: string): Promise<void> {
    renderHub(req, res, deps, await deps.service.hub(session, exam.id), session.launch, notice);
  }

  router.post('/hub/:examId/proctors/name', deps.csrf.protect, async (req, res) => {
    const { session, exam, staff } = await context(req, res);
    const userId = memberOf(bodyFields(req));
    if (userId === session.userId) {
      throw new AppError(400, 'proctor_is_you', 'Not yourself', 'You cannot name yourself a proctor: you would lose this page.', { messageKey: 'hub:proctors.errors.yourself' });
    }
    await staff.nameProctor(exam, userId, session.userId);
    await hubWithNotice(req, res, session, exam, translatorOf(req, res).t('hub:proctors.named', { person: await nameOf(session, exam, userId) }));
  });

  router.post('/hub/:examId/proctors/remove', deps.csrf.protect, async (req, res) => {
    const { session, exam, staff } = await context(req, res);
    const userId = memberOf(bodyFields(req));
    const removed = await staff.unnameProctor(exam, userId);
    const person = await nameOf(session, exam, userId);
    await hubWithNotice(req, res, session, exam, translatorOf(req, res).t(removed ? 'hub:proctors.removed' : 'hub:proctors.notNamed', { person }));
  });

  return router;
}
