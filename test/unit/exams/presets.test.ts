import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXAM_SETTINGS_OFF, POST_MESSAGE_NOTIFICATION, validateCandidateLaunch, validateExamSettings } from '../../../src/proctoring/contract.js';
import { createLmsPresetCatalog, deriveExamPages, escapeRegExp, presetForPlatform } from '../../../src/exams/settings/presets/lms.js';
import { demoLmsPreset } from '../../../src/sandbox/demo-lms/preset.js';
import { applySecurityPreset, SECURITY_PRESETS } from '../../../src/exams/settings/presets/security.js';
import { brokenRequirements } from '../../../src/exams/settings/prerequisites.js';

interface Case {
  preset: string;
  quizUrl: string;
  launchUrl: string;
  /** Pages of a real attempt: [url, which pattern must match it]. */
  pages: Array<[string, 'start' | 'take' | 'end' | 'none']>;
}

const CASES: Case[] = [
  {
    preset: 'moodle',
    quizUrl: 'https://moodle.example.edu/mod/quiz/view.php?id=42',
    launchUrl: 'https://moodle.example.edu/mod/quiz/view.php?id=42',
    pages: [
      ['https://moodle.example.edu/mod/quiz/startattempt.php', 'start'],
      ['https://moodle.example.edu/mod/quiz/attempt.php?attempt=7&cmid=42&page=1', 'take'],
      ['https://moodle.example.edu/mod/quiz/summary.php?attempt=7&cmid=42', 'take'],
      ['https://moodle.example.edu/mod/quiz/review.php?attempt=7&cmid=42', 'end'],
      ['https://moodle.example.edu/course/view.php?id=2', 'none'],
      ['https://evil.example/mod/quiz/attempt.php', 'none'],
    ],
  },
  {
    preset: 'moodle',
    quizUrl: ' https://lms.example.edu/moodle/mod/quiz/view.php?id=7#section ',
    launchUrl: 'https://lms.example.edu/moodle/mod/quiz/view.php?id=7',
    pages: [
      ['https://lms.example.edu/moodle/mod/quiz/attempt.php?attempt=1&cmid=7', 'take'],
      ['https://lms.example.edu/mod/quiz/attempt.php?attempt=1&cmid=7', 'none'],
    ],
  },
  {
    preset: 'canvas-classic',
    quizUrl: 'https://canvas.example.edu/courses/123/quizzes/456?module_item_id=9',
    launchUrl: 'https://canvas.example.edu/courses/123/quizzes/456',
    pages: [
      ['https://canvas.example.edu/courses/123/quizzes/456/take', 'take'],
      ['https://canvas.example.edu/courses/123/quizzes/456/take/questions/99', 'take'],
      ['https://canvas.example.edu/courses/123/quizzes/456/history?version=1', 'end'],
      ['https://canvas.example.edu/courses/123/quizzes/4567/take', 'none'],
    ],
  },
  {
    preset: 'canvas-new',
    quizUrl: 'https://canvas.example.edu/courses/123/assignments/789',
    launchUrl: 'https://canvas.example.edu/courses/123/assignments/789',
    pages: [],
  },
  {
    preset: 'brightspace',
    quizUrl: 'https://school.brightspace.com/d2l/lms/quizzing/user/quiz_summary.d2l?ou=3456&qi=12',
    launchUrl: 'https://school.brightspace.com/d2l/lms/quizzing/user/quiz_summary.d2l?qi=12&ou=3456',
    pages: [
      ['https://school.brightspace.com/d2l/lms/quizzing/user/attempt/quiz_attempt_page.d2l?qi=12', 'take'],
      ['https://school.brightspace.com/d2l/lms/quizzing/user/quiz_submissions.d2l?qi=12&ou=3456', 'end'],
    ],
  },
  {
    preset: 'blackboard-ultra',
    quizUrl: 'https://school.blackboard.com/ultra/courses/_123_1/outline/assessment/test/_456_1?courseId=_123_1',
    launchUrl: 'https://school.blackboard.com/ultra/courses/_123_1/outline/assessment/test/_456_1?courseId=_123_1',
    pages: [
      ['https://school.blackboard.com/ultra/courses/_123_1/outline/assessment/_456_1/overview/attempt/_9_1', 'end'],
      ['https://school.blackboard.com/ultra/courses/_999_1/outline/assessment/test/_456_1', 'none'],
    ],
  },
  {
    preset: 'blackboard-original',
    quizUrl: 'https://school.blackboard.com/webapps/assessment/take/launchAssessment.jsp?course_id=_1_1&content_id=_2_1',
    launchUrl: 'https://school.blackboard.com/webapps/assessment/take/launchAssessment.jsp?course_id=_1_1&content_id=_2_1',
    pages: [['https://school.blackboard.com/webapps/assessment/take/submitted.jsp?x=1', 'end']],
  },
  {
    preset: 'sakai',
    quizUrl: 'https://sakai.example.edu/samigo-app/servlet/Login?id=abc123',
    launchUrl: 'https://sakai.example.edu/samigo-app/servlet/Login?id=abc123',
    pages: [
      ['https://sakai.example.edu/samigo-app/jsf/delivery/beginTakingAssessment.faces', 'take'],
      ['https://sakai.example.edu/samigo-app/jsf/delivery/confirmSubmit.faces', 'end'],
    ],
  },
  {
    preset: 'demo-lms',
    quizUrl: 'http://127.0.0.1:3000/sandbox/lms/quiz/exam-midterm',
    launchUrl: 'http://127.0.0.1:3000/sandbox/lms/quiz/exam-midterm',
    pages: [
      ['http://127.0.0.1:3000/sandbox/lms/quiz/exam-midterm/attempt', 'take'],
      ['http://127.0.0.1:3000/sandbox/lms/quiz/exam-midterm/review?score=2', 'end'],
    ],
  },
];

describe('LMS exam-page presets', () => {
  const withSandbox = createLmsPresetCatalog([demoLmsPreset]);
  it('every example quiz address names an example LMS host, never a developer machine', () => {
    for (const preset of withSandbox.offered.filter((offered) => offered.example)) {
      assert.match(preset.example, /^https:\/\//, preset.id);
      assert.doesNotMatch(preset.example, /localhost|127\.0\.0\.1/, preset.id);
      assert.ok(withSandbox.derive(preset.id, preset.example).ok, `${preset.id}: its example is accepted`);
    }
  });
  for (const c of CASES) {
    it(`${c.preset}: ${c.quizUrl.trim()}`, () => {
      const result = withSandbox.derive(c.preset, c.quizUrl);
      assert.ok(result.ok, result.ok ? '' : result.message);
      const { pages } = result;
      assert.equal(pages.launch_url, c.launchUrl);
      const start = new RegExp(pages.exam_start);
      assert.ok(start.test(pages.launch_url), 'exam_start matches launch_url');
      const compile = (p: string) => (p === POST_MESSAGE_NOTIFICATION ? undefined : new RegExp(p));
      const take = compile(pages.exam_take);
      const end = compile(pages.exam_end);
      for (const [url, expected] of c.pages) {
        if (expected === 'start') assert.ok(start.test(url), `start should match ${url}`);
        if (expected === 'take') assert.ok(take?.test(url), `take should match ${url}`);
        if (expected === 'end') assert.ok(end?.test(url), `end should match ${url}`);
        if (expected === 'none') assert.ok(!take?.test(url) && !end?.test(url) && !start.test(url), `nothing should match ${url}`);
      }
      const request = validateCandidateLaunch({ ...pages, exam_settings: EXAM_SETTINGS_OFF, user_id: 'u-1' });
      assert.ok(request.ok, JSON.stringify(request.ok ? null : request.violations));
    });
  }

  const refusals: Array<[string, string]> = [
    ['moodle', 'https://moodle.example.edu/course/view.php?id=2'],
    ['moodle', 'https://moodle.example.edu/mod/quiz/view.php'],
    ['moodle', 'moodle.example.edu/mod/quiz/view.php?id=3'],
    ['canvas-classic', 'https://canvas.example.edu/courses/123/assignments/9'],
    ['canvas-new', 'https://canvas.example.edu/courses/123/quizzes/9'],
    ['brightspace', 'https://school.brightspace.com/d2l/lms/quizzing/user/quiz_summary.d2l?qi=12'],
    ['blackboard-ultra', 'https://school.blackboard.com/ultra/courses/_1_1/outline'],
    ['sakai', 'https://sakai.example.edu/portal'],
    ['custom', 'not a url'],
    ['nope', 'https://example.edu/'],
  ];
  for (const [preset, url] of refusals) {
    it(`refuses ${url} for ${preset} with a sentence`, () => {
      const result = deriveExamPages(preset, url);
      assert.equal(result.ok, false);
      assert.ok(!result.ok && result.message.length > 10);
    });
  }

  it('custom: launch_url and a start pattern that matches it, the rest left to the instructor', () => {
    const result = deriveExamPages('custom', 'https://lms.example.edu/quiz?id=4&x=(1)');
    assert.ok(result.ok);
    assert.ok(new RegExp(result.pages.exam_start).test(result.pages.launch_url));
    assert.ok(!new RegExp(result.pages.exam_start).test('https://lms.example.edu/quiz?id=45'));
    assert.equal(result.pages.exam_take, '');
  });

  it('escapes every regular-expression character of a host', () => {
    assert.equal(escapeRegExp('a.b*c+d?e^f$g{h}i(j)k|l[m]n\\o'), 'a\\.b\\*c\\+d\\?e\\^f\\$g\\{h\\}i\\(j\\)k\\|l\\[m\\]n\\\\o');
  });

  const families: Array<[string | undefined, string]> = [
    ['canvas', 'canvas-classic'],
    ['moodle', 'moodle'],
    ['desire2learn', 'brightspace'],
    ['BlackboardLearn', 'blackboard-ultra'],
    ['sakai', 'sakai'],
    ['schoology', 'custom'],
    [undefined, 'custom'],
  ];
  for (const [family, preset] of families) {
    it(`product_family_code ${String(family)} pre-selects ${preset}`, () => {
      assert.equal(presetForPlatform(family).id, preset);
    });
  }

  it('offers the five LMSs and Custom; the demo LMS only where the sandbox adds it', () => {
    const ids = createLmsPresetCatalog().offered.map((p) => p.id);
    for (const id of ['canvas-classic', 'canvas-new', 'moodle', 'brightspace', 'blackboard-ultra', 'custom']) assert.ok(ids.includes(id), id);
    assert.ok(!ids.includes('demo-lms'));
    assert.equal(deriveExamPages('demo-lms', 'http://127.0.0.1:3000/sandbox/lms/quiz/exam-midterm').ok, false);
    const sandbox = createLmsPresetCatalog([demoLmsPreset]);
    assert.deepEqual(
      sandbox.offered.map((p) => p.id),
      [...ids.filter((id) => id !== 'custom'), 'demo-lms', 'custom'],
    );
    assert.equal(sandbox.derive('demo-lms', 'http://127.0.0.1:3000/sandbox/lms/quiz/exam-midterm').ok, true);
    for (const preset of sandbox.offered) assert.ok(preset.sources.length > 0, `${preset.id} names its sources`);
  });
});

describe('security presets', () => {
  for (const preset of SECURITY_PRESETS) {
    it(`${preset.label}: all 30 settings, valid under the contract, no rule broken`, () => {
      const { exam_settings } = applySecurityPreset(preset);
      assert.equal(Object.keys(exam_settings).length, 30);
      const result = validateExamSettings(exam_settings);
      assert.ok(result.ok, JSON.stringify(result.ok ? null : result.violations));
      assert.deepEqual(brokenRequirements(exam_settings), []);
      for (const [key, value] of Object.entries(preset.choices)) assert.deepEqual(exam_settings[key as keyof typeof exam_settings], value, key);
    });
  }

  it('Strict lockdown switches on what full-screen removal needs, and says why', () => {
    const strict = SECURITY_PRESETS.find((p) => p.id === 'strict-lockdown');
    assert.ok(strict);
    const { exam_settings, changes } = applySecurityPreset(strict);
    assert.equal(exam_settings.full_screen, 3);
    assert.equal(exam_settings.close_tabs, true);
    assert.equal(exam_settings.one_screen, true);
    assert.equal(exam_settings.tabs, 1);
    assert.ok(changes.some((c) => c.field === 'close_tabs' && c.because === 'full_screen'));
    assert.ok(changes.some((c) => c.field === 'verify_video'));
  });
});
