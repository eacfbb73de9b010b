import { POST_MESSAGE_NOTIFICATION } from '../../../proctoring/contract.js';

/**
 * Exam-page presets: from the quiz URL an instructor pastes to the four page fields of the Launch API
 * (launch_url and the exam_start / exam_take / exam_end patterns). Pure functions.
 *
 * Sources are listed with each preset (`sources`).
 * Patterns stay plain (no look-arounds: the engine on the service's side is unknown); a pattern marked
 * "inferred" has not been checked against a live LMS, which is why every derived field stays editable.
 */

export interface ExamPages {
  launch_url: string;
  exam_start: string;
  exam_take: string;
  exam_end: string;
}

export type DeriveResult = { ok: true; pages: ExamPages } | { ok: false; message: string };

export interface LmsPreset {
  id: string;
  label: string;
  /** tool_platform.product_family_code values that pre-select this preset. */
  productFamilies: readonly string[];
  /** What a quiz URL looks like, for the field's help text. */
  example: string;
  /** Shown beside the preset: what it does, what it cannot do. */
  note: string;
  /** True when URL patterns cannot tell all exam pages apart in this LMS. */
  limited: boolean;
  /** Only offered in sandbox mode. */
  sandboxOnly?: boolean;
  sources: readonly string[];
  derive(quizUrl: string): DeriveResult;
}

/** Escapes text for use inside a regular expression (the `/` needs no escape in `new RegExp`). */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function parse(quizUrl: string): URL | undefined {
  const trimmed = quizUrl.trim();
  if (!/^https?:\/\//i.test(trimmed)) return undefined;
  try {
    const url = new URL(trimmed);
    return url.hostname ? url : undefined;
  } catch {
    return undefined;
  }
}

const notAUrl: DeriveResult = { ok: false, message: 'Paste the full address of the quiz, starting with https://.' };

/** The LMS root: origin plus any sub-path before `marker` (Moodle often lives under /moodle). */
function rootBefore(url: URL, marker: string): string | undefined {
  const index = url.pathname.indexOf(marker);
  if (index < 0) return undefined;
  return url.origin + url.pathname.slice(0, index);
}

const canvasClassic: LmsPreset = {
  id: 'canvas-classic',
  label: 'Canvas Classic Quizzes',
  productFamilies: ['canvas'],
  example: 'https://canvas.example.edu/courses/123/quizzes/456',
  note: 'Proctoring starts on the quiz page, covers taking it, and ends on the submission or history page.',
  limited: false,
  sources: [
    'canvas-lms config/routes.rb (https://github.com/instructure/canvas-lms/blob/master/config/routes.rb: `take` and `take/questions/:question_id` are quizzes#show with take=1; submissions, history) and app/controllers/quizzes/quiz_submissions_controller.rb: taking is …/take and …/take/questions/:id; the final submit POSTs …/submissions',
    'A Respondus extension treats */quizzes/*/submissions* as the end of the exam. Patterns inferred.',
  ],
  derive(quizUrl) {
    const url = parse(quizUrl);
    if (!url) return notAUrl;
    const match = /^((?:\/[^/]+)*?)\/courses\/([^/]+)\/quizzes\/([^/?#]+)/.exec(url.pathname);
    if (!match || match[3] === undefined || match[2] === undefined) {
      return { ok: false, message: 'This is not a Canvas Classic quiz address: it should look like https://canvas.example.edu/courses/123/quizzes/456.' };
    }
    const root = `${url.origin}${match[1] ?? ''}`;
    const quiz = `${root}/courses/${match[2]}/quizzes/${match[3]}`;
    const q = escapeRegExp(quiz);
    return {
      ok: true,
      pages: {
        launch_url: quiz,
        exam_start: `^${q}(/take)?([?#].*)?$`,
        exam_take: `^${q}/(take|submissions)(/.*)?([?#].*)?$`,
        exam_end: `^${q}/(submissions|history)([/?#].*)?$`,
      },
    };
  },
};

const canvasNew: LmsPreset = {
  id: 'canvas-new',
  label: 'Canvas New Quizzes (limited)',
  productFamilies: [],
  example: 'https://canvas.example.edu/courses/123/assignments/789',
  note:
    'New Quizzes runs in a frame from another site (…quiz-lti-…-prod.instructure.com), so the page address never changes while a student works. ' +
    'Start is detected from the assignment page; the exam pages and the end rely on the quiz posting its state to the window (single-page option), which New Quizzes does not do by itself: check with the proctoring service before using it.',
  limited: true,
  sources: ['the quiz runs in a cross-origin iframe; the top-level URL never changes, so URL patterns cannot tell start, take and end apart.'],
  derive(quizUrl) {
    const url = parse(quizUrl);
    if (!url) return notAUrl;
    const match = /^((?:\/[^/]+)*?)\/courses\/([^/]+)\/assignments\/([^/?#]+)/.exec(url.pathname);
    if (!match || match[2] === undefined || match[3] === undefined) {
      return { ok: false, message: 'This is not a Canvas assignment address: it should look like https://canvas.example.edu/courses/123/assignments/789.' };
    }
    const assignment = `${url.origin}${match[1] ?? ''}/courses/${match[2]}/assignments/${match[3]}`;
    return {
      ok: true,
      pages: {
        launch_url: assignment,
        exam_start: `^${escapeRegExp(assignment)}([/?#].*)?$`,
        exam_take: POST_MESSAGE_NOTIFICATION,
        exam_end: POST_MESSAGE_NOTIFICATION,
      },
    };
  },
};

const moodle: LmsPreset = {
  id: 'moodle',
  label: 'Moodle quiz',
  productFamilies: ['moodle'],
  example: 'https://moodle.example.edu/mod/quiz/view.php?id=42',
  note: 'Proctoring starts on the quiz page, covers the attempt and summary pages, and ends on the review page. If students may not review their attempt, Moodle returns to the quiz page instead: turn review "immediately after the attempt" on.',
  limited: false,
  sources: [
    'Moodle core mod/quiz: view.php → POST startattempt.php → attempt.php?attempt=A&cmid=CMID[&page=N] → POST processattempt.php → summary.php → POST processattempt.php (finish) → review.php?attempt=A&cmid=CMID (https://github.com/moodle/moodle/tree/main/mod/quiz)',
    "Proctorio's Moodle helper plugin uses the same page names. Patterns inferred.",
  ],
  derive(quizUrl) {
    const url = parse(quizUrl);
    if (!url) return notAUrl;
    const root = rootBefore(url, '/mod/quiz/');
    const cmid = url.searchParams.get('id') ?? url.searchParams.get('cmid');
    if (root === undefined || !cmid || !/^\d+$/.test(cmid)) {
      return { ok: false, message: 'This is not a Moodle quiz address: open the quiz in Moodle and copy the address, which looks like https://moodle.example.edu/mod/quiz/view.php?id=42.' };
    }
    const r = escapeRegExp(root);
    return {
      ok: true,
      pages: {
        launch_url: `${root}/mod/quiz/view.php?id=${cmid}`,
        exam_start: `^${r}/mod/quiz/(view|startattempt)\\.php.*`,
        exam_take: `^${r}/mod/quiz/(attempt|summary|processattempt|startattempt)\\.php.*`,
        exam_end: `^${r}/mod/quiz/review\\.php.*`,
      },
    };
  },
};

const brightspace: LmsPreset = {
  id: 'brightspace',
  label: 'Brightspace (D2L) quiz',
  productFamilies: ['desire2learn', 'd2l', 'brightspace'],
  example: 'https://school.brightspace.com/d2l/lms/quizzing/user/quiz_summary.d2l?qi=12&ou=3456',
  note: 'Proctoring starts on the quiz summary page, covers the attempt pages and ends on the submissions page. Brightspace shows quizzes in nested frames.',
  limited: false,
  sources: [
    'Public browser extensions and guides: start goes through attempt/quiz_start_frame_auto.d2l, attempts live under /attempt/, and two other proctoring products end on quiz_submissions.d2l. Inferred.',
  ],
  derive(quizUrl) {
    const url = parse(quizUrl);
    if (!url) return notAUrl;
    const root = rootBefore(url, '/d2l/lms/quizzing/');
    const qi = url.searchParams.get('qi');
    const ou = url.searchParams.get('ou');
    if (root === undefined || !qi || !ou || !/^\d+$/.test(qi) || !/^\d+$/.test(ou)) {
      return { ok: false, message: 'This is not a Brightspace quiz address: it should look like https://school.brightspace.com/d2l/lms/quizzing/user/quiz_summary.d2l?qi=12&ou=3456.' };
    }
    const r = escapeRegExp(root);
    return {
      ok: true,
      pages: {
        launch_url: `${root}/d2l/lms/quizzing/user/quiz_summary.d2l?qi=${qi}&ou=${ou}`,
        exam_start: `^${r}/d2l/lms/quizzing/user/quiz_summary\\.d2l\\?.*`,
        exam_take: `^${r}/d2l/lms/quizzing/user/attempt/.*`,
        exam_end: `^${r}/d2l/lms/quizzing/user/quiz_submissions(_attempt)?\\.d2l.*`,
      },
    };
  },
};

const blackboardUltra: LmsPreset = {
  id: 'blackboard-ultra',
  label: 'Blackboard Ultra test (limited)',
  productFamilies: ['BlackboardLearn', 'blackboardlearn', 'blackboard'],
  example: 'https://school.blackboard.com/ultra/courses/_123_1/outline/assessment/test/_456_1?courseId=_123_1',
  note: 'Ultra is a single-page application: moving between questions may not change the address, so check a test attempt before relying on it.',
  limited: true,
  sources: [
    'Ultra test URLs; Ultra also has a proctoring-vendor hook /webapps/assessment/proctoring/vendor/<vendor>_handshake_take. Inferred.',
  ],
  derive(quizUrl) {
    const url = parse(quizUrl);
    if (!url) return notAUrl;
    const match = /^((?:\/[^/]+)*?)\/ultra\/courses\/([^/]+)\/outline\/assessment\/test\/([^/?#]+)/.exec(url.pathname);
    if (!match || match[2] === undefined || match[3] === undefined) {
      return {
        ok: false,
        message: 'This is not a Blackboard Ultra test address: it should look like https://school.blackboard.com/ultra/courses/_123_1/outline/assessment/test/_456_1?courseId=_123_1.',
      };
    }
    const root = `${url.origin}${match[1] ?? ''}`;
    const course = match[2];
    const test = match[3];
    const r = escapeRegExp(root);
    const c = escapeRegExp(course);
    const t = escapeRegExp(test);
    return {
      ok: true,
      pages: {
        launch_url: `${root}/ultra/courses/${course}/outline/assessment/test/${test}?courseId=${course}`,
        exam_start: `^${r}/ultra/courses/${c}/outline/assessment/test/${t}.*`,
        exam_take: `^${r}/ultra/courses/${c}/outline/assessment/.*`,
        exam_end: `^${r}/ultra/courses/${c}/outline/assessment/${t}/overview/attempt/.*`,
      },
    };
  },
};

const blackboardOriginal: LmsPreset = {
  id: 'blackboard-original',
  label: 'Blackboard Learn Original test',
  productFamilies: [],
  example: 'https://school.blackboard.com/webapps/assessment/take/launchAssessment.jsp?course_id=_123_1&content_id=_456_1',
  note: 'Proctoring starts on the test launch page, covers the test pages and ends on the "submitted" page.',
  limited: false,
  sources: ['A Respondus extension: submitted.jsp after submit, review/review.jsp for review. Take page inferred.'],
  derive(quizUrl) {
    const url = parse(quizUrl);
    if (!url) return notAUrl;
    const root = rootBefore(url, '/webapps/assessment/take/launchAssessment.jsp');
    const course = url.searchParams.get('course_id');
    const content = url.searchParams.get('content_id');
    if (root === undefined || !course || !content) {
      return {
        ok: false,
        message: 'This is not a Blackboard Original test address: it should look like https://school.blackboard.com/webapps/assessment/take/launchAssessment.jsp?course_id=_123_1&content_id=_456_1.',
      };
    }
    const r = escapeRegExp(root);
    const launch = new URL(`${root}/webapps/assessment/take/launchAssessment.jsp`);
    launch.searchParams.set('course_id', course);
    launch.searchParams.set('content_id', content);
    return {
      ok: true,
      pages: {
        launch_url: launch.href,
        exam_start: `^${r}/webapps/assessment/take/launchAssessment\\.jsp.*`,
        exam_take: `^${r}/webapps/assessment/take/.*`,
        exam_end: `^${r}/webapps/assessment/take/submitted\\.jsp.*`,
      },
    };
  },
};

const sakai: LmsPreset = {
  id: 'sakai',
  label: 'Sakai Tests & Quizzes (Samigo)',
  productFamilies: ['sakai'],
  example: 'https://sakai.example.edu/samigo-app/servlet/Login?id=abc123',
  note: 'Proctoring starts on the published test link, covers the delivery pages and ends on the submission confirmation.',
  limited: false,
  sources: ["Sakai's own integration with this kind of API uses Login, jsf/delivery and confirmSubmit; here anchored to the server."],
  derive(quizUrl) {
    const url = parse(quizUrl);
    if (!url) return notAUrl;
    const root = rootBefore(url, '/samigo-app/servlet/Login');
    const alias = url.searchParams.get('id');
    if (root === undefined || !alias) {
      return { ok: false, message: 'This is not a Sakai published test link: it should look like https://sakai.example.edu/samigo-app/servlet/Login?id=abc123.' };
    }
    const r = escapeRegExp(root);
    const launch = new URL(`${root}/samigo-app/servlet/Login`);
    launch.searchParams.set('id', alias);
    return {
      ok: true,
      pages: {
        launch_url: launch.href,
        exam_start: `^${r}/samigo-app/servlet/Login.*`,
        exam_take: `^${r}/samigo-app/jsf/delivery.*`,
        exam_end: `^${r}/.*confirmSubmit.*`,
      },
    };
  },
};

/** The sandbox's demo LMS quiz (src/sandbox/demo-lms/router.ts: /quiz/:id, /attempt, /review). */
const demoLms: LmsPreset = {
  id: 'demo-lms',
  label: 'Demo LMS quiz (sandbox)',
  productFamilies: [],
  example: 'http://localhost:3000/sandbox/lms/quiz/exam-midterm',
  note: "The quiz of the sandbox's demo LMS: start page, attempt page, review page.",
  limited: false,
  sandboxOnly: true,
  sources: ['src/sandbox/demo-lms/router.ts'],
  derive(quizUrl) {
    const url = parse(quizUrl);
    if (!url) return notAUrl;
    const match = /^(.*\/quiz\/[^/?#]+)/.exec(url.pathname);
    if (!match?.[1]) return { ok: false, message: 'This is not a demo LMS quiz address: it looks like …/sandbox/lms/quiz/exam-midterm.' };
    const quiz = url.origin + match[1];
    const q = escapeRegExp(quiz);
    return { ok: true, pages: { launch_url: quiz, exam_start: `^${q}([?#].*)?$`, exam_take: `^${q}/attempt.*`, exam_end: `^${q}/review.*` } };
  },
};

const custom: LmsPreset = {
  id: 'custom',
  label: 'Custom (enter the pages yourself)',
  productFamilies: [],
  example: 'https://lms.example.edu/quiz/42',
  note: 'The quiz address becomes the launch URL and a start pattern that matches it; write the exam pages and end page patterns yourself.',
  limited: false,
  sources: ['the Launch API specification, candidate launch request: launch_url must be matched by exam_start.'],
  derive(quizUrl) {
    const url = parse(quizUrl);
    if (!url) return notAUrl;
    const launch = quizUrl.trim();
    return { ok: true, pages: { launch_url: launch, exam_start: `^${escapeRegExp(launch)}([/?#&].*)?$`, exam_take: '', exam_end: '' } };
  },
};

export const LMS_PRESETS: readonly LmsPreset[] = [canvasClassic, canvasNew, moodle, brightspace, blackboardUltra, blackboardOriginal, sakai, demoLms, custom];

export function lmsPreset(id: string | undefined): LmsPreset | undefined {
  return LMS_PRESETS.find((preset) => preset.id === id);
}

/** The presets offered on this installation (the demo LMS preset only in sandbox mode). */
export function offeredLmsPresets(sandbox: boolean): LmsPreset[] {
  return LMS_PRESETS.filter((preset) => sandbox || !preset.sandboxOnly);
}

/** The preset pre-selected for a launch from this LMS (tool_platform.product_family_code). */
export function presetForPlatform(productFamilyCode: string | undefined, sandbox = false): LmsPreset {
  const code = productFamilyCode?.toLowerCase();
  const found = LMS_PRESETS.find((preset) => preset.productFamilies.some((family) => family.toLowerCase() === code));
  if (found && (sandbox || !found.sandboxOnly)) return found;
  return custom;
}

export function deriveExamPages(presetId: string, quizUrl: string): DeriveResult {
  const preset = lmsPreset(presetId);
  if (!preset) return { ok: false, message: 'Choose the LMS the quiz is in.' };
  return preset.derive(quizUrl);
}
