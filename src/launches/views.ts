import { isSetUp, type Exam } from '../exams/store.js';
import { DEFAULT_RESULTS_QUERY, type ResultsQuery } from '../webhooks/results.js';
import { applyOverride } from '../exams/accommodations/override.js';
import { noCourseError, type AccommodationsView, type ExamListView, type HubView, type LaunchServiceDeps, type LaunchSession, type ProctorsView } from './service.js';

/** How many recent attempts and launches the hub lists. */
const RECENT = 20;
/** Without roster names, accommodations can be added for the students of this many latest attempts. */
const MAX_STUDENTS_LISTED = 500;

/** The pages a launch may show instead of redirecting: the instructor's hub and a course's exam list. */
export function createLaunchViews(deps: Pick<LaunchServiceDeps, 'attempts' | 'log' | 'examResults' | 'exams' | 'accommodations' | 'names' | 'courseStaff'>) {
  /** The exam's accommodations with the students' names (read now, never stored) and whom one can be added for. */
  async function accommodationsOf(session: LaunchSession, exam: Exam): Promise<AccommodationsView | undefined> {
    const store = deps.accommodations;
    if (!store || !exam.settings) return undefined;
    const document = exam.settings;
    const [list, course, staff] = await Promise.all([store.list(exam.id), deps.names ? deps.names(exam, session.logger) : undefined, deps.courseStaff?.staffIds(exam)]);
    const names = course?.names;
    const rows = list.map((entry) => {
      const applied = applyOverride(document, entry.override);
      return { userId: entry.userId, name: names?.get(entry.userId), override: entry.override, problems: applied.ok ? [] : applied.violations };
    });
    // Whom an accommodation can be added for: the course's members by name; without names, the students who opened the exam.
    // Staff (instructors, teaching assistants, proctors) are never among them.
    const candidates = course?.candidates;
    const students =
      names && names.size > 0
        ? [...names].filter(([userId]) => (!candidates || candidates.has(userId)) && !staff?.has(userId)).map(([userId, name]) => ({ userId, name }))
        : [...new Set((await deps.attempts.recent(exam.id, MAX_STUDENTS_LISTED)).map((attempt) => attempt.userId))].map((userId) => ({ userId, name: undefined }));
    return { rows, students, names: course?.status ?? { ok: false, reason: 'roster_unavailable' } };
  }

  /** The course's named proctors, and its members an instructor may name (Names and Roles, read now). */
  async function proctorsOf(session: LaunchSession, exam: Exam): Promise<ProctorsView | undefined> {
    if (!deps.courseStaff) return undefined;
    const [named, course] = await Promise.all([deps.courseStaff.namedProctors(exam), deps.names ? deps.names(exam, session.logger) : undefined]);
    const names = course?.names;
    const taken = new Set([...named, session.userId]);
    const members = names ? [...names].filter(([userId]) => !taken.has(userId)).map(([userId, name]) => ({ userId, name })) : [];
    return { named: named.map((userId) => ({ userId, name: names?.get(userId) })), members, names: course?.status ?? { ok: false, reason: 'roster_unavailable' } };
  }

  return {
    async hub(session: LaunchSession, exam: Exam, query: ResultsQuery = DEFAULT_RESULTS_QUERY): Promise<HubView> {
      const { decision, launch } = session;
      const [attempts, launches, results, accommodations, proctors] = await Promise.all([
        deps.attempts.recent(exam.id, RECENT),
        deps.log.recentForExam(exam.id, RECENT),
        decision.canReview && deps.examResults ? deps.examResults(exam, query, session.logger) : undefined,
        decision.canEditSettings ? accommodationsOf(session, exam) : undefined,
        decision.canEditSettings ? proctorsOf(session, exam) : undefined,
      ]);
      return {
        exam,
        configured: isSetUp(exam),
        canEditSettings: decision.canEditSettings,
        canReview: decision.canReview,
        canProctor: decision.canProctor,
        isAdmin: decision.isAdmin,
        roles: { received: [...launch.roles], matched: decision.matched, why: decision.why, placement: launch.placement },
        attempts,
        results,
        accommodations,
        proctors,
        launches,
      };
    },

    async examList(session: LaunchSession): Promise<ExamListView> {
      const { launch } = session;
      if (!launch.context) throw noCourseError();
      const exams = await deps.exams.listByContext(launch.issuer, launch.clientId, launch.deploymentId, launch.context.id);
      return {
        courseTitle: launch.context.title,
        exams: exams.map((exam) => {
          const configured = isSetUp(exam);
          const available = configured && exam.status === 'open' && !exam.quizAddressCheck;
          const note = available ? undefined : !configured ? 'notSetUp' : exam.quizAddressCheck ? 'notReady' : 'closed';
          return { id: exam.id, title: exam.title, available, note };
        }),
      };
    },
  };
}
