import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createExamStore, type Exam, type ExamKey } from '../../../src/exams/store.js';
import { describeChange } from '../../../src/exams/settings/history.js';
import { SETTINGS_DOCUMENT_VERSION } from '../../../src/exams/settings/versions.js';
import { EXAM_SETTINGS_OFF, POST_MESSAGE_NOTIFICATION } from '../../../src/proctoring/contract.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { openDemoExamSettings, type SettingsInstructor } from '../../helpers/settings-page.js';

const MOODLE_QUIZ = 'https://moodle.example.edu/mod/quiz/view.php?id=42';
const MOODLE_PAGES = {
  launch_url: MOODLE_QUIZ,
  exam_start: '^https://moodle\\.example\\.edu/mod/quiz/(view|startattempt)\\.php.*',
  exam_take: '^https://moodle\\.example\\.edu/mod/quiz/(attempt|summary|processattempt|startattempt)\\.php.*',
  exam_end: '^https://moodle\\.example\\.edu/mod/quiz/review\\.php.*',
};

describe('the change history in words', () => {
  const cases: Array<[path: string, before: unknown, after: unknown, expected: string]> = [
    ['exam_settings.record_video', false, true, 'Record video: off → on'],
    ['exam_settings.record_desk', 0, 2, 'Desk scan: Off → At start only'],
    ['break_settings.duration', 10, 15, 'Break duration (minutes): 10 → 15'],
    ['break_settings', null, null, 'Breaks: not set → not set'],
    ['break_settings.on_time_exceeded', null, 1, 'When break time is exceeded: not set → Candidate is removed'],
    ['proctor_settings.kickout_allowed', null, false, "Proctor may remove a candidate: the institution's default → no"],
    ['behavior_settings.frame_metrics.keystrokes', null, 4, 'Weight: keystrokes: not set → 4'],
    ['exam_settings.allowed_macos_apps', [], ['com.apple.calculator'], 'Allowed macOS apps: none → com.apple.calculator'],
    ['expire', null, 3600, 'Link validity: not set → 1 hour'],
    ['status', 'closed', 'open', 'Availability: closed → open'],
    ['tool.security_preset', null, 'standard', 'Security preset: not set → Standard'],
    ['quiz_address_check', true, false, 'Quiz address to be checked: on → off'],
    ['exam_end', '^https://lms\\.example/review.*', POST_MESSAGE_NOTIFICATION, 'Exam end page pattern: ^https://lms\\.example/review.* → signalled by the quiz itself'],
  ];
  for (const [path, from, to, expected] of cases) {
    it(`${path}: ${expected}`, () => {
      const described = describeChange({ path, before: from, after: to });
      assert.equal(`${described.label}: ${described.before} → ${described.after}`, expected);
      assert.doesNotMatch(described.label, /\b[a-z]+_[a-z_]+\b/, 'a label in words, not an API member name');
    });
  }
});

describe('exam settings page: recent changes and presets', () => {
  let app: TestApp;
  let exam: Exam;
  let key: ExamKey;
  let instructor: SettingsInstructor;

  before(async () => {
    app = await startTestApp();
    ({ exam, key, instructor } = await openDemoExamSettings(app));
  });
  after(async () => {
    await app.close();
  });

  const settingsPage = (examId: string) => instructor.agent.post(`/lti/exams/${examId}/settings`).type('form').send({ ltik: instructor.ltik });
  const selectedPreset = (html: string) => /<select id="f-tool-lms_preset"[\s\S]*?<option value="([^"]+)" selected/.exec(html)?.[1];
  const quizAddress = (html: string) => /id="f-tool-quiz_url" name="tool.quiz_url" value="([^"]*)"/.exec(html)?.[1];

  it('the sandbox demo exam shows its own preset and quiz address, not "Custom"', async () => {
    const page = await settingsPage(exam.id);
    assert.equal(selectedPreset(page.text), 'demo-lms');
    assert.match(quizAddress(page.text) ?? '', /\/sandbox\/lms\/quiz\/exam-midterm$/);
  });

  it('a document that names no preset shows the preset that derives exactly its pages', async () => {
    const other = await createExamStore(app.db).ensure({ ...key, resourceLinkId: 'no-preset-named' }, 'Scripted exam');
    await createExamStore(app.db).saveSettings(other.id, { version: SETTINGS_DOCUMENT_VERSION, ...MOODLE_PAGES, exam_settings: { ...EXAM_SETTINGS_OFF } });
    const page = await settingsPage(other.id);
    assert.equal(selectedPreset(page.text), 'moodle');
    assert.equal(quizAddress(page.text), MOODLE_QUIZ);
  });

  it('a save answers with the recent changes, each field by its label with old and new value; the page shows the same', async () => {
    const current = await instructor.agent.get(`/lti/api/exams/${exam.id}/settings`).set('Authorization', `Bearer ${instructor.ltik}`);
    const settings = current.body.settings as { exam_settings: Record<string, unknown> };
    const next = { ...settings, exam_settings: { ...settings.exam_settings, record_web_traffic: true }, break_settings: { number: 2, duration: 15 } };
    const saved = await instructor.agent
      .put(`/lti/api/exams/${exam.id}/settings`)
      .set('Authorization', `Bearer ${instructor.ltik}`)
      .set('x-csrf-token', instructor.csrf)
      .send({ settings: next, status: 'closed' });
    assert.equal(saved.status, 200, saved.text);
    const latest = saved.body.history[0] as { who: string; changes: Array<{ label: string; before: string; after: string }> };
    assert.equal(latest.who, 'you');
    const lines = latest.changes.map((c) => `${c.label}: ${c.before} → ${c.after}`);
    for (const line of ['Record web traffic: off → on', 'Number of breaks: not set → 2', 'Break duration (minutes): not set → 15', 'Availability: open → closed']) {
      assert.ok(lines.includes(line), `${line} in ${JSON.stringify(lines)}`);
    }
    const page = await settingsPage(exam.id);
    assert.ok(page.text.includes('Break duration (minutes): not set → 15'), 'the page shows the same words');
    const recent = /<section class="settings-section history"[\s\S]*?<\/section>/.exec(page.text)?.[0] ?? '';
    assert.match(recent, /Break duration \(minutes\): not set → 15/);
    assert.doesNotMatch(recent, /settings? changed/);
    assert.doesNotMatch(page.text, /<p id="history-empty">/, '"No changes yet" is hidden');
  });
});
