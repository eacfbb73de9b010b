import type { SuspicionResult } from './delivery.js';
import type { MatchedBy } from './store.js';

/** An attempt of the tool with what matching needs of its exam. */
export interface CandidateAttempt {
  attemptId: string;
  examId: string;
  userId: string;
  startedAt: Date;
  /** The exam_tag the exam's launches send. */
  examTag: string;
  /** The proctoring account the attempt was launched through (`default` or a per-platform account). */
  accountRef: string;
}

export interface MatchingSource {
  attemptById(attemptId: string): Promise<CandidateAttempt | undefined>;
  attemptsOfUser(userId: string): Promise<CandidateAttempt[]>;
}

export interface MatchOutcome {
  match?: { attemptId: string; examId: string; by: MatchedBy };
  problems: string[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Which attempt of the tool a result belongs to, among the attempts launched through the proctoring account
 * whose subscription received it: an account only ever reports on its own attempts, so a result naming an
 * attempt of another account (another platform's) is kept unmatched. The tool sends its own attempt id as
 * `attempt_id`, so that alone decides: a result naming an attempt_id the tool does not know stays unmatched,
 * because attaching it to the candidate's attempt by `user_id` would show another attempt's score. Only a
 * result without an attempt_id is matched by the candidate's `user_id` and the exam (`exam_tag`, when the data
 * carries one), if they name one exam; among several attempts in it, the latest started before the submission.
 * Anything else stays unmatched, for administrators to see.
 */
export async function matchResult(result: SuspicionResult, source: MatchingSource, accountRef: string): Promise<MatchOutcome> {
  const problems: string[] = [];
  if (result.attemptRef) {
    const attempt = UUID.test(result.attemptRef) ? await source.attemptById(result.attemptRef.toLowerCase()) : undefined;
    if (!attempt) return { problems: ['unmatched_unknown_attempt'] };
    if (attempt.accountRef !== accountRef) return { problems: ['unmatched_attempt_of_another_account'] };
    if (result.userRef && result.userRef !== attempt.userId) problems.push('user_id_differs_from_attempt');
    return { match: { attemptId: attempt.attemptId, examId: attempt.examId, by: 'attempt_id' }, problems };
  }
  if (!result.userRef) return { problems: ['unmatched_no_attempt_or_user'] };
  let candidates = (await source.attemptsOfUser(result.userRef)).filter((c) => c.accountRef === accountRef);
  if (result.examTag) candidates = candidates.filter((c) => c.examTag === result.examTag);
  if (candidates.length === 0) return { problems: ['unmatched_unknown_user_or_exam'] };
  // Without an exam_tag, attempts in several exams cannot be told apart.
  if (!result.examTag && new Set(candidates.map((c) => c.examId)).size > 1) return { problems: ['unmatched_ambiguous_user'] };
  let chosen: CandidateAttempt | undefined;
  if (candidates.length === 1) chosen = candidates[0];
  else if (result.submittedAt) {
    const submitted = result.submittedAt.getTime();
    chosen = candidates.filter((c) => c.startedAt.getTime() <= submitted).sort((a, b) => b.startedAt.getTime() - a.startedAt.getTime())[0];
  }
  if (!chosen) return { problems: ['unmatched_ambiguous_user'] };
  return { match: { attemptId: chosen.attemptId, examId: chosen.examId, by: 'user_exam' }, problems };
}

/** Why a delivery matched no attempt, in an administrator's words (the codes matchResult leaves in `problems`). */
export const UNMATCHED_REASONS: Readonly<Record<string, string>> = {
  unmatched_unknown_attempt:
    'It names an attempt_id this tool never launched (an attempt started elsewhere, or one the service made up): it is not matched by candidate, so it cannot replace the result of another attempt.',
  unmatched_attempt_of_another_account:
    'It names an attempt launched through another proctoring account (another platform\'s): results are accepted only from the account the attempt was launched with.',
  unmatched_no_attempt_or_user: 'It names no attempt of this tool and carries no candidate id.',
  unmatched_unknown_user_or_exam: 'No attempt of this candidate (in this exam) was launched through this proctoring account.',
  unmatched_ambiguous_user: 'The candidate has several attempts and the result does not say which one it is for.',
};

/** The reason a stored delivery matched nothing, in words. */
export function unmatchedReason(problems: readonly string[]): string {
  for (const problem of problems) {
    const reason = UNMATCHED_REASONS[problem];
    if (reason) return reason;
  }
  return 'It matched no attempt of this tool.';
}
