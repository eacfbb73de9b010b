import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkExamPages } from '../../../src/proctoring/page-check.js';
import { compilePagePattern, MAX_PROGRAM_SIZE, pagePatternProblem, patternMatches, translateToRe2 } from '../../../src/proctoring/patterns.js';
import { LMS_PRESETS } from '../../../src/exams/settings/presets/lms.js';
import { demoLmsPreset } from '../../../src/sandbox/demo-lms/preset.js';

const REDOS = '^https://x\\.example/(a+)+$';

describe('page patterns are evaluated with a linear-time engine', () => {
  // Without the safe engine this never returns (2^60 steps): the test's timeout turns that into a failure.
  it('a nested quantifier against a long near-miss answers at once', { timeout: 5000 }, () => {
    assert.equal(patternMatches(REDOS, `https://x.example/${'a'.repeat(60)}!`), false);
    assert.equal(patternMatches(REDOS, `https://x.example/${'a'.repeat(60)}`), true);
    assert.equal(patternMatches('^(\\w+\\s?)*$', `${'word '.repeat(150)}!`), false);
  });

  // Patterns in the accepted subset, matched against subjects chosen where engines tend to differ:
  // each result must be JavaScript's (the proctoring service reads the patterns as JavaScript).
  const PATTERNS = [
    REDOS,
    'a.b',
    'a\\sb',
    'a\\Sb',
    '[^\\s]+',
    '^[\\s\\S]*$',
    '^a$',
    'x\\by',
    '\\bword\\b',
    '^\\d{3}-\\w+$',
    '^https://lms\\.example\\.edu/quiz/\\d+([?#].*)?$',
    '(view|startattempt)\\.php',
    '[a-c]{2,3}',
    '[-a]',
    '[a-]',
    '[a-z-9]',
    'a]b',
    'a{,2}',
    'a{2',
    '\\/path\\-x',
    '\\x41',
    '\\0',
    '(?:ab)+?$',
    '(?<name>ab)c',
    'é+',
    '^.{3}$',
  ];
  const SUBJECTS = ['a b', 'a\u00a0b', 'a\vb', 'a\rb', 'a\nb', 'a\u2028b', 'aXb', 'a', 'a\n', 'x y', 'word', '123-abc', 'https://lms.example.edu/quiz/42?x=1', 'view.php', 'bcc', '-', '9', 'a]b', 'a{,2}', 'a{2', '/path-x', 'A', '\0', 'abab', 'abc', 'éé', 'a\u00e9b', '', ' \t ', 'aaaaaaa!'];

  for (const pattern of PATTERNS) {
    it(`agrees with JavaScript: /${pattern}/`, () => {
      assert.equal(pagePatternProblem(pattern), undefined, 'the pattern is accepted');
      const js = new RegExp(pattern);
      for (const subject of SUBJECTS) {
        assert.equal(patternMatches(pattern, subject), js.test(subject), `/${pattern}/ against ${JSON.stringify(subject)}`);
      }
    });
  }

  it('the LMS presets produce patterns the tool accepts', () => {
    for (const preset of [...LMS_PRESETS, demoLmsPreset]) {
      const derived = preset.derive(preset.example);
      if (!derived.ok) continue;
      for (const field of ['exam_start', 'exam_take', 'exam_end'] as const) {
        const pattern: string = derived.pages[field];
        if (pattern === '' || pattern === 'post_message_nofication') continue;
        assert.equal(pagePatternProblem(pattern), undefined, `${preset.id} ${field}: ${pattern}`);
      }
    }
  });
});

describe('patterns the safe engine cannot express are refused, naming the construct', () => {
  const REFUSED: Array<[pattern: string, construct: string | undefined, words: RegExp]> = [
    ['(a)\\1', '\\1', /backreference/],
    ['(?<n>a)\\k<n>', '\\k<…>', /named backreference/],
    ['^https://x(?=/quiz)', '(?=', /lookahead/],
    ['^https://x(?!/review)', '(?!', /lookahead/],
    ['(?<=quiz/)\\d+', '(?<=', /lookbehind/],
    ['(?<!review)\\.php', '(?<!', /lookbehind/],
    ['[]a]', '[]', /empty class/],
    ['a[^]b', '[^]', /empty class/],
    ['\\a', '\\a', /plain "a"/],
    ['\\Astart', '\\A', /plain "A"/],
    ['end\\z', '\\z', /plain "z"/],
    ['\\Q.\\E', '\\Q', /plain "Q"/],
    ['\\pL', '\\p', /plain "p"/],
    ['\\x{41}', '\\x', /two hexadecimal digits/],
    ['\\u0041', '\\u', /\\u/],
    ['\\cA', '\\c', /control escape/],
    ['[\\b]', '[\\b]', /backspace/],
    ['[[:alpha:]]', '[:', /POSIX/],
    ['[\\d-z]', '-', /range/],
    ['[a-\\w]', '-\\w', /range/],
    ['a{1001}', '{1001}', /too large/],
    ['(a{100}){100}', undefined, /too complex/],
    ['😀', '😀', /Basic Multilingual Plane/],
  ];
  for (const [pattern, construct, words] of REFUSED) {
    it(`/${pattern}/ → ${construct}`, () => {
      const problem = pagePatternProblem(pattern);
      assert.ok(problem, 'refused');
      assert.equal(problem.construct, construct);
      assert.match(problem.reason, words);
      assert.equal(patternMatches(pattern, 'anything'), undefined);
    });
  }

  it('invalid JavaScript is refused with the engine’s reason', () => {
    assert.match(pagePatternProblem('(unclosed')?.reason ?? '', /must be a valid regular expression \(Unterminated group\)/);
    // RE2 syntax that JavaScript does not accept.
    assert.match(pagePatternProblem('(?i)abc')?.reason ?? '', /must be a valid regular expression/);
    assert.match(pagePatternProblem('(?P<n>a)')?.reason ?? '', /must be a valid regular expression/);
  });

  it('patterns too costly to evaluate are refused', () => {
    assert.match(pagePatternProblem('(.{999})(.{999})(.{999})')?.reason ?? '', /too complex/);
    // Refused from the estimate, before compiling (which would take long for this one).
    assert.match(pagePatternProblem('a{999}'.repeat(160))?.reason ?? '', /too complex/);
    assert.equal(pagePatternProblem('(.{100}){10}'), undefined, `a long but reasonable repetition stays under ${MAX_PROGRAM_SIZE}`);
  });

  it('translates only what engines read differently', () => {
    const re2 = (pattern: string) => {
      const translated = translateToRe2(pattern);
      return translated.ok ? translated.re2 : translated.reason;
    };
    assert.equal(re2('^a\\.b[x.]c$'), '^a\\.b[x.]c$');
    assert.equal(re2('a.b'), 'a[^\\n\\r\\x{2028}\\x{2029}]b');
    assert.equal(re2('a]{2}'), 'a\\]{2}');
    assert.equal(compilePagePattern(REDOS), compilePagePattern(REDOS), 'compiled once');
  });
});

describe('the settings form’s live check', () => {
  it('says whether exam_start matches the launch URL, and names refused constructs per field', () => {
    assert.deepEqual(checkExamPages({ launch_url: 'https://x.example/aaa', exam_start: REDOS, exam_take: 'x', exam_end: 'post_message_nofication' }), {
      problems: {},
      startMatchesLaunch: true,
    });
    assert.deepEqual(checkExamPages({ launch_url: `https://x.example/${'a'.repeat(50)}!`, exam_start: REDOS }), { problems: {}, startMatchesLaunch: false });
    const refused = checkExamPages({ launch_url: 'https://x.example/', exam_start: '(?=x)', exam_take: '(a)\\1', exam_end: '(' });
    assert.equal(refused.startMatchesLaunch, undefined);
    assert.match(refused.problems.exam_start ?? '', /^uses a lookahead `\(\?=`/, "what follows \"This pattern\" (settings:validation.badPattern)");
    assert.match(refused.problems.exam_take ?? '', /backreference/);
    assert.match(refused.problems.exam_end ?? '', /valid regular expression/);
    assert.deepEqual(checkExamPages({ launch_url: 'not a url', exam_start: 'x' }), { problems: {} });
  });
});
