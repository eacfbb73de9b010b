import assert from 'node:assert/strict';
import type { BrowserContext, Frame, Page, Response } from 'playwright-core';
import type { TestApp } from './app.js';
import { untilSession } from './demo-course.js';

/**
 * Driving the demo LMS's course page in Chromium from another site than the tool, as Canvas and Moodle
 * frame it: open the course, click the student's exam button, follow the tool in the LMS page's frame,
 * and check where the launch ends. Shared by the cross-site browser tests (http and https).
 */
export interface FramedLaunchDriver {
  /** Every response of the tool's LTI routes in this context, in order. */
  recordLtiResponses(context: BrowserContext): Response[];
  pathsOf(responses: Response[]): string[];
  assertNoRefusal(responses: Response[]): void;
  /** Student launches the proctoring emulator has received so far. */
  candidateLaunches(): number;
  /** Opens the course page on the LMS's site with the presentation (and platform storage) checked in the form. */
  openCourse(page: Page, presentation: 'iframe' | 'window', options?: CourseOptions): Promise<void>;
  /** The emulator's candidate page, reached by exactly one more student launch, checked in detail. */
  assertCandidatePage(target: Page, launchesBefore: number): Promise<void>;
  /**
   * A launch in a window of its own from the LMS page: it ends on the candidate page after exactly one login
   * (no cookie check at the top level) and its id_token POST, nothing refused. Returns the LMS page.
   */
  windowLaunchEndsOnCandidatePage(context: BrowserContext): Promise<Page>;
  /** Clicks the student's exam button with the tool in the LMS page's frame; returns that frame. */
  framedLaunch(page: Page, options?: CourseOptions): Promise<Frame>;
  /**
   * A framed student launch that never leaves the frame for a window of its own: the tool's page in the frame
   * moves the LMS window to the proctoring page (or, where Chromium refuses a cross-site frame that navigation
   * without a click, shows the link, which is clicked as a person would). No other window is opened.
   */
  framedLaunchEndsOnCandidatePage(context: BrowserContext, options?: CourseOptions): Promise<{ responses: Response[]; page: Page }>;
}

export interface CourseOptions {
  /** The LMS offers its client-side storage (lti_storage_target); off unless asked. */
  platformStorage?: boolean;
}

export function framedLaunchDriver(app: TestApp, origins: { tool: string; lms: string }): FramedLaunchDriver {
  const { tool: toolOrigin, lms: lmsOrigin } = origins;

  const driver: FramedLaunchDriver = {
    recordLtiResponses(context) {
      const seen: Response[] = [];
      context.on('response', (response) => {
        if (response.url().startsWith(`${toolOrigin}/lti/`)) seen.push(response);
      });
      return seen;
    },

    pathsOf: (responses) => responses.map((r) => new URL(r.url()).pathname),

    assertNoRefusal(responses) {
      const refused = responses.filter((response) => response.status() >= 400).map((r) => `${r.status()} ${r.url()}`);
      assert.deepEqual(refused, [], 'no LTI request was refused');
    },

    candidateLaunches: () => app.tool.sandbox!.emulator.received.filter((call) => call.endpoint === '/v2/candidate/launch').length,

    async openCourse(page, presentation, options = {}) {
      const storage = options.platformStorage ? 'on' : 'off';
      await page.goto(`${lmsOrigin}/sandbox/lms/?flavor=moodle&presentation=${presentation}&platform_storage=${storage}`, { timeout: 15_000 });
      assert.equal(new URL(page.url()).origin, lmsOrigin);
      assert.equal(await page.locator(`input[name="presentation"][value="${presentation}"]`).isChecked({ timeout: 5000 }), true);
      assert.equal(await page.locator(`input[name="platform_storage"][value="${storage}"]`).isChecked({ timeout: 5000 }), true);
    },

    async assertCandidatePage(target, launchesBefore) {
      // A student's first launch of the exam at the top level shows the privacy notice: its button goes on.
      await untilSession(target);
      assert.equal(new URL(target.url()).origin, toolOrigin);
      await target.getByRole('heading', { name: 'Proctored exam session' }).waitFor({ timeout: 10_000 });
      await target.locator('#submit-exam').waitFor({ timeout: 10_000 });
      const sent = JSON.parse((await target.locator('#request').textContent({ timeout: 10_000 })) ?? '') as Record<string, unknown>;
      assert.ok(sent.launch_url && sent.exam_settings && sent.user_id, 'the candidate session carries the launch');
      const calls = app.tool.sandbox!.emulator.received.filter((call) => call.endpoint === '/v2/candidate/launch');
      assert.equal(calls.length, launchesBefore + 1, 'exactly one candidate (student) launch reached the emulator');
      assert.equal((calls.at(-1)!.body as Record<string, unknown>).user_id, sent.user_id);
    },

    async windowLaunchEndsOnCandidatePage(context) {
      const responses = driver.recordLtiResponses(context);
      const page = await context.newPage();
      await driver.openCourse(page, 'window');
      const launchesBefore = driver.candidateLaunches();
      const popupPromise = context.waitForEvent('page', { timeout: 10_000 });
      await page.getByRole('button', { name: 'Open the exam as a student' }).first().click({ timeout: 10_000 });
      await driver.assertCandidatePage(await popupPromise, launchesBefore);
      const paths = driver.pathsOf(responses);
      assert.equal(paths.filter((p) => p === '/lti/login').length, 1, 'one login, no cookie check at the top level');
      assert.ok(paths.includes('/lti/launch'));
      driver.assertNoRefusal(responses);
      return page;
    },

    async framedLaunch(page, options = {}) {
      await driver.openCourse(page, 'iframe', options);
      await page.getByRole('button', { name: 'Open the exam as a student' }).first().click({ timeout: 10_000 });
      // The LMS page that frames the tool stays on the LMS's site.
      await page.waitForURL(`${lmsOrigin}/sandbox/lms/launch`, { timeout: 15_000 });
      const frame = await (await page.waitForSelector('iframe.lms-tool-frame', { timeout: 10_000 })).contentFrame();
      assert.ok(frame);
      assert.equal(frame.parentFrame(), page.mainFrame());
      return frame;
    },

    async framedLaunchEndsOnCandidatePage(context, options = {}) {
      const responses = driver.recordLtiResponses(context);
      const page = await context.newPage();
      const opened: Page[] = [];
      context.on('page', (other) => opened.push(other));
      const launchesBefore = driver.candidateLaunches();
      const frame = await driver.framedLaunch(page, options);
      // The start page in the frame: nothing moves until its button is clicked, as a person would.
      const link = frame.locator('[data-start]');
      await link.waitFor({ state: 'visible', timeout: 20_000 });
      assert.doesNotMatch(page.url(), /\/sandbox\/proctoring\/session\//, 'the top window waits for the click');
      await link.click({ timeout: 10_000 });
      await driver.assertCandidatePage(page, launchesBefore);
      assert.deepEqual(opened, [], 'no other window was opened');
      assert.ok(driver.pathsOf(responses).includes('/lti/launch'), driver.pathsOf(responses).join(', '));
      driver.assertNoRefusal(responses);
      return { responses, page };
    },
  };
  return driver;
}
