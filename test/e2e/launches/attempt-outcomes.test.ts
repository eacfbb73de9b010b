// The outcome the hub and the CSV give an attempt: one outcome per attempt whatever order its windows end in,
// and an attempt nobody finished ends as "Abandoned" once its proctoring link has expired.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { attemptOf, downloadAttemptsCsv, launchAs, oneCall } from '../../helpers/launches.js';
import { pathOf } from '../../helpers/urls.js';

describe('attempt outcomes in the hub and the CSV', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app.close();
  });

  const studentLaunch = async (user: 'student' | 'test-student' = 'student') =>
    oneCall(app, '/v2/candidate/launch', () => launchAs(app, { user, flavor: 'canvas', presentation: 'window' }));
  const returnUrls = (body: Record<string, unknown>) => body.redirect_settings as { graceful_submission_url: string; ungraceful_submission_url: string };

  async function hubAndCsv(): Promise<{ html: string; csv: Record<string, string>[] }> {
    const hub = await launchAs(app, { user: 'instructor', flavor: 'canvas', presentation: 'window' });
    return { html: hub.response.text, csv: await downloadAttemptsCsv(hub) };
  }

  it('a resumed attempt left in one window and submitted in the other is "Submitted", not "Ended without submitting"', async () => {
    const first = await studentLaunch();
    const attemptId = first.body.attempt_id as string;
    const second = await studentLaunch();
    assert.equal(second.body.attempt_id, attemptId, 'the second window resumes the attempt');

    // The first window is closed by leaving the exam; the second submits it.
    assert.equal((await first.result.agent.get(pathOf(returnUrls(first.body).ungraceful_submission_url))).status, 303);
    assert.equal((await second.result.agent.get(pathOf(returnUrls(second.body).graceful_submission_url))).status, 303);
    assert.equal((await attemptOf(app, attemptId))?.status, 'submitted', 'a submission outranks an earlier ungraceful end');

    // An ungraceful end after the submission changes nothing.
    await first.result.agent.get(pathOf(returnUrls(first.body).ungraceful_submission_url));
    assert.equal((await attemptOf(app, attemptId))?.status, 'submitted');

    const { html, csv } = await hubAndCsv();
    assert.match(html, new RegExp(`data-attempt="${attemptId}" data-outcome="submitted"`));
    assert.equal(csv.find((row) => row['Pseudonymous id'] === (first.body.user_id as string))?.Outcome, 'Submitted');
  });

  it('an attempt whose link expired without an end is "Abandoned" (hub and CSV), the next launch starts a new one, and a late submission still counts', async () => {
    const launched = await studentLaunch('test-student');
    const attemptId = launched.body.attempt_id as string;
    const row = (await app.db.query<{ expires_at: Date | null }>('SELECT expires_at FROM attempts WHERE id = $1', [attemptId])).rows[0];
    assert.ok(row?.expires_at, 'the attempt knows when its proctoring link stops being valid');
    // The service's default candidate link validity (no expire in the exam's settings): 18000 s.
    const validFor = (row.expires_at.getTime() - Date.now()) / 1000;
    assert.ok(validFor > 17_900 && validFor <= 18_000, `valid for ${validFor} s`);

    // Six hours later: the link expired and the student never came back.
    await app.db.query("UPDATE attempts SET started_at = started_at - interval '6 hours', expires_at = expires_at - interval '6 hours' WHERE id = $1", [attemptId]);
    const { html, csv } = await hubAndCsv();
    assert.match(html, new RegExp(`data-attempt="${attemptId}" data-outcome="abandoned"`));
    assert.match(html, />Abandoned</);
    const line = csv.find((r) => r['Pseudonymous id'] === (launched.body.user_id as string));
    assert.equal(line?.Outcome, 'Abandoned');
    assert.notEqual(line?.['Ended (UTC)'], '', 'an abandoned attempt ends when its link expired');
    const stored = await attemptOf(app, attemptId);
    assert.equal(stored?.status, 'abandoned');

    const next = await studentLaunch('test-student');
    assert.notEqual(next.body.attempt_id, attemptId, 'an abandoned attempt is not resumed');

    // The proctoring session may still have been submitted (a long exam): its graceful return wins.
    await launched.result.agent.get(pathOf(returnUrls(launched.body).graceful_submission_url));
    assert.equal((await attemptOf(app, attemptId))?.status, 'submitted');
  });
});
