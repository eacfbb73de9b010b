// Changing an exam's proctoring settings after attempts ran: the save asks first, naming how many attempts ran
// under the old settings, and the change history records that number.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Exam } from '../../../src/exams/store.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { launchAs, oneCall } from '../../helpers/launches.js';
import { openDemoExamSettings, type SettingsInstructor } from '../../helpers/settings-page.js';

describe('changing settings after attempts exist', () => {
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

  const current = async () =>
    (await instructor.agent.get(`/lti/api/exams/${exam.id}/settings`).set('Authorization', `Bearer ${instructor.ltik}`)).body as {
      settings: { exam_settings: Record<string, unknown> };
      status: string;
    };
  const put = (body: object, confirm?: number) => {
    const request = instructor.agent.put(`/lti/api/exams/${exam.id}/settings`).set('Authorization', `Bearer ${instructor.ltik}`).set('x-csrf-token', instructor.csrf);
    return (confirm === undefined ? request : request.set('x-confirm-attempts', String(confirm))).send(body);
  };

  it('without attempts a change saves at once; after one, the save names the attempt count and saves only once confirmed, and the history keeps the count', async () => {
    const start = await current();
    const recordAudio = start.settings.exam_settings.record_audio === true;
    const withAudio = (on: boolean) => ({ settings: { ...start.settings, exam_settings: { ...start.settings.exam_settings, record_audio: on, verify_audio: on ? start.settings.exam_settings.verify_audio : false } } });
    const noAttempts = await put(withAudio(!recordAudio));
    assert.equal(noAttempts.status, 200, JSON.stringify(noAttempts.body));
    assert.equal(await put(withAudio(recordAudio)).then((r) => r.status), 200);

    await oneCall(app, '/v2/candidate/launch', () => launchAs(app, { user: 'student', flavor: 'canvas', presentation: 'window' }));

    const asked = await put(withAudio(!recordAudio));
    assert.equal(asked.status, 409);
    assert.equal(asked.body.error, 'confirm_attempts');
    assert.equal(asked.body.attempts, 1);
    assert.match(asked.body.confirm, /^1 attempt ran under the current settings\./);
    assert.equal(asked.body.button, 'Save anyway');
    assert.equal((await current()).settings.exam_settings.record_audio, recordAudio, 'nothing saved');

    assert.equal((await put(withAudio(!recordAudio), 2)).status, 409, 'a stale count is asked again');
    const confirmed = await put(withAudio(!recordAudio), 1);
    assert.equal(confirmed.status, 200);
    assert.equal((await current()).settings.exam_settings.record_audio, !recordAudio);
    const latest = (confirmed.body.history as Array<{ attemptsBefore?: number; attemptsNote?: string }>)[0];
    assert.equal(latest?.attemptsBefore, 1);
    assert.equal(latest?.attemptsNote, '1 attempt had run under the previous settings.');
    const history = await instructor.agent.get(`/lti/api/exams/${exam.id}/settings/history`).set('Authorization', `Bearer ${instructor.ltik}`);
    assert.equal((history.body.changes as Array<{ attemptsBefore?: number }>)[0]?.attemptsBefore, 1);

    // Opening or closing the exam changes nothing the proctoring service gets: no question.
    const closed = await put({ settings: (await current()).settings, status: start.status === 'open' ? 'closed' : 'open' });
    assert.equal(closed.status, 200);
  });
});
