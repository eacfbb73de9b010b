// The student's privacy notice in Chromium: a first launch from the demo LMS in a new window shows the start page in
// the student's language (axe clean, no sideways scrolling at 1,280 and 390 px), its button leads to the session, and
// the next launch of the same exam goes straight there.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { assertNoAxeViolations, horizontalOverflow } from '../../helpers/axe.js';
import { withBrowser } from '../../helpers/browser.js';
import { loadCatalog, message } from '../../helpers/catalogs.js';
import { continuePastNotice, launchFromCourse } from '../../helpers/demo-course.js';

describe("the student's privacy notice in a new window (Chromium)", () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app.close();
  });

  it('shows once, in Arabic right to left, axe clean at 1,280 and 390 px; its button opens the session; the next launch goes straight there', async (t) => {
    const ar = loadCatalog('ar', 'student');
    const button = `resource:student:${app.tool.sandbox!.demoLms.course.exam.id}`;
    await withBrowser(t, async (context) => {
      const page = await launchFromCourse(context, { baseUrl: app.baseUrl, button, locale: 'ar' });
      const notice = page.locator('[data-notice-continue]');
      await notice.waitFor({ state: 'visible', timeout: 20_000 });
      assert.equal(await page.locator('html').getAttribute('lang'), 'ar');
      assert.equal(await page.locator('html').getAttribute('dir'), 'rtl');
      assert.equal((await page.locator('[data-notice-once]').textContent())?.trim(), message(ar, 'start.noticeOnce'));
      assert.equal((await page.locator('#start-privacy').textContent())?.trim(), message(ar, 'start.privacyHeading'));
      assert.equal((await page.getByRole('button', { name: message(ar, 'start.button') }).count()), 1, 'one button, named in Arabic');
      assert.doesNotMatch(page.url(), /ltik=/, 'no session token in the address');
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 800 });
        await assertNoAxeViolations(page, `the privacy notice at ${width} px`);
        const overflow = await horizontalOverflow(page);
        assert.ok(overflow <= 0, `the notice at ${width} px scrolls sideways by ${overflow} px`);
      }

      await continuePastNotice(page);
      await page.waitForURL(/\/sandbox\/proctoring\/session\//, { timeout: 20_000 });

      const again = await launchFromCourse(context, { baseUrl: app.baseUrl, button, locale: 'ar' });
      await again.waitForURL(/\/sandbox\/proctoring\/session\//, { timeout: 20_000 });
      assert.equal(await again.locator('[data-notice-continue]').count(), 0, 'no notice the second time');
    });
  });
});
