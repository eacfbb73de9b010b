import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { withBrowser } from '../helpers/browser.js';
import type { Page } from 'playwright-core';

const EMULATOR_SESSION = /\/sandbox\/proctoring\/session\//;

/**
 * A framed launch ends on the tool's start page inside the LMS's frame, whose link moves the whole window;
 * a launch in a window of its own goes straight to the emulator. Either way the window ends on the emulator.
 */
async function followToEmulator(target: Page, startLink: RegExp): Promise<void> {
  const link = target.frameLocator('iframe').getByRole('link', { name: startLink });
  const reached = await Promise.any([
    target.waitForURL(EMULATOR_SESSION, { timeout: 20_000 }).then(() => 'emulator' as const),
    link.waitFor({ timeout: 20_000 }).then(() => 'start page' as const),
  ]);
  if (reached === 'start page') await link.click();
  await target.waitForURL(EMULATOR_SESSION, { timeout: 20_000 });
}

describe('in a browser: the demo LMS launches into the proctoring emulator', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app.close();
  });

  it('clicking "Open the exam as a student" runs the real OIDC flow and ends on the emulator page', async (t) => {
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      await page.goto(`${app.baseUrl}/sandbox/lms/`);
      const button = page.getByRole('button', { name: /as a student/i }).first();
      const popupPromise = context.waitForEvent('page', { timeout: 5000 }).catch(() => undefined);
      await button.click();
      const popup = await popupPromise;
      const target = popup ?? page;
      await followToEmulator(target, /start the proctored exam/i);
      const request = await target.locator('#request').textContent();
      assert.ok(request);
      const sent = JSON.parse(request) as Record<string, unknown>;
      assert.ok(sent.launch_url && sent.exam_settings && sent.user_id);
    });
  });

  it('clicking "… as an instructor" opens the hub, whose "Open review center" ends on the reviewer page', async (t) => {
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      await page.goto(`${app.baseUrl}/sandbox/lms/`);
      const popupPromise = context.waitForEvent('page', { timeout: 5000 }).catch(() => undefined);
      await page.getByRole('button', { name: /as an instructor/i }).first().click();
      const opened = (await popupPromise) ?? page;
      // The hub may be inside the demo LMS's frame (embedded launch) or the page itself.
      const name = /open review center/i;
      const inFrame = opened.frameLocator('iframe').getByRole('button', { name });
      const onPage = opened.getByRole('button', { name });
      const where = await Promise.any([inFrame.waitFor({ timeout: 20_000 }).then(() => inFrame), onPage.waitFor({ timeout: 20_000 }).then(() => onPage)]);
      await where.click();
      const target = opened;
      await followToEmulator(target, /open the review center/i);
      assert.match((await target.content()).toLowerCase(), /review/);
    });
  });
});
