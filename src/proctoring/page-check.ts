import { isAbsoluteHttpUrl, POST_MESSAGE_NOTIFICATION } from './contract.js';
import { pagePatternProblem, patternMatches } from './patterns.js';

export const PAGE_PATTERN_FIELDS = ['exam_start', 'exam_take', 'exam_end'] as const;
export type PagePatternField = (typeof PAGE_PATTERN_FIELDS)[number];

export interface ExamPagesCheck {
  /** Per pattern the tool refuses, what is wrong with it, to follow "This pattern" (`settings:validation.badPattern`). */
  problems: Partial<Record<PagePatternField, string>>;
  /** Whether exam_start matches launch_url; absent when either is missing or unusable. */
  startMatchesLaunch?: boolean;
}

/**
 * The settings form's live check of the exam pages, done by the server so that the browser never runs
 * an instructor's pattern with its own backtracking engine (a bad pattern would freeze the tab).
 */
export function checkExamPages(pages: { launch_url?: string; exam_start?: string; exam_take?: string; exam_end?: string }): ExamPagesCheck {
  const problems: ExamPagesCheck['problems'] = {};
  for (const field of PAGE_PATTERN_FIELDS) {
    const pattern = pages[field];
    if (!pattern || (field !== 'exam_start' && pattern === POST_MESSAGE_NOTIFICATION)) continue;
    const problem = pagePatternProblem(pattern);
    if (problem) problems[field] = problem.reason;
  }
  const launchUrl = pages.launch_url ?? '';
  const start = pages.exam_start ?? '';
  if (!start || problems.exam_start || !isAbsoluteHttpUrl(launchUrl)) return { problems };
  const matches = patternMatches(start, launchUrl);
  return matches === undefined ? { problems } : { problems, startMatchesLaunch: matches };
}
