import { isSetUp, type Exam } from '../exams/store.js';
import { DEFAULT_RESULTS_QUERY, type ResultsQuery } from '../webhooks/results.js';
import { noCourseError, type ExamListView, type HubView, type LaunchServiceDeps, type LaunchSession } from './service.js';
import { invalidSettingsSummary, settingsSummary } from './summary.js';

/** How many recent attempts and launches the hub lists. */
const RECENT = 20;

/** The pages a launch may show instead of redirecting: the instructor's hub and a course's exam list. */
export function createLaunchViews(deps: Pick<LaunchServiceDeps, 'attempts' | 'log' | 'examResults' | 'exams'>) {
  return {
    async hub(session: LaunchSession, exam: Exam, query: ResultsQuery = DEFAULT_RESULTS_QUERY): Promise<HubView> {
      const { decision, launch } = session;
      const [attempts, launches, results] = await Promise.all([
        deps.attempts.recent(exam.id, RECENT),
        deps.log.recentForExam(exam.id, RECENT),
        decision.canReview && deps.examResults ? deps.examResults(exam, query) : undefined,
      ]);
      return {
        exam,
        configured: isSetUp(exam),
        summary: exam.settings ? settingsSummary(exam.settings) : invalidSettingsSummary(exam.invalidSettings),
        canEditSettings: decision.canEditSettings,
        canReview: decision.canReview,
        canProctor: decision.canProctor,
        isAdmin: decision.isAdmin,
        roles: { received: [...launch.roles], matched: decision.matched, reason: decision.reason, placement: launch.placement },
        attempts,
        results,
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
