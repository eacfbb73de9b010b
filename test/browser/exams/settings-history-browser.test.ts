import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { withBrowser } from '../../helpers/browser.js';
import { axeViolations, describeViolations } from '../../helpers/axe.js';
import { launchFromCourse } from '../../helpers/demo-course.js';

const QUIZ_URL = 'https://moodle.example.edu/mod/quiz/view.php?id=777';

describe('in a browser: recent changes and security presets on the settings view', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
    app.tool.sandbox!.demoLms.course.links.push({ id: 'exam-history', title: 'History exam' });
  });
  after(async () => {
    await app.close();
  });

  async function openSettings(context: BrowserContext): Promise<Page> {
    const page = await launchFromCourse(context, { baseUrl: app.baseUrl, button: 'resource:instructor:exam-history' });
    await page.waitForURL(/\/lti\/exams\/[0-9a-f-]+\/settings/, { timeout: 20_000 });
    await page.locator('#settings-form').waitFor();
    return page;
  }

  /** The preset's report: its count and the settings it names as changed. */
  async function presetReport(page: Page, label: string): Promise<{ count: number; named: string[] }> {
    await page.waitForFunction((name) => (document.getElementById('preset-status')?.textContent ?? '').startsWith(`“${name}” applied`), label);
    const text = (await page.locator('#preset-status').textContent()) ?? '';
    const match = /applied: (\d+) settings? changed(?:: ([^.]*))?\./.exec(text);
    assert.ok(match, text);
    return { count: Number(match[1]), named: match[2] ? [...match[2].matchAll(/“([^”]+)”/g)].map((m) => m[1]!) : [] };
  }

  it('a preset reports as many settings as it names; a save refreshes "Recent changes" at once; axe finds nothing', async (t) => {
    await withBrowser(t, async (context) => {
      const page = await openSettings(context);
      const pageErrors: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(error.message));
      assert.equal(await page.locator('#history-empty').isVisible(), true, '"No changes yet" before any save');

      await page.getByLabel('The quiz is in').selectOption('moodle');
      await page.getByLabel('Quiz address').fill(QUIZ_URL);
      await page.getByRole('button', { name: 'Fill in the pages' }).click();
      await page.waitForFunction(() => /matches the launch URL/.test(document.getElementById('pages-check')?.textContent ?? ''));

      for (const preset of ['Strict lockdown', 'Record only', 'High stakes with ID check']) {
        await page.getByRole('button', { name: `Use “${preset}”` }).click();
        const report = await presetReport(page, preset);
        assert.ok(report.count > 0, `${preset} changes something`);
        assert.equal(report.named.length, report.count, `${preset}: the count and the list agree (${report.named.join(', ')})`);
      }

      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.waitForFunction(() => /Record video: not set → on/.test(document.getElementById('history-list')?.textContent ?? ''));
      assert.equal(await page.locator('#history-empty').isVisible(), false, '"No changes yet" is gone right after the save');

      await page.getByLabel('Whiteboard').check();
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.waitForFunction(() => /^Whiteboard: off → on$/.test(document.querySelector('#history-list > li li')?.textContent ?? ''));
      assert.equal(await page.locator('#history-list > li').count(), 2);

      const violations = await axeViolations(page);
      assert.deepEqual(violations, [], describeViolations(violations));
      assert.deepEqual(pageErrors, []);
    });
  });
});
