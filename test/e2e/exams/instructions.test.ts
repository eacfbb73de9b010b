// The instructor's own words to students: saved through the settings API (any language, bounded), recorded in the
// history, shown escaped on the student's start page and in the hub.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Exam } from '../../../src/exams/store.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { launchAs } from '../../helpers/launches.js';
import { openDemoExamSettings, type SettingsInstructor } from '../../helpers/settings-page.js';

const WORDS = 'Bring a pencil & scrap paper <script>alert(1)</script>\nأحضر بطاقة هويتك — 请带上学生证。';
const ESCAPED = 'Bring a pencil &amp; scrap paper &lt;script&gt;alert(1)&lt;/script&gt;\nأحضر بطاقة هويتك — 请带上学生证。';

describe('instructions to students', () => {
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

  const current = async () => {
    const answer = await instructor.agent.get(`/lti/api/exams/${exam.id}/settings`).set('Authorization', `Bearer ${instructor.ltik}`);
    assert.equal(answer.status, 200);
    return answer.body as { settings: object; students: { instructions: string } };
  };
  const save = async (students: unknown) =>
    instructor.agent
      .put(`/lti/api/exams/${exam.id}/settings`)
      .set('Authorization', `Bearer ${instructor.ltik}`)
      .set('x-csrf-token', instructor.csrf)
      .send({ settings: (await current()).settings, students });

  it('saves them as typed (bidi overrides and controls dropped), records the change, shows them escaped to students and in the hub', async () => {
    const saved = await save({ instructions: `  ${WORDS}\u202e\r\n` });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    assert.equal((await current()).students.instructions, WORDS);
    const history = await instructor.agent.get(`/lti/api/exams/${exam.id}/settings/history`).set('Authorization', `Bearer ${instructor.ltik}`);
    assert.ok(
      (history.body.changes as Array<{ changes: Array<{ path: string; after: unknown }> }>).some((entry) => entry.changes.some((change) => change.path === 'students.instructions' && change.after === WORDS)),
      'the change is in the history',
    );

    const start = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'iframe' });
    assert.equal(start.response.status, 200);
    assert.ok(start.response.text.includes(`<p class="start-instructions" dir="auto" data-instructions>${ESCAPED}</p>`), 'escaped, as typed, direction from the text');
    assert.doesNotMatch(start.response.text, /<script>alert/);
    assert.match(start.response.text, /<h2 id="start-instructions">From your instructor<\/h2>/);

    const hub = await launchAs(app, { user: 'instructor', flavor: 'moodle', presentation: 'window' });
    assert.ok(hub.response.text.includes(`data-instructions>Your instructions to students: ${ESCAPED}</p>`), 'the hub shows them escaped');
  });

  it('refuses more than 500 characters, counting characters not bytes, and keeps what was saved', async () => {
    assert.equal((await save({ instructions: '你'.repeat(500) })).status, 200, '500 Chinese characters fit');
    const refused = await save({ instructions: 'a'.repeat(501) });
    assert.equal(refused.status, 422);
    const violation = (refused.body.violations as Array<{ path: string; rule: string; message: string }>).find((v) => v.path === 'students.instructions');
    assert.equal(violation?.rule, 'instructions_too_long');
    assert.match(violation?.message ?? '', /at most 500 characters/);
    assert.equal((await current()).students.instructions, '你'.repeat(500));
  });

  it('empty instructions: no section on the start page, no line in the hub', async () => {
    assert.equal((await save({ instructions: '' })).status, 200);
    const start = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'iframe' });
    assert.doesNotMatch(start.response.text, /data-instructions/);
    const hub = await launchAs(app, { user: 'instructor', flavor: 'moodle', presentation: 'window' });
    assert.doesNotMatch(hub.response.text, /data-instructions/);
  });
});
