import { toAppError } from '../http/error-handler.js';
import { AppError, errorLogFields, markLogged } from '../http/errors.js';
import type { Logger } from '../logger.js';
import { recordLaunch } from '../metrics.js';
import { ProctoringError } from '../proctoring/errors.js';
import type { LaunchLog, LaunchRecord } from './log.js';
import { type LaunchEndpoint, type LaunchOutcome, type LaunchSession } from './service.js';

export interface LaunchTrace {
  endpoint?: LaunchEndpoint;
  examId?: string;
}

export type RecordLaunchStep = <T extends LaunchOutcome>(session: LaunchSession, trace: LaunchTrace, work: (trace: LaunchTrace) => Promise<T>) => Promise<T>;

/**
 * Launch records waiting for the database beyond which a launch waits for its own record: the database is
 * slower than the launches, and the queue must not grow without bound.
 */
export const MAX_UNSTORED_RECORDS = 1000;

/**
 * Runs one launch step and records it, whatever happens: who (pseudonymous), exam, role, endpoint, outcome,
 * duration — in the launch log, the metrics and one log line (with the incident and cause of a failure).
 * The launch answers without waiting for its launch-log row, which is written just after (with the rows of the
 * launches that ended meanwhile); the app waits for the rows still queued before it closes.
 */
export function createLaunchRecorder(deps: { log: LaunchLog; abandoned?: () => boolean }): RecordLaunchStep {
  // Past the shutdown deadline the client's connection is gone and the process is about to exit: the step
  // neither answers, records nor logs (a "launch redirected" line would describe a redirect nobody received).
  const stopped = () => new Promise<never>(() => undefined);
  /** The step's line, in the log of the session's request. */
  const line = (logger: Logger, entry: LaunchRecord, failure?: AppError) => {
    const fields = { launch: { endpoint: entry.endpoint, outcome: entry.outcome, examId: entry.examId, issuer: entry.issuer, contextId: entry.contextId, userId: entry.userId, role: entry.role, durationMs: Math.round(entry.durationMs) } };
    if (!failure) logger.info(fields, `launch ${entry.outcome}`);
    else logger[failure.status >= 500 ? 'error' : 'info']({ ...fields, ...errorLogFields(markLogged(failure)) }, `launch ${entry.outcome}: ${failure.code}`);
  };
  const keep = async (logger: Logger, entry: LaunchRecord, started: number) => {
    recordLaunch(entry.endpoint, entry.outcome, started);
    const stored = deps.log.record(entry).catch((error: unknown) => logger.error({ err: error }, 'could not record launch'));
    if (deps.log.unstored() > MAX_UNSTORED_RECORDS) await stored;
  };

  return async (session, trace, work) => {
    const started = performance.now();
    const entryOf = (outcome: LaunchRecord['outcome'], failure?: { error: unknown }): LaunchRecord => ({
      issuer: session.launch.issuer,
      contextId: session.launch.context?.id,
      userId: session.userId,
      role: session.decision.kind,
      examId: trace.examId,
      endpoint: trace.endpoint,
      outcome,
      errorCode: failure === undefined ? undefined : failure.error instanceof AppError ? failure.error.code : 'internal',
      incidentId: failure?.error instanceof AppError ? failure.error.incidentId : undefined,
      durationMs: performance.now() - started,
    });
    let outcome;
    try {
      outcome = await work(trace);
    } catch (error) {
      if (deps.abandoned?.()) return stopped();
      // A proctoring failure becomes its HTTP answer here already: the launch record names its code and incident.
      const appError = error instanceof ProctoringError ? toAppError(error) : error;
      const entry = entryOf(error instanceof ProctoringError ? 'upstream_error' : 'refused', { error: appError });
      await keep(session.logger, entry, started);
      if (appError instanceof AppError) line(session.logger, entry, appError);
      throw appError;
    }
    if (deps.abandoned?.()) return stopped();
    const entry = entryOf(outcome.kind === 'redirect' ? 'redirected' : 'shown');
    await keep(session.logger, entry, started);
    line(session.logger, entry);
    return outcome;
  };
}
