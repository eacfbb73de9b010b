// The demo LMS's language choice reaches the tool as the launch's locale; the demo LMS's course page, the hub it
// opens and the emulator keep axe's WCAG rules and its landmark and scrolling best practices, on a laptop and a phone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { assertNoAxeViolations, axeViolations, horizontalOverflow, PAGE_BEST_PRACTICES } from '../../helpers/axe.js';
import { withBrowser } from '../../helpers/browser.js';
import { launchFromCourse, untilSession } from '../../helpers/demo-course.js';
import { loadCatalog, message } from '../../helpers/catalogs.js';

async function checkAtBothWidths(page: Page, what: string): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await assertNoAxeViolations(page, `${what} at ${width} px`, { bestPractices: PAGE_BEST_PRACTICES });
    assert.ok((await horizontalOverflow(page)) <= 0, `${what} fits ${width} px`);
  }
}

describe('in a browser: the demo LMS launches in any of the seven languages', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app.close();
  });

  it('the course page offers the seven languages, and its flavor badges read at 4.5:1', async (t) => {
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      for (const flavor of ['moodle', 'canvas']) {
        await page.goto(`${app.baseUrl}/sandbox/lms/?flavor=${flavor}`);
        const offered = await page.locator('#launch-locale option').evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value));
        assert.deepEqual(offered, ['en', 'es', 'fr', 'de', 'pt-BR', 'ar', 'zh-Hans']);
        await checkAtBothWidths(page, `the ${flavor}-like course page`);
      }
    });
  });

  it('the accessibility check finds a WCAG violation and a best practice broken in the same pass', async (t) => {
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      await page.setContent('<html lang="en"><title>t</title><nav aria-label="Same"></nav><nav aria-label="Same"></nav><main><input></main></html>');
      const found = (await axeViolations(page, { bestPractices: PAGE_BEST_PRACTICES })).map((violation) => violation.id);
      assert.ok(found.includes('label'), `a WCAG rule: ${found.join(', ')}`);
      assert.ok(found.includes('landmark-unique'), `a best practice: ${found.join(', ')}`);
      assert.deepEqual((await axeViolations(page)).map((violation) => violation.id), ['label'], 'no best practice unless asked');
    });
  });

  for (const [locale, dir] of [
    ['ar', 'rtl'],
    ['zh-Hans', 'ltr'],
  ] as const) {
    it(`"${locale}" chosen on the course page: the instructor's hub opens in it; hub and emulator are axe-clean`, async (t) => {
      await withBrowser(t, async (context) => {
        const hub = await launchFromCourse(context, { baseUrl: app.baseUrl, button: `resource:instructor:${app.tool.sandbox!.demoLms.course.exam.id}`, flavor: 'canvas', locale });
        await hub.locator('[data-results], #attempts-heading').first().waitFor({ timeout: 20_000 });
        assert.equal(await hub.locator('html').getAttribute('lang'), locale);
        assert.equal(await hub.locator('html').getAttribute('dir'), dir);
        assert.equal((await hub.locator('.hub-kicker').first().textContent())?.trim(), message(loadCatalog(locale, 'hub'), 'kicker'));
        await checkAtBothWidths(hub, `the hub in ${locale}`);

        const student = await launchFromCourse(context, { baseUrl: app.baseUrl, button: `resource:student:${app.tool.sandbox!.demoLms.course.exam.id}`, flavor: 'canvas', locale });
        await untilSession(student);
        await checkAtBothWidths(student, 'the emulator');
      });
    });
  }
});
