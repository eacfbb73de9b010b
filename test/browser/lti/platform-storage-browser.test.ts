import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { axeViolations, describeViolations } from '../../helpers/axe.js';
import { withBrowser } from '../../helpers/browser.js';

/**
 * The tool's platform-storage page in Chromium: accessible while it works and when it falls back, and at the
 * top level (no page frames it, so no storage frame exists) it falls back to the cookie path at once.
 */
describe('in a browser: the platform storage page', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app.close();
  });

  /** The page the tool answers a framed login offered storage, as served at a URL of the tool. */
  async function storagePage(): Promise<string> {
    const initiation = await app.tool.sandbox!.demoLms.initiateLogin({ user: 'student', flavor: 'canvas', platformStorage: true });
    const page = await supertest(app.baseUrl).post('/lti/login').set('Sec-Fetch-Dest', 'iframe').type('form').send(initiation.params);
    assert.equal(page.status, 200);
    assert.match(page.text, /data-mode="put"/);
    return page.text;
  }

  it('has no axe violations, working and falling back', async (t) => {
    const html = await storagePage();
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      // Its script stays out, so that both states can be looked at.
      await page.route(`${app.baseUrl}/static/js/platform-storage.js`, (route) => route.fulfill({ status: 200, contentType: 'text/javascript', body: '' }));
      await page.route(`${app.baseUrl}/storage-page`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: html }));
      await page.goto(`${app.baseUrl}/storage-page`);
      await page.getByRole('status').waitFor({ timeout: 10_000 });
      let violations = await axeViolations(page);
      assert.deepEqual(violations, [], describeViolations(violations));
      await page.evaluate(() => {
        document.getElementById('storage-working')!.hidden = true;
        document.getElementById('storage-unavailable')!.hidden = false;
      });
      violations = await axeViolations(page);
      assert.deepEqual(violations, [], describeViolations(violations));
    });
  });

  it('outside a frame it does not wait for a platform: it falls back to the cookie path at once', async (t) => {
    const html = await storagePage();
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      await page.route(`${app.baseUrl}/storage-page`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: html }));
      const fallback = page.waitForRequest((request) => request.url() === `${app.baseUrl}/lti/login` && request.method() === 'POST', { timeout: 10_000 });
      await page.goto(`${app.baseUrl}/storage-page`);
      const posted = (await fallback).postData() ?? '';
      assert.match(posted, /(^|&)lti_storage_check=cookie(&|$)/);
      assert.doesNotMatch(posted, /lti_storage_target/);
    });
  });
});
