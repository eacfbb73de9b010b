// Staff pages answered to POSTs of the session token: the browser's Back and reload open them again (no "Confirm
// Form Resubmission", no error page), the settings page leads back to the hub, and no URL ever carries the token.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { withBrowser } from '../../helpers/browser.js';
import { launchFromCourse } from '../../helpers/demo-course.js';

const STUDENT_NAME = 'María José Núñez';

/** The page shown is the tool's (not the browser's error page for a form it would have to send again), at `path`. */
async function shows(page: Page, selector: string, path: RegExp, what: string): Promise<void> {
  await page.locator(selector).first().waitFor({ timeout: 20_000 }).catch(async (error: unknown) => {
    throw new Error(`${what}: not shown; at ${page.url()}\n${(await page.content()).slice(0, 3000)}`, { cause: error });
  });
  assert.match(new URL(page.url()).pathname, path, what);
}

describe('in a browser: Back and reload on the hub, the settings page and the accommodation editor', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app.close();
  });

  it('hub → settings → reload → back to the hub → Back, Back; an accommodation editor reloaded and left with Back', async (t) => {
    await withBrowser(t, async (context) => {
      const requested: string[] = [];
      context.on('request', (request) => requested.push(request.url()));
      const page = await launchFromCourse(context, { baseUrl: app.baseUrl, button: `resource:instructor:${app.tool.sandbox!.demoLms.course.exam.id}` });
      const HUB = /^\/lti\/hub\/[0-9a-f-]+$/;
      const SETTINGS = /^\/lti\/exams\/[0-9a-f-]+\/settings$/;
      await shows(page, '[data-results]', HUB, 'the hub after the launch');
      const ltik = await page.locator('input[name="ltik"]').first().inputValue();
      assert.ok(ltik.length > 20);

      await page.getByRole('button', { name: 'Edit settings' }).click();
      await shows(page, '#settings-form', SETTINGS, 'the settings page');
      await page.reload();
      await shows(page, '#settings-form', SETTINGS, 'the settings page reloaded');
      await page.getByRole('button', { name: 'Back to the exam' }).click();
      await shows(page, '[data-results]', HUB, 'the hub from the settings page');
      await page.goBack();
      await shows(page, '#settings-form', SETTINGS, 'Back from the hub: the settings page');
      await page.goBack();
      await shows(page, '[data-results]', HUB, 'Back again: the hub');
      await page.reload();
      await shows(page, '[data-results]', HUB, 'the hub reloaded');

      await page.getByLabel('Student', { exact: true }).selectOption({ label: STUDENT_NAME });
      await page.getByRole('button', { name: 'Add or edit an accommodation' }).click();
      const EDITOR = /^\/lti\/hub\/[0-9a-f-]+\/accommodations\/edit$/;
      await shows(page, '[data-accommodation-form]', EDITOR, 'the accommodation editor');
      await page.reload();
      await shows(page, '[data-accommodation-form]', EDITOR, 'the editor reloaded');
      assert.match((await page.locator('h1').textContent()) ?? '', new RegExp(STUDENT_NAME), 'the same student');
      await page.goBack();
      await shows(page, '[data-results]', HUB, 'Back from the editor: the hub');

      // A GET of a staff page in a fresh tab (no history entry holding the session) says what to do.
      const fresh = await context.newPage();
      await fresh.goto(page.url());
      await fresh.locator('[data-session-lost]').waitFor({ state: 'visible' });

      const leaks = requested.filter((url) => url.includes(ltik) || /[?&]ltik=/.test(url));
      assert.deepEqual(leaks, [], 'no URL carries the session token');
    });
  });
});
