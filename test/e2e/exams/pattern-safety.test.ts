import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import supertest from 'supertest';
import type { Exam } from '../../../src/exams/store.js';
import { EXAM_SETTINGS_OFF } from '../../../src/proctoring/contract.js';
import { patternMatches } from '../../../src/proctoring/patterns.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { launch } from '../../helpers/lti-flow.js';
import { openDemoExamSettings, type SettingsInstructor } from '../../helpers/settings-page.js';

/** A nested quantifier: a backtracking engine needs 2^n steps to refuse n repeated characters (30: over ten seconds). */
const REDOS = '^https://x\\.example/(a+)+$';
const NEAR_MISS_URL = `https://x.example/${'a'.repeat(30)}!`;

describe('instructors’ page patterns cannot stall the server', () => {
  let app: TestApp;
  let exam: Exam;
  let instructor: SettingsInstructor;

  before(async () => {
    app = await startTestApp();
    ({ exam, instructor } = await openDemoExamSettings(app));
  });
  after(async () => {
    await app.close();
  });

  const save = (settings: Record<string, unknown>) =>
    instructor.agent
      .put(`/lti/api/exams/${exam.id}/settings`)
      .set('Authorization', `Bearer ${instructor.ltik}`)
      .set('x-csrf-token', instructor.csrf)
      .set('Accept', 'application/json')
      .send({ settings: { exam_take: '^https://x\\.example/.*', exam_end: '^https://x\\.example/end', exam_settings: EXAM_SETTINGS_OFF, ...settings } });

  // With a backtracking engine on the main thread this save blocks the process, /healthz included. The
  // bound is no speed target: it only tells "answered" from "frozen for many seconds".
  it('a catastrophic pattern is refused at once and /healthz answers meanwhile', { timeout: 120_000 }, async () => {
    patternMatches(REDOS, 'warm-up: the engine loads its tables on first use');
    const delay = monitorEventLoopDelay({ resolution: 20 });
    delay.enable();
    const [saved, health] = await Promise.all([save({ launch_url: NEAR_MISS_URL, exam_start: REDOS }), supertest(app.baseUrl).get('/healthz')]);
    delay.disable();
    assert.ok(delay.max / 1e6 < 3000, `the event loop was blocked for ${Math.round(delay.max / 1e6)} ms`);
    assert.equal(health.status, 200);
    assert.equal(saved.status, 422, saved.text);
    const violations = saved.body.violations as Array<{ path: string; rule: string }>;
    assert.deepEqual(violations.map((v) => `${v.path} ${v.rule}`), ['exam_start exam_start_must_match_launch_url']);
    // The same pattern that matches is saved: nested quantifiers are fine with a linear-time engine.
    const matching = await save({ launch_url: `https://x.example/${'a'.repeat(30)}`, exam_start: REDOS });
    assert.equal(matching.status, 200, matching.text);
  });

  it('a pattern the safe engine cannot express is refused, naming the construct', async () => {
    const response = await save({ launch_url: 'https://x.example/quiz', exam_start: '^https://x\\.example/(?=quiz)', exam_end: '(a)\\1' });
    assert.equal(response.status, 422, response.text);
    const violations = response.body.violations as Array<{ path: string; rule: string; message: string }>;
    const start = violations.find((v) => v.path === 'exam_start');
    assert.equal(start?.rule, 'regex');
    assert.match(start?.message ?? '', /^'Exam start page pattern' uses a lookahead `\(\?=`/);
    assert.match(violations.find((v) => v.path === 'exam_end')?.message ?? '', /backreference `\\1`/);
  });

  it('the form’s live check runs on the server, answers for a catastrophic pattern, and needs an instructor', async () => {
    const check = (query: Record<string, string>, ltik = instructor.ltik) =>
      instructor.agent.get('/lti/api/exam-pages/check').query(query).set('Authorization', `Bearer ${ltik}`).set('Accept', 'application/json');
    const missed = await check({ launch_url: NEAR_MISS_URL, exam_start: REDOS, exam_take: '[[:alpha:]]', exam_end: 'post_message_nofication' });
    assert.equal(missed.status, 200);
    assert.equal(missed.body.startMatchesLaunch, false);
    assert.match(missed.body.problems.exam_take, /POSIX/);
    assert.equal(missed.body.problems.exam_end, undefined);
    const matched = await check({ launch_url: 'https://x.example/aaa', exam_start: REDOS });
    assert.deepEqual(matched.body, { problems: {}, startMatchesLaunch: true });

    // A course-level launch (the exam list) keeps a session; a redirected exam launch keeps none.
    const student = await launch(app, { user: 'student', flavor: 'moodle', kind: 'course', presentation: 'window' });
    const refused = await student.auth.agent.get('/lti/api/exam-pages/check').query({ exam_start: 'x' }).set('Authorization', `Bearer ${student.ltik}`);
    assert.equal(refused.status, 403);
  });
});
