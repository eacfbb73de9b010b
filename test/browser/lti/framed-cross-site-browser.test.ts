import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Frame, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { withBrowser } from '../../helpers/browser.js';
import { framedLaunchDriver } from '../../helpers/framed-launch.js';

/**
 * In Chromium, the demo LMS course page is opened from another site than the tool, as Canvas and Moodle
 * frame the tool in production: the tool (and the demo LMS's OIDC endpoints, its issuer) live on
 * http://127.0.0.1:PORT, the course page the learner clicks in is http://localhost:PORT/sandbox/lms/.
 * Over http the tool's cookies are SameSite=Lax, which Chromium refuses in a cross-site frame.
 */
describe('in a browser: an LMS on another site frames the tool', () => {
  let app: TestApp;
  let lmsOrigin: string;
  let toolOrigin: string;

  before(async () => {
    app = await startTestApp();
    toolOrigin = new URL(app.baseUrl).origin;
    lmsOrigin = toolOrigin.replace('127.0.0.1', 'localhost');
    assert.notEqual(lmsOrigin, toolOrigin);
    // The demo LMS's issuer (where its OIDC endpoints are) is the tool's origin; only the course page moves.
    assert.equal(new URL(app.tool.sandbox!.demoLms.registration.issuer).origin, toolOrigin);
  });
  after(async () => {
    await app.close();
  });

  const driver = () => framedLaunchDriver(app, { tool: toolOrigin, lms: lmsOrigin });

  /** Clicks the student's exam button in an iframe launch (platform storage off); returns the tool's frame at its login. */
  async function framedLoginOnLmsSite(page: Page): Promise<Frame> {
    const frame = await driver().framedLaunch(page, { platformStorage: false });
    await frame.waitForURL(`${toolOrigin}/lti/login`, { timeout: 15_000 });
    return frame;
  }

  it('a framed launch shows the cookie check, whose new window re-runs the login and opens the candidate page', async (t) => {
    await withBrowser(t, async (context) => {
      const { recordLtiResponses, candidateLaunches, assertCandidatePage, assertNoRefusal } = driver();
      const responses = recordLtiResponses(context);
      const page = await context.newPage();
      const frame = await framedLoginOnLmsSite(page);
      assert.equal(new URL(page.url()).origin, lmsOrigin, 'the framing page is on the other site');
      assert.equal(frame.parentFrame(), page.mainFrame());

      // The cookie check ran in the cross-site frame, found the cookie refused and offers a new window.
      const blocked = frame.locator('#cookie-blocked');
      await blocked.waitFor({ state: 'visible', timeout: 10_000 });
      assert.match((await blocked.textContent()) ?? '', /blocks the cookies this tool needs/);
      const newWindow = frame.getByRole('button', { name: 'Open in a new window' });
      await newWindow.waitFor({ state: 'visible', timeout: 10_000 });
      assert.equal(await frame.locator('#continue-here').isHidden(), true, '"Continue" (in the frame) is not offered');
      assert.deepEqual(await frame.getByRole('button').allInnerTexts(), ['Open in a new window'], 'the only choice offered');
      assert.equal(await frame.evaluate(() => document.cookie), '', 'no cookie of the tool is readable in the frame');
      assert.doesNotMatch(await frame.content(), /did not keep the cookie|could not be accepted/);
      // The login went no further in the frame: no request reached the launch route.
      assert.deepEqual(responses.map((r) => new URL(r.url()).pathname), ['/lti/login']);
      assertNoRefusal(responses);

      const launchesBefore = candidateLaunches();
      const popupPromise = context.waitForEvent('page', { timeout: 10_000 });
      await newWindow.click({ timeout: 10_000 });
      const popup = await popupPromise;
      assert.notEqual(popup, page);
      assert.equal(popup.mainFrame().parentFrame(), null, 'the popup is a top-level window');
      await assertCandidatePage(popup, launchesBefore);

      // The popup re-ran the OIDC login at the top level: login (with the check done), then the launch.
      const paths = responses.map((r) => new URL(r.url()).pathname);
      assert.deepEqual(paths.slice(0, 2), ['/lti/login', '/lti/login']);
      assert.equal(paths.filter((p) => p === '/lti/login').length, 2, 'no cookie check in the top-level window');
      assert.ok(paths.includes('/lti/launch'), `the launch reached the tool: ${paths.join(', ')}`);
      assertNoRefusal(responses);
      const secondLogin = responses[1]!;
      assert.equal(secondLogin.frame().page(), popup);
      assert.match(secondLogin.request().postData() ?? '', /(^|&)lti_storage_check=done(&|$)/);
      // The framing LMS page is still where it was.
      assert.equal(page.url(), `${lmsOrigin}/sandbox/lms/launch`);
    });
  });

  it('control: continuing inside the cross-site frame anyway fails, as the state cookie is refused there', async (t) => {
    await withBrowser(t, async (context) => {
      const { recordLtiResponses } = driver();
      const responses = recordLtiResponses(context);
      const page = await context.newPage();
      const frame = await framedLoginOnLmsSite(page);
      await frame.locator('#cookie-blocked').waitFor({ state: 'visible', timeout: 10_000 });
      // What the page would do if the browser kept the cookie: post the login in the frame.
      const launchResponse = page.waitForResponse((r) => r.url() === `${toolOrigin}/lti/launch` && r.request().method() === 'POST', { timeout: 20_000 });
      await frame.evaluate(() => (document.getElementById('login-form') as HTMLFormElement).submit());
      const refused = await launchResponse;
      assert.equal(refused.status(), 401);
      await frame.getByText(/did not keep the cookie this tool sets/).waitFor({ timeout: 10_000 });
      assert.equal(new URL(page.url()).origin, lmsOrigin);
      // The tool did set its state cookie on the framed login, but the browser did not keep it.
      const login = responses.find((r) => r.request().method() === 'POST' && (r.request().postData() ?? '').includes('lti_storage_check=done'));
      assert.ok(login, 'the framed login with the check done was answered');
      assert.match((await login.allHeaders())['set-cookie'] ?? '', /SameSite=Lax/i);
      assert.deepEqual(await context.cookies(toolOrigin), []);
    });
  });

  it('a window launch from the cross-site LMS page works directly', async (t) => {
    await withBrowser(t, async (context) => {
      const page = await driver().windowLaunchEndsOnCandidatePage(context);
      assert.equal(new URL(page.url()).origin, lmsOrigin, 'the course page stays on the LMS site');
    });
  });

  it('with platform storage on, the framed launch stays in the frame although the state cookie is refused', async (t) => {
    await withBrowser(t, async (context) => {
      const { responses } = await driver().framedLaunchEndsOnCandidatePage(context, { platformStorage: true });
      const paths = driver().pathsOf(responses);
      assert.deepEqual(paths.slice(0, 3), ['/lti/login', '/lti/launch', '/lti/launch'], paths.join(', '));
      assert.deepEqual(await context.cookies(toolOrigin), [], 'no cookie of the tool was kept');
    });
  });
});
