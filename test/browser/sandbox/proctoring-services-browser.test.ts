import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { withBrowser } from '../../helpers/browser.js';
import { launchFromCourse, untilSession } from '../../helpers/demo-course.js';

/**
 * The whole LTI Proctoring Services flow in a browser: the demo LMS's Learn Ultra-like flavour starts the exam
 * with LtiStartProctoring, the emulator's launch URL is the tool's hand-off page, whose LtiStartAssessment the
 * demo LMS verifies before its quiz opens, and submitting the quiz ends the attempt with LtiEndAssessment.
 */
describe('in a browser: LTI Proctoring Services through the demo LMS', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app.close();
  });

  it('start → proctoring checks → LtiStartAssessment → quiz → LtiEndAssessment → back in the course', async (t) => {
    await withBrowser(t, async (context) => {
      const target = await launchFromCourse(context, { baseUrl: app.baseUrl, button: /as a student/i, flavor: 'ultra' });
      await untilSession(target);
      const request = JSON.parse((await target.locator('#request').textContent()) ?? '{}') as Record<string, unknown>;
      assert.match(String(request.launch_url), /\/proctoring\/start-assessment\//);

      // The proctoring service's checks passed: on to launch_url, which returns the student to the LMS.
      await target.locator('#launch-url').click();
      await target.waitForURL(/\/sandbox\/lms\/quiz\/[^/]+\/attempt\?attempt=/, { timeout: 20_000 });
      await target.locator('[data-proctored-attempt]').waitFor();

      await target.getByRole('button', { name: /submit all and finish/i }).click();
      await target.waitForURL(/\/sandbox\/lms\/\?.*from=tool/, { timeout: 20_000 });
      const attempt = await app.db.query<{ status: string }>('SELECT status FROM attempts WHERE id = $1', [String(request.attempt_id)]);
      assert.equal(attempt.rows[0]?.status, 'submitted');
    });
  });
});
