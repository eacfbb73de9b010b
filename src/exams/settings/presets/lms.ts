import { POST_MESSAGE_NOTIFICATION } from '../../../proctoring/contract.js';
import { english } from '../../../proctoring/english.js';

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

/**
 * A refusal carries its sentence as a catalog key with arguments (`key`, `values`) for the reader's language,
 * and in English (`message`) for API clients and logs.
 */
export type DeriveResult = { ok: true; pages: ExamPages } | { ok: false; message: string; key: string; values: Readonly<Record<string, string>> };

/** A refusal with its sentence from the settings catalog. */
export function refusal(key: string, values: Readonly<Record<string, string>> = {}): DeriveResult {
  return { ok: false, key, values, message: english(key, values) };
}

/** "This is not a … address: it should look like {example}", the preset's own sentence. */
const notThisLms = (id: string, example: string): DeriveResult => refusal(`settings:presets.lms.${id}.notThisLms`, { example });

/** The preset's name and note in the reader's words (`t`): the catalog's `settings:presets.lms.<id>`. */
export function lmsPresetText(t: (key: string) => string, preset: Pick<LmsPreset, 'id' | 'label' | 'note'>): { label: string; note: string } {
  return { label: t(`settings:presets.lms.${preset.id}.name`), note: t(`settings:presets.lms.${preset.id}.note`) };
}

export interface LmsPreset {
  id: string;
  /** Name and note in English, from the settings catalog (`settings:presets.lms.<id>`): pages use lmsPresetText. */
  label: string;
  /** tool_platform.product_family_code values that pre-select this preset. */
  productFamilies: readonly string[];
  /** What a quiz URL looks like, for the field's help text. */
  example: string;
  /** Shown beside the preset: what it does, what it cannot do. */
  note: string;
  /** True when URL patterns cannot tell all exam pages apart in this LMS. */
  limited: boolean;
  sources: readonly string[];
  derive(quizUrl: string): DeriveResult;
  /**
   * After a course copy: this course's quiz address, from the copied one and the new link, where the LMS's
   * addresses allow it. Moodle (course module id) and Canvas (quiz id) give the copied quiz a new id that a
   * launch does not carry, so their presets cannot (docs/lms-notes.md, "Course copies").
   */
  addressInCopy?(copiedQuizUrl: string, link: { resourceLinkId: string; contextId: string }): string | undefined;
  /**
   * After a course copy: the page of this course that lists its quizzes, where the launch tells the LMS's own
   * course id (Moodle: the context id; Canvas: the `canvas_course_id` custom parameter the tool asks for).
   */
  quizListInCourse?(copiedQuizUrl: string, course: CopyCourse): string | undefined;
}

/** The course of a copy as a launch tells it: the LTI context id and the link's custom parameters. */
export interface CopyCourse {
  contextId: string;
  custom: Readonly<Record<string, string>>;
}

/** The custom parameter the tool asks Canvas for (`$Canvas.course.id`): Canvas's LTI context id is not its course id. */
export const CANVAS_COURSE_ID_PARAMETER = 'canvas_course_id';

/** Canvas's course id of a launch, when Canvas substituted it (an unknown variable arrives as written). */
function canvasCourseId(course: CopyCourse): string | undefined {
  const id = course.custom[CANVAS_COURSE_ID_PARAMETER];
  return id !== undefined && /^\d+$/.test(id) ? id : undefined;
}

/** A Canvas course page of the copied address's Canvas (`quizzes` or `assignments`), for the copy's course. */
function canvasCoursePage(copiedQuizUrl: string, course: CopyCourse, page: 'quizzes' | 'assignments'): string | undefined {
  const url = parseQuizUrl(copiedQuizUrl);
  const id = canvasCourseId(course);
  const match = url ? /^((?:\/[^/]+)*?)\/courses\//.exec(url.pathname) : null;
  return url && id && match ? `${url.origin}${match[1] ?? ''}/courses/${id}/${page}` : undefined;
}

/** Escapes text for use inside a regular expression (the `/` needs no escape in `new RegExp`). */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The quiz address as a URL, when it is an absolute http(s) address with a host. */
export function parseQuizUrl(quizUrl: string): URL | undefined {
  const trimmed = quizUrl.trim();
  if (!/^https?:\/\//i.test(trimmed)) return undefined;
  try {
    const url = new URL(trimmed);
    return url.hostname ? url : undefined;
  } catch {
    return undefined;
  }
}

export const NOT_A_QUIZ_URL: DeriveResult = refusal('settings:presets.lms.notAQuizUrl');

/** The LMS root: origin plus any sub-path before `marker` (Moodle often lives under /moodle). */
function rootBefore(url: URL, marker: string): string | undefined {
  const index = url.pathname.indexOf(marker);
  if (index < 0) return undefined;
  return url.origin + url.pathname.slice(0, index);
}

const canvasClassic: LmsPreset = {
  id: 'canvas-classic',
  label: english('settings:presets.lms.canvas-classic.name'),
  productFamilies: ['canvas'],
  example: 'https://canvas.example.edu/courses/123/quizzes/456',
  note: english('settings:presets.lms.canvas-classic.note'),
  limited: false,
  sources: [
    'canvas-lms config/routes.rb (https://github.com/instructure/canvas-lms/blob/master/config/routes.rb: `take` and `take/questions/:question_id` are quizzes#show with take=1; submissions, history) and app/controllers/quizzes/quiz_submissions_controller.rb: taking is …/take and …/take/questions/:id; the final submit POSTs …/submissions',
    'A Respondus extension treats */quizzes/*/submissions* as the end of the exam. Patterns inferred.',
  ],
  derive(quizUrl) {
    const url = parseQuizUrl(quizUrl);
    if (!url) return NOT_A_QUIZ_URL;
    const match = /^((?:\/[^/]+)*?)\/courses\/([^/]+)\/quizzes\/([^/?#]+)/.exec(url.pathname);
    if (!match || match[3] === undefined || match[2] === undefined) {
      return notThisLms('canvas-classic', canvasClassic.example);
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
  quizListInCourse: (copiedQuizUrl, course) => canvasCoursePage(copiedQuizUrl, course, 'quizzes'),
};

const canvasNew: LmsPreset = {
  id: 'canvas-new',
  label: english('settings:presets.lms.canvas-new.name'),
  productFamilies: [],
  example: 'https://canvas.example.edu/courses/123/assignments/789',
  note: english('settings:presets.lms.canvas-new.note'),
  limited: true,
  sources: ['the quiz runs in a cross-origin iframe; the top-level URL never changes, so URL patterns cannot tell start, take and end apart.'],
  derive(quizUrl) {
    const url = parseQuizUrl(quizUrl);
    if (!url) return NOT_A_QUIZ_URL;
    const match = /^((?:\/[^/]+)*?)\/courses\/([^/]+)\/assignments\/([^/?#]+)/.exec(url.pathname);
    if (!match || match[2] === undefined || match[3] === undefined) {
      return notThisLms('canvas-new', canvasNew.example);
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
  quizListInCourse: (copiedQuizUrl, course) => canvasCoursePage(copiedQuizUrl, course, 'assignments'),
};

const moodle: LmsPreset = {
  id: 'moodle',
  label: english('settings:presets.lms.moodle.name'),
  productFamilies: ['moodle'],
  example: 'https://moodle.example.edu/mod/quiz/view.php?id=42',
  note: english('settings:presets.lms.moodle.note'),
  limited: false,
  sources: [
    'Moodle core mod/quiz: view.php → POST startattempt.php → attempt.php?attempt=A&cmid=CMID[&page=N] → POST processattempt.php → summary.php → POST processattempt.php (finish) → review.php?attempt=A&cmid=CMID (https://github.com/moodle/moodle/tree/main/mod/quiz)',
    "Proctorio's Moodle helper plugin uses the same page names. Patterns inferred.",
  ],
  derive(quizUrl) {
    const url = parseQuizUrl(quizUrl);
    if (!url) return NOT_A_QUIZ_URL;
    const root = rootBefore(url, '/mod/quiz/');
    const cmid = url.searchParams.get('id') ?? url.searchParams.get('cmid');
    if (root === undefined || !cmid || !/^\d+$/.test(cmid)) {
      return notThisLms('moodle', moodle.example);
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
  // Moodle's LTI context id is its course id (mod/lti/locallib.php, lti_build_request): index.php lists the course's quizzes.
  quizListInCourse(copiedQuizUrl, course) {
    const url = parseQuizUrl(copiedQuizUrl);
    const root = url ? rootBefore(url, '/mod/quiz/') : undefined;
    return root !== undefined && /^\d+$/.test(course.contextId) ? `${root}/mod/quiz/index.php?id=${course.contextId}` : undefined;
  },
};

const brightspace: LmsPreset = {
  id: 'brightspace',
  label: english('settings:presets.lms.brightspace.name'),
  productFamilies: ['desire2learn', 'd2l', 'brightspace'],
  example: 'https://school.brightspace.com/d2l/lms/quizzing/user/quiz_summary.d2l?qi=12&ou=3456',
  note: english('settings:presets.lms.brightspace.note'),
  limited: false,
  sources: [
    'Public browser extensions and guides: start goes through attempt/quiz_start_frame_auto.d2l, attempts live under /attempt/, and two other proctoring products end on quiz_submissions.d2l. Inferred.',
  ],
  derive(quizUrl) {
    const url = parseQuizUrl(quizUrl);
    if (!url) return NOT_A_QUIZ_URL;
    const root = rootBefore(url, '/d2l/lms/quizzing/');
    const qi = url.searchParams.get('qi');
    const ou = url.searchParams.get('ou');
    if (root === undefined || !qi || !ou || !/^\d+$/.test(qi) || !/^\d+$/.test(ou)) {
      return notThisLms('brightspace', brightspace.example);
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
  label: english('settings:presets.lms.blackboard-ultra.name'),
  productFamilies: ['BlackboardLearn', 'blackboardlearn', 'blackboard'],
  example: 'https://school.blackboard.com/ultra/courses/_123_1/outline/assessment/test/_456_1?courseId=_123_1',
  note: english('settings:presets.lms.blackboard-ultra.note'),
  limited: true,
  sources: [
    'Ultra test URLs; Ultra also has a proctoring-vendor hook /webapps/assessment/proctoring/vendor/<vendor>_handshake_take. Inferred.',
  ],
  derive(quizUrl) {
    const url = parseQuizUrl(quizUrl);
    if (!url) return NOT_A_QUIZ_URL;
    const match = /^((?:\/[^/]+)*?)\/ultra\/courses\/([^/]+)\/outline\/assessment\/test\/([^/?#]+)/.exec(url.pathname);
    if (!match || match[2] === undefined || match[3] === undefined) {
      return notThisLms('blackboard-ultra', blackboardUltra.example);
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
  label: english('settings:presets.lms.blackboard-original.name'),
  productFamilies: [],
  example: 'https://school.blackboard.com/webapps/assessment/take/launchAssessment.jsp?course_id=_123_1&content_id=_456_1',
  note: english('settings:presets.lms.blackboard-original.note'),
  limited: false,
  sources: ['A Respondus extension: submitted.jsp after submit, review/review.jsp for review. Take page inferred.'],
  derive(quizUrl) {
    const url = parseQuizUrl(quizUrl);
    if (!url) return NOT_A_QUIZ_URL;
    const root = rootBefore(url, '/webapps/assessment/take/launchAssessment.jsp');
    const course = url.searchParams.get('course_id');
    const content = url.searchParams.get('content_id');
    if (root === undefined || !course || !content) {
      return notThisLms('blackboard-original', blackboardOriginal.example);
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
  label: english('settings:presets.lms.sakai.name'),
  productFamilies: ['sakai'],
  example: 'https://sakai.example.edu/samigo-app/servlet/Login?id=abc123',
  note: english('settings:presets.lms.sakai.note'),
  limited: false,
  sources: ["Sakai's own integration with this kind of API uses Login, jsf/delivery and confirmSubmit; here anchored to the server."],
  derive(quizUrl) {
    const url = parseQuizUrl(quizUrl);
    if (!url) return NOT_A_QUIZ_URL;
    const root = rootBefore(url, '/samigo-app/servlet/Login');
    const alias = url.searchParams.get('id');
    if (root === undefined || !alias) {
      return notThisLms('sakai', sakai.example);
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

const custom: LmsPreset = {
  id: 'custom',
  label: english('settings:presets.lms.custom.name'),
  productFamilies: [],
  example: 'https://lms.example.edu/quiz/42',
  note: english('settings:presets.lms.custom.note'),
  limited: false,
  sources: ['the Launch API specification, candidate launch request: launch_url must be matched by exam_start.'],
  derive(quizUrl) {
    const url = parseQuizUrl(quizUrl);
    if (!url) return NOT_A_QUIZ_URL;
    const launch = quizUrl.trim();
    return { ok: true, pages: { launch_url: launch, exam_start: `^${escapeRegExp(launch)}([/?#&].*)?$`, exam_take: '', exam_end: '' } };
  },
};

/** The presets of every installation, `custom` last. */
export const LMS_PRESETS: readonly LmsPreset[] = [canvasClassic, canvasNew, moodle, brightspace, blackboardUltra, blackboardOriginal, sakai, custom];

/** The presets one installation offers: the built-in ones, and any a mode adds (the sandbox's demo LMS). */
export interface LmsPresetCatalog {
  /** In the order they are offered, `custom` last. */
  offered: readonly LmsPreset[];
  byId(id: string | undefined): LmsPreset | undefined;
  /** The preset pre-selected for a launch from this LMS (tool_platform.product_family_code); `custom` when none fits. */
  forPlatform(productFamilyCode: string | undefined): LmsPreset;
  derive(presetId: string, quizUrl: string): DeriveResult;
}

export function createLmsPresetCatalog(added: readonly LmsPreset[] = []): LmsPresetCatalog {
  const offered = [...LMS_PRESETS.filter((preset) => preset !== custom), ...added, custom];
  const byId = (id: string | undefined) => offered.find((preset) => preset.id === id);
  return {
    offered,
    byId,
    forPlatform(productFamilyCode) {
      const code = productFamilyCode?.toLowerCase();
      return offered.find((preset) => preset.productFamilies.some((family) => family.toLowerCase() === code)) ?? custom;
    },
    derive(presetId, quizUrl) {
      const preset = byId(presetId);
      if (!preset) return refusal('settings:presets.lms.choose');
      return preset.derive(quizUrl);
    },
  };
}

const builtIn = createLmsPresetCatalog();

export const presetForPlatform = builtIn.forPlatform;
export const deriveExamPages = builtIn.derive;
