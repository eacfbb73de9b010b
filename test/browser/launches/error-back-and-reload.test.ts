// An error page answered to a POST (a hub button whose proctoring call failed): the browser's reload and Back show it
// again without sending the form again ("Confirm Form Resubmission"), and no URL carries the session token.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { withBrowser } from '../../helpers/browser.js';
import { launchFromCourse } from '../../helpers/demo-course.js';
import { axeViolations, describeViolations } from '../../helpers/axe.js';
import { emulator } from '../../helpers/launches.js';

const HUB = /^\/lti\/hub\/[0-9a-f-]+$/;
const ERROR_TITLE = /could not be reached|could not be started|not available|unavailable/i;

describe('in a browser: Back and reload of an error page answered to a POST', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ PROCTORING_TIMEOUT_MS: '800' });
  });
  after(async () => {
    await app.close();
  });

  /** The error page's heading, once the page shows one (the tool's page, not the browser's). */
  async function heading(page: Page, what: string): Promise<string> {
    await page.locator('h1').first().waitFor({ timeout: 20_000 }).catch(async (error: unknown) => {
      throw new Error(`${what}: no page; at ${page.url()}\n${(await page.content()).slice(0, 2000)}`, { cause: error });
    });
    await page.waitForFunction(() => !document.querySelector('[data-error-shell]'), undefined, { timeout: 20_000 });
    return (await page.locator('h1').first().textContent()) ?? '';
  }

  it('an error after "Open review center": reload and Back/Forward show it again, nothing is posted again, "Try again" still works', async (t) => {
    await withBrowser(t, async (context) => {
      const posted: string[] = [];
      const urls: string[] = [];
      context.on('request', (request) => {
        urls.push(request.url());
        if (request.method() === 'POST') posted.push(new URL(request.url()).pathname);
      });
      const page = await launchFromCourse(context, { baseUrl: app.baseUrl, button: `resource:instructor:${app.tool.sandbox!.demoLms.course.exam.id}` });
      await page.locator('[data-results]').waitFor({ timeout: 20_000 });
      assert.match(new URL(page.url()).pathname, HUB);
      const ltik = await page.locator('input[name="ltik"]').first().inputValue();

      emulator(app).faults.inject({ kind: 'status', status: 503, times: 1000 });
      await page.getByRole('button', { name: 'Open review center' }).click();
      const title = await heading(page, 'the error page');
      assert.match(title, ERROR_TITLE);
      const incident = (await page.locator('.incident code').textContent()) ?? '';
      assert.ok(incident.length > 10, 'an incident id');
      const reviewPosts = () => posted.filter((path) => path.endsWith('/review')).length;
      assert.equal(reviewPosts(), 1);

      await page.reload();
      assert.equal(await heading(page, 'the error page reloaded'), title, 'the same page after reload');
      assert.equal((await page.locator('.incident code').textContent()) ?? '', incident, 'the same incident, not a new one');
      assert.equal(reviewPosts(), 1, 'reload posted nothing again');
      const violations = await axeViolations(page);
      assert.deepEqual(violations, [], describeViolations(violations));

      await page.goBack();
      await page.locator('[data-results]').waitFor({ timeout: 20_000 });
      assert.match(new URL(page.url()).pathname, HUB, 'Back: the hub');
      await page.goForward();
      assert.equal(await heading(page, 'Forward: the error page'), title);
      assert.equal(reviewPosts(), 1, 'Forward posted nothing again');

      // "Try again" is the one way to send it again, on purpose; it succeeds once the service answers.
      emulator(app).faults.clear();
      await page.getByRole('button', { name: 'Try again' }).click();
      await page.waitForURL((url) => !url.pathname.startsWith('/lti/'), { timeout: 20_000 });
      assert.equal(reviewPosts(), 2);
      await page.goBack();
      assert.equal(await heading(page, 'Back from the review center: the error page'), title);
      assert.equal(reviewPosts(), 2, 'Back posted nothing again');

      // The error's address in a fresh tab (no history entry holding the page) says what to do.
      const fresh = await context.newPage();
      await fresh.goto(`${app.baseUrl}/lti/error`);
      await fresh.locator('[data-error-lost]').waitFor({ state: 'visible' });

      const leaks = urls.filter((url) => url.includes(ltik) || /[?&]ltik=/.test(url));
      assert.deepEqual(leaks, [], 'no URL carries the session token');
    });
  });
});
