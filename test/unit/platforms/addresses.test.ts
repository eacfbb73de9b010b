// The LMS addresses of an exam after its LMS changed address: quiz addresses and page patterns naming the old
// site name the new one; a third site, or a spelling that cannot be rewritten safely, needs a look.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressFieldsOf, namesHost, rewriteAddress, rewriteExamAddresses, rewritePattern, siteOf, type Site } from '../../../src/platforms/addresses.js';
import { patternMatches } from '../../../src/proctoring/patterns.js';
import { LMS_PRESETS } from '../../../src/exams/settings/presets/lms.js';

const site = (issuer: string): Site => {
  const found = siteOf(issuer);
  assert.ok(found, issuer);
  return found;
};
const OLD = site('http://moodle.old.example.edu');
const NEW = site('https://lms.new.example.edu');

describe('platform move: rewriting LMS addresses', () => {
  it('reads a site from an issuer: scheme, host name, explicit port only', () => {
    assert.deepEqual(siteOf('https://Moodle.Example.edu/moodle'), { scheme: 'https', hostname: 'moodle.example.edu', port: '' });
    assert.deepEqual(siteOf('http://127.0.0.1:8080'), { scheme: 'http', hostname: '127.0.0.1', port: '8080' });
    assert.deepEqual(siteOf('https://lms.example.edu:443/x'), { scheme: 'https', hostname: 'lms.example.edu', port: '' });
    assert.equal(siteOf('canvas'), undefined);
    assert.equal(siteOf('https://user:pw@lms.example.edu'), undefined);
  });

  it('rewrites an address on the old host (either scheme), keeping its path and query', () => {
    assert.equal(rewriteAddress('http://moodle.old.example.edu/mod/quiz/view.php?id=42', OLD, NEW), 'https://lms.new.example.edu/mod/quiz/view.php?id=42');
    assert.equal(rewriteAddress('https://MOODLE.old.example.edu/moodle/mod/quiz/view.php?id=1#x', OLD, NEW), 'https://lms.new.example.edu/moodle/mod/quiz/view.php?id=1#x');
    assert.equal(rewriteAddress('http://moodle.old.example.edu.au/mod/quiz/view.php?id=42', OLD, NEW), undefined);
    assert.equal(rewriteAddress('http://moodle.old.example.edu:8080/mod/quiz/view.php?id=42', OLD, NEW), undefined, 'another port is another site');
    assert.equal(rewriteAddress('http://other.example.edu/?u=http://moodle.old.example.edu', OLD, NEW), undefined);
  });

  it("rewrites the escaped host of the presets' patterns, and the literal scheme with it", () => {
    const preset = LMS_PRESETS.find((p) => p.id === 'moodle');
    assert.ok(preset);
    const derived = preset.derive('http://moodle.old.example.edu/mod/quiz/view.php?id=42');
    assert.ok(derived.ok);
    const moved = preset.derive('https://lms.new.example.edu/mod/quiz/view.php?id=42');
    assert.ok(moved.ok);
    for (const field of ['exam_start', 'exam_take', 'exam_end'] as const) {
      assert.equal(rewritePattern(derived.pages[field], OLD, NEW), moved.pages[field], field);
    }
  });

  const patterns: Array<[string, string | undefined]> = [
    [String.raw`^http://moodle\.old\.example\.edu/mod/quiz/.*`, String.raw`^https://lms\.new\.example\.edu/mod/quiz/.*`],
    [String.raw`^https?://moodle\.old\.example\.edu/mod/quiz/.*`, String.raw`^https?://lms\.new\.example\.edu/mod/quiz/.*`],
    [String.raw`^https:\/\/moodle\.old\.example\.edu\/mod`, String.raw`^https:\/\/lms\.new\.example\.edu\/mod`],
    ['^http://moodle.old.example.edu/mod/quiz/.*', String.raw`^https://lms\.new\.example\.edu/mod/quiz/.*`],
    [String.raw`.*//moodle\.old\.example\.edu(/|$)`, String.raw`.*//lms\.new\.example\.edu(/|$)`],
    [String.raw`^(http://moodle\.old\.example\.edu|https://x\.example)/a`, String.raw`^(https://lms\.new\.example\.edu|https://x\.example)/a`],
    [String.raw`^HTTP://MOODLE\.OLD\.EXAMPLE\.EDU/`, String.raw`^https://lms\.new\.example\.edu/`],
    [String.raw`^https://moodle\.old\.example\.edu\.au/`, undefined],
    [String.raw`^https://moodle\.old\.example\.education/`, undefined],
    [String.raw`^https://www\.moodle\.old\.example\.edu/`, undefined],
    [String.raw`^https://other\.example\.edu/`, undefined],
  ];
  for (const [pattern, expected] of patterns) {
    it(`pattern ${pattern} → ${expected ?? 'unchanged'}`, () => {
      assert.equal(rewritePattern(pattern, OLD, NEW), expected);
    });
  }

  it('the rewritten pattern matches the rewritten address exactly where the original matched the original', () => {
    const pattern = String.raw`^http://moodle\.old\.example\.edu/mod/quiz/(view|startattempt)\.php.*`;
    const rewritten = rewritePattern(pattern, OLD, NEW);
    assert.ok(rewritten);
    for (const path of ['/mod/quiz/view.php?id=1', '/mod/quiz/startattempt.php', '/mod/quiz/review.php']) {
      assert.equal(patternMatches(rewritten, `https://lms.new.example.edu${path}`), patternMatches(pattern, `http://moodle.old.example.edu${path}`), path);
    }
    assert.equal(patternMatches(rewritten, 'http://moodle.old.example.edu/mod/quiz/view.php'), false);
    assert.equal(patternMatches(rewritten, 'https://lmsxnew.example.edu/mod/quiz/view.php'), false, 'the new host is escaped');
  });

  it('knows whether a text still names the old host', () => {
    assert.equal(namesHost(String.raw`^(?:foo|moodle\.old\.example\.edu)/`, OLD), true);
    assert.equal(namesHost(String.raw`^https://lms\.new\.example\.edu/`, OLD), false);
    assert.equal(namesHost(String.raw`^https://www\.moodle\.old\.example\.edu/`, OLD), false);
  });

  it('rewrites an exam: every field, listed', () => {
    const fields = {
      launch_url: 'http://moodle.old.example.edu/mod/quiz/view.php?id=42',
      'tool.quiz_url': 'http://moodle.old.example.edu/mod/quiz/view.php?id=42',
      exam_start: String.raw`^http://moodle\.old\.example\.edu/mod/quiz/view\.php.*`,
      exam_take: 'post_message_nofication',
      exam_end: String.raw`^http://moodle\.old\.example\.edu/mod/quiz/review\.php.*`,
    };
    const outcome = rewriteExamAddresses(fields, OLD, NEW);
    assert.equal(outcome.kind, 'rewritten');
    assert.deepEqual(
      outcome.kind === 'rewritten' ? outcome.rewrites.map((r) => [r.field, r.after]) : [],
      [
        ['launch_url', 'https://lms.new.example.edu/mod/quiz/view.php?id=42'],
        ['tool.quiz_url', 'https://lms.new.example.edu/mod/quiz/view.php?id=42'],
        ['exam_start', String.raw`^https://lms\.new\.example\.edu/mod/quiz/view\.php.*`],
        ['exam_end', String.raw`^https://lms\.new\.example\.edu/mod/quiz/review\.php.*`],
      ],
    );
  });

  it('an exam on a third host needs a look and keeps its addresses', () => {
    const outcome = rewriteExamAddresses({ launch_url: 'https://quizzes.elsewhere.example/q/1', exam_start: String.raw`^http://moodle\.old\.example\.edu/.*` }, OLD, NEW);
    assert.deepEqual(outcome, { kind: 'needs-look', address: 'https://quizzes.elsewhere.example/q/1' });
  });

  it('a pattern naming the old host in a way it cannot rewrite: the exam needs a look', () => {
    const outcome = rewriteExamAddresses({ launch_url: 'http://moodle.old.example.edu/q', exam_start: String.raw`^http://(?:moodle\.old\.example\.edu)/q` }, OLD, NEW);
    assert.deepEqual(outcome, { kind: 'needs-look', field: 'exam_start' });
  });

  it('an exam already on the new host, or without addresses, is unchanged; so is a move within one site', () => {
    assert.deepEqual(rewriteExamAddresses({ launch_url: 'https://lms.new.example.edu/q', exam_start: String.raw`^https://lms\.new\.example\.edu/q` }, OLD, NEW), { kind: 'unchanged' });
    assert.deepEqual(rewriteExamAddresses({}, OLD, NEW), { kind: 'unchanged' });
    assert.deepEqual(rewriteExamAddresses({ launch_url: 'http://moodle.old.example.edu/q' }, OLD, OLD), { kind: 'unchanged' });
  });

  it('http → https of the same host: the scheme changes, `https?` stays', () => {
    const https = site('https://moodle.old.example.edu');
    const outcome = rewriteExamAddresses({ launch_url: 'http://moodle.old.example.edu/q', exam_start: String.raw`^https?://moodle\.old\.example\.edu/q`, exam_end: String.raw`^http://moodle\.old\.example\.edu/r` }, OLD, https);
    assert.equal(outcome.kind, 'rewritten');
    assert.deepEqual(
      outcome.kind === 'rewritten' ? outcome.rewrites.map((r) => [r.field, r.after]) : [],
      [
        ['launch_url', 'https://moodle.old.example.edu/q'],
        ['exam_end', String.raw`^https://moodle\.old\.example\.edu/r`],
      ],
    );
  });

  it('reads the fields of a stored document, whatever else it holds', () => {
    assert.deepEqual(addressFieldsOf({ launch_url: 'a', exam_start: 'b', tool: { quiz_url: 'c', redirect: 'lms' }, exam_take: 3 }), { launch_url: 'a', exam_start: 'b', 'tool.quiz_url': 'c' });
    assert.deepEqual(addressFieldsOf(null), {});
  });
});
