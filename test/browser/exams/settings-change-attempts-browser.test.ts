// In Chromium: saving changed proctoring settings after an attempt ran shows the question with the attempt count;
// "Save anyway" saves, and "Recent changes" says how many attempts ran under the previous settings.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAttemptStore } from '../../../src/exams/attempts.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { withBrowser } from '../../helpers/browser.js';
import { axeViolations, describeViolations } from '../../helpers/axe.js';
import { launchFromCourse } from '../../helpers/demo-course.js';

const QUIZ_URL = 'https://moodle.example.edu/mod/quiz/view.php?id=778';

describe('in a browser: a settings change after attempts asks first', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
    app.tool.sandbox!.demoLms.course.links.push({ id: 'exam-confirm', title: 'Confirm exam' });
  });
  after(async () => {
    await app.close();
  });

  it('the question names the attempts, "Save anyway" saves, the history keeps the count; axe finds nothing', async (t) => {
    await withBrowser(t, async (context) => {
      const page = await launchFromCourse(context, { baseUrl: app.baseUrl, button: 'resource:instructor:exam-confirm' });
      await page.waitForURL(/\/lti\/exams\/[0-9a-f-]+\/settings/, { timeout: 20_000 });
      const examId = /\/lti\/exams\/([0-9a-f-]+)\/settings/.exec(page.url())![1]!;
      await page.getByLabel('The quiz is in').selectOption('moodle');
      await page.getByLabel('Quiz address').fill(QUIZ_URL);
      await page.getByRole('button', { name: 'Fill in the pages' }).click();
      await page.waitForFunction(() => /matches the launch URL/.test(document.getElementById('pages-check')?.textContent ?? ''));
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.waitForFunction(() => (document.getElementById('history-list')?.children.length ?? 0) === 1);

      await createAttemptStore(app.db).startOrResume({ examId, userId: 'a-student', isTest: false });
      await page.getByLabel('Whiteboard').check();
      await page.getByRole('button', { name: 'Save settings' }).click();
      const confirm = page.locator('[data-confirm-attempts]');
      await confirm.waitFor({ timeout: 10_000 });
      assert.match((await page.locator('#confirm-attempts-question').textContent()) ?? '', /^1 attempt ran under the current settings\./);
      assert.equal(await confirm.evaluate((button) => button === document.activeElement), true, 'the question takes the focus');
      assert.equal(await page.locator('#history-list > li').count(), 1, 'nothing saved yet');
      const violations = await axeViolations(page);
      assert.deepEqual(violations, [], describeViolations(violations));

      await confirm.click();
      await page.waitForFunction(() => /^Whiteboard: off → on$/.test(document.querySelector('#history-list > li li')?.textContent ?? ''));
      assert.equal(await page.locator('#history-list > li').first().locator('[data-attempts-before="1"]').textContent(), '1 attempt had run under the previous settings.');
      assert.equal(await page.locator('[data-confirm-attempts]').count(), 0);
    });
  });
});
