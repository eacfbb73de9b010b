// In Chromium: the settings page takes the link's validity in minutes, stores seconds as the Launch API has them,
// refuses what is no whole number of minutes in minutes' words, and keeps a stored value that is no whole number
// of minutes exactly as it is until the instructor changes it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { createExamStore } from '../../../src/exams/store.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { withBrowser } from '../../helpers/browser.js';
import { axeViolations, describeViolations } from '../../helpers/axe.js';
import { launchFromCourse } from '../../helpers/demo-course.js';

const QUIZ_URL = 'https://moodle.example.edu/mod/quiz/view.php?id=4711';
const LABEL = 'Link validity (minutes)';

describe('in a browser: link validity in minutes on the settings page', () => {
  let app: TestApp;
  let links = 0;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app.close();
  });

  /** A new exam link of the demo course, set up from the settings page; the page and the exam's id. */
  async function newExam(context: BrowserContext): Promise<{ page: Page; examId: string }> {
    links += 1;
    const id = `exam-validity-${links}`;
    app.tool.sandbox!.demoLms.course.links.push({ id, title: `Validity exam ${links}` });
    const page = await launchFromCourse(context, { baseUrl: app.baseUrl, button: `resource:instructor:${id}` });
    await page.waitForURL(/\/lti\/exams\/[0-9a-f-]+\/settings/, { timeout: 20_000 });
    const examId = /\/lti\/exams\/([0-9a-f-]+)\/settings/.exec(page.url())![1]!;
    await page.getByLabel('The quiz is in').selectOption('moodle');
    await page.getByLabel('Quiz address').fill(QUIZ_URL);
    await page.getByRole('button', { name: 'Fill in the pages' }).click();
    await page.waitForFunction(() => /matches the launch URL/.test(document.getElementById('pages-check')?.textContent ?? ''));
    return { page, examId };
  }

  const storedExpire = async (examId: string) => (await createExamStore(app.db).get(examId))?.settings?.expire;

  async function save(page: Page): Promise<void> {
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.waitForFunction(() => /Saved|Nothing was saved/.test(document.getElementById('save-status')?.textContent ?? ''));
  }

  it('minutes typed are stored as seconds and shown again as minutes; the default and its range are said in minutes and hours', async (t) => {
    await withBrowser(t, async (context) => {
      const { page, examId } = await newExam(context);
      assert.match((await page.locator('#f-expire-help').textContent()) ?? '', /1 to 300 minutes.*5 hours/);
      await page.getByLabel(LABEL).fill('90');
      await save(page);
      assert.match((await page.locator('#save-status').textContent()) ?? '', /Saved/);
      assert.equal(await storedExpire(examId), 5400, 'seconds in the document, as the Launch API takes them');
      await page.reload();
      await page.locator('#settings-form').waitFor();
      assert.equal(await page.getByLabel(LABEL).inputValue(), '90');
      await page.getByLabel(LABEL).fill('');
      await save(page);
      assert.equal(await storedExpire(examId), undefined, 'empty: the service default');
      const violations = await axeViolations(page);
      assert.deepEqual(violations, [], describeViolations(violations));
    });
  });

  it('a fraction of a minute, more than 5 hours, zero and words are refused in minutes\' words, beside the field; nothing is saved', async (t) => {
    await withBrowser(t, async (context) => {
      const { page, examId } = await newExam(context);
      for (const typed of ['1.5', '301', '0', 'five hours']) {
        await page.getByLabel(LABEL).fill(typed);
        await save(page);
        assert.match((await page.locator('#save-status').textContent()) ?? '', /Nothing was saved/, typed);
        const error = (await page.locator('#f-expire-error').textContent()) ?? '';
        assert.match(error, /whole minutes, from 1 to 300/, typed);
        assert.doesNotMatch(error, /second|18000/, `${typed}: no word of seconds`);
        assert.equal(await page.getByLabel(LABEL).getAttribute('aria-invalid'), 'true', typed);
        assert.equal(await page.getByLabel(LABEL).inputValue(), typed, `${typed}: what was typed stays`);
        assert.equal((await createExamStore(app.db).get(examId))?.settings, null, `${typed}: nothing was saved`);
      }
    });
  });

  it('a stored value that is no whole number of minutes is shown, said exactly, and saved unchanged with another change', async (t) => {
    await withBrowser(t, async (context) => {
      const { page, examId } = await newExam(context);
      await save(page);
      // Written by a script through the JSON API, which takes seconds.
      await app.db.query(`UPDATE exams SET settings = jsonb_set(settings, '{expire}', '7205') WHERE id = $1`, [examId]);
      await page.reload();
      await page.locator('#settings-form').waitFor();
      assert.equal(await page.getByLabel(LABEL).inputValue(), '120.08');
      assert.match((await page.locator('#f-expire-note').textContent()) ?? '', /7,205 seconds/);
      await page.getByLabel('Whiteboard').check();
      await save(page);
      assert.match((await page.locator('#save-status').textContent()) ?? '', /Saved/);
      assert.equal(await storedExpire(examId), 7205, 'kept to the second');
      await page.getByLabel(LABEL).fill('120');
      await save(page);
      assert.equal(await storedExpire(examId), 7200, 'changed: whole minutes');
    });
  });
});
