import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { withBrowser } from '../helpers/browser.js';

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
      await target.waitForURL(/\/sandbox\/proctoring\/session\//, { timeout: 20_000 });
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
      await target.waitForURL(/\/sandbox\/proctoring\/session\//, { timeout: 20_000 });
      assert.match((await target.content()).toLowerCase(), /review/);
    });
  });
});
