// The settings page from the keyboard, on a laptop and a phone: no control Tab reaches hides under the sticky save
// bar, a skip link leads to the save, and after a keyboard save the focus is on what happened.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { assertNoAxeViolations, PAGE_BEST_PRACTICES } from '../../helpers/axe.js';
import { withBrowser } from '../../helpers/browser.js';
import { launchFromCourse } from '../../helpers/demo-course.js';

/** Every Tab stop from the top of the page to the save button, with whether the bar covered it. */
async function tabToSave(page: Page): Promise<{ stops: number; hidden: string[] }> {
  await page.evaluate(() => {
    (document.activeElement as HTMLElement | null)?.blur();
    window.scrollTo(0, 0);
  });
  const hidden: string[] = [];
  for (let stops = 1; stops <= 400; stops += 1) {
    await page.keyboard.press('Tab');
    const step = await page.evaluate(() => {
      const active = document.activeElement as HTMLElement | null;
      const bar = document.getElementById('actions');
      if (!active || !bar || active === document.body) return { id: 'BODY', covered: false };
      const inBar = bar.contains(active);
      const box = active.getBoundingClientRect();
      const barTop = bar.getBoundingClientRect().top;
      const id = active.id || active.getAttribute('data-preset') || active.tagName;
      return { id: `${id} (${Math.round(box.top)}–${Math.round(box.bottom)}, bar at ${Math.round(barTop)})`.replace(/ \(.*/, ''), detail: `${id} (${Math.round(box.top)}–${Math.round(box.bottom)}, bar at ${Math.round(barTop)})`, covered: !inBar && box.bottom > barTop + 1 };
    });
    if (step.covered) hidden.push(step.detail ?? step.id);
    if (step.id === 'save') return { stops, hidden };
  }
  throw new Error('Tab never reached the save button');
}

describe('in a browser: the settings page from the keyboard', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
    app.tool.sandbox!.demoLms.course.links.push({ id: 'exam-keys', title: 'Keys exam' });
  });
  after(async () => {
    await app.close();
  });

  it('at 1,280 and 390 px: nothing Tab reaches is under the save bar; the skip link reaches Save; a keyboard save focuses its outcome', async (t) => {
    await withBrowser(t, async (context) => {
      const page = await launchFromCourse(context, { baseUrl: app.baseUrl, button: 'resource:instructor:exam-keys' });
      await page.waitForURL(/\/lti\/exams\/[0-9a-f-]+\/settings/, { timeout: 20_000 });
      await page.locator('#settings-form').waitFor();
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 800 });
        const { stops, hidden } = await tabToSave(page);
        assert.ok(stops > 20, `a long walk at ${width} px (${stops} stops)`);
        assert.deepEqual(hidden, [], `at ${width} px, stops under the save bar`);
        await assertNoAxeViolations(page, `the settings page at ${width} px`, { bestPractices: PAGE_BEST_PRACTICES });
      }

      // The stop after "Skip to the settings" is "Skip to Save": Enter, then Tab, and the focus is on the save button.
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.locator('a.skip-link[href="#main"]').focus();
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('href')), '#actions');
      await page.keyboard.press('Enter');
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'save', 'Skip to Save, Enter and Tab: on Save');

      // A save from the keyboard: the focus is on the message saying it was saved (not dropped to the page).
      await page.getByLabel('The quiz is in').selectOption('moodle');
      await page.getByLabel('Quiz address').fill('https://moodle.example.edu/mod/quiz/view.php?id=77');
      await page.getByRole('button', { name: 'Fill in the pages' }).click();
      await page.waitForFunction(() => (document.getElementById('f-launch_url') as HTMLInputElement).value.includes('id=77'));
      await page.locator('#save').focus();
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => /Saved/.test(document.getElementById('save-status')?.textContent ?? ''));
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'save-status', 'the focus is on the outcome');
    });
  });
});
