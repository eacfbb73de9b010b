import { escapeRegExp, NOT_A_QUIZ_URL, parseQuizUrl, refusal, type LmsPreset } from '../../exams/settings/presets/lms.js';
import { english } from '../../proctoring/english.js';

/** The demo LMS's quiz (router.ts: /quiz/:id, /attempt, /review), offered as an exam-page preset in sandbox mode only. */
export const demoLmsPreset: LmsPreset = {
  id: 'demo-lms',
  label: english('settings:presets.lms.demo-lms.name'),
  productFamilies: [],
  example: 'https://lms.example.edu/sandbox/lms/quiz/exam-midterm',
  note: english('settings:presets.lms.demo-lms.note'),
  limited: false,
  sources: ['src/sandbox/demo-lms/router.ts'],
  derive(quizUrl) {
    const url = parseQuizUrl(quizUrl);
    if (!url) return NOT_A_QUIZ_URL;
    const match = /^(.*\/quiz\/[^/?#]+)/.exec(url.pathname);
    if (!match?.[1]) return refusal('settings:presets.lms.demo-lms.notThisLms', { example: '…/sandbox/lms/quiz/exam-midterm' });
    const quiz = url.origin + match[1];
    const q = escapeRegExp(quiz);
    return { ok: true, pages: { launch_url: quiz, exam_start: `^${q}([?#].*)?$`, exam_take: `^${q}/attempt.*`, exam_end: `^${q}/review.*` } };
  },
  // The demo LMS names a quiz by its link's resource link id.
  addressInCopy(copiedQuizUrl, link) {
    const url = parseQuizUrl(copiedQuizUrl);
    const match = url ? /^(.*\/quiz\/)[^/?#]+/.exec(url.pathname) : null;
    return url && match?.[1] ? `${url.origin}${match[1]}${encodeURIComponent(link.resourceLinkId)}` : undefined;
  },
};
