import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Frame, Page, Response } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { withBrowser } from '../helpers/browser.js';

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

  /** Every response the tool's LTI routes send in this context, to show none was a refusal. */
  function recordLtiResponses(context: BrowserContext): Response[] {
    const seen: Response[] = [];
    context.on('response', (response) => {
      if (response.url().startsWith(`${toolOrigin}/lti/`)) seen.push(response);
    });
    return seen;
  }

  function candidateLaunches(): number {
    return app.tool.sandbox!.emulator.received.filter((call) => call.endpoint === '/v2/candidate/launch').length;
  }

  /** Opens the course page on the LMS's own site with the given presentation, checked in the form. */
  async function openCourse(page: Page, presentation: 'iframe' | 'window'): Promise<void> {
    await page.goto(`${lmsOrigin}/sandbox/lms/?flavor=moodle&presentation=${presentation}`, { timeout: 15_000 });
    assert.equal(new URL(page.url()).origin, lmsOrigin);
    const radio = page.locator(`input[name="presentation"][value="${presentation}"]`);
    assert.equal(await radio.isChecked({ timeout: 5000 }), true);
  }

  /** The candidate page of the proctoring emulator, reached by a student's launch: checks it in detail. */
  async function assertCandidatePage(target: Page, launchesBefore: number): Promise<void> {
    await target.waitForURL(/\/sandbox\/proctoring\/session\//, { timeout: 20_000 });
    assert.equal(new URL(target.url()).origin, toolOrigin);
    await target.getByRole('heading', { name: 'Proctored exam session' }).waitFor({ timeout: 10_000 });
    await target.locator('#submit-exam').waitFor({ timeout: 10_000 });
    const sent = JSON.parse((await target.locator('#request').textContent({ timeout: 10_000 })) ?? '') as Record<string, unknown>;
    assert.ok(sent.launch_url && sent.exam_settings && sent.user_id, 'the candidate session carries the launch');
    const calls = app.tool.sandbox!.emulator.received.filter((call) => call.endpoint === '/v2/candidate/launch');
    assert.equal(calls.length, launchesBefore + 1, 'exactly one candidate (student) launch reached the emulator');
    assert.equal((calls.at(-1)!.body as Record<string, unknown>).user_id, sent.user_id);
  }

  function assertNoRefusal(responses: Response[]): void {
    const refused = responses.filter((response) => response.status() >= 400).map((r) => `${r.status()} ${r.url()}`);
    assert.deepEqual(refused, [], 'no LTI request was refused');
  }

  /** Clicks the student's exam button in an iframe launch; returns the tool's frame inside the LMS page. */
  async function framedLoginOnLmsSite(page: Page): Promise<Frame> {
    await openCourse(page, 'iframe');
    await page.getByRole('button', { name: 'Open the exam as a student' }).first().click({ timeout: 10_000 });
    // The LMS page that frames the tool stays on the LMS's site.
    await page.waitForURL(`${lmsOrigin}/sandbox/lms/launch`, { timeout: 15_000 });
    const frameElement = await page.waitForSelector('iframe.lms-tool-frame', { timeout: 10_000 });
    const frame = await frameElement.contentFrame();
    assert.ok(frame);
    await frame.waitForURL(`${toolOrigin}/lti/login`, { timeout: 15_000 });
    return frame;
  }

  it('a framed launch shows the cookie check, whose new window re-runs the login and opens the candidate page', async (t) => {
    await withBrowser(t, async (context) => {
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
      const responses = recordLtiResponses(context);
      const page = await context.newPage();
      await openCourse(page, 'window');
      const launchesBefore = candidateLaunches();
      const popupPromise = context.waitForEvent('page', { timeout: 10_000 });
      await page.getByRole('button', { name: 'Open the exam as a student' }).first().click({ timeout: 10_000 });
      const popup = await popupPromise;
      await assertCandidatePage(popup, launchesBefore);
      const paths = responses.map((r) => new URL(r.url()).pathname);
      assert.equal(paths.filter((p) => p === '/lti/login').length, 1, 'one login, no cookie check at the top level');
      assert.ok(paths.includes('/lti/launch'));
      assertNoRefusal(responses);
      assert.equal(new URL(page.url()).origin, lmsOrigin, 'the course page stays on the LMS site');
    });
  });
});
