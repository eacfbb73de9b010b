import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { withBrowser } from '../../helpers/browser.js';
import { continuePastNotice, launchFromCourse } from '../../helpers/demo-course.js';
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

  it('clicking "Open the exam as a student" (new window) runs the real OIDC flow and ends on the emulator page', async (t) => {
    await withBrowser(t, async (context) => {
      const target = await launchFromCourse(context, { baseUrl: app.baseUrl, button: /as a student/i });
      // The student's first launch of the exam: the privacy notice, whose button goes on to the session.
      await continuePastNotice(target);
      await followToEmulator(target, /start the proctored exam/i);
      const request = await target.locator('#request').textContent();
      assert.ok(request);
      const sent = JSON.parse(request) as Record<string, unknown>;
      assert.ok(sent.launch_url && sent.exam_settings && sent.user_id);
    });
  });

  it('clicking "… as an instructor" (embedded) opens the hub in the frame, whose "Open review center" ends on the reviewer page', async (t) => {
    await withBrowser(t, async (context) => {
      // The course page embeds launches by default: the hub opens inside the demo LMS's frame, in no new tab.
      const page = await context.newPage();
      const tabs = context.pages().length;
      await page.goto(`${app.baseUrl}/sandbox/lms/`);
      await page.getByRole('button', { name: /as an instructor/i }).first().click();
      await page.frameLocator('iframe').getByRole('button', { name: /open review center/i }).click({ timeout: 20_000 });
      await followToEmulator(page, /open the review center/i);
      assert.match((await page.content()).toLowerCase(), /review/);
      assert.equal(context.pages().length, tabs, 'the embedded launch opened no tab');
    });
  });
});
