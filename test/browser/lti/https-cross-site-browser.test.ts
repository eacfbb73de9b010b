// Test process: own. It turns off TLS verification for the whole process (NODE_TLS_REJECT_UNAUTHORIZED).
import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import type { BrowserContext, Response } from 'playwright-core';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { withBrowser } from '../../helpers/browser.js';
import { framedLaunchDriver } from '../../helpers/framed-launch.js';
import { testCertificate } from '../../helpers/tls.js';

/**
 * Cross-site launches over https in Chromium, as with a real LMS on another site: the tool is served over
 * TLS (a certificate made here) at https://127.0.0.1:PORT, its PUBLIC_URL; the LMS's course page is
 * https://lms.test:PORT/sandbox/lms/, a different site, which Chromium resolves to 127.0.0.1
 * (--host-resolver-rules). Chromium's cookie settings are the profile's preferences, as a user sets them:
 *   profile.cookie_controls_mode 0: third-party cookies allowed;
 *   profile.cookie_controls_mode 1: third-party cookies blocked ("Block third-party cookies", also what
 *     headless Chromium 156 does when nothing is set);
 *   a content-settings exception blocking every cookie of the tool's site under the LMS's site: a browser
 *     that refuses even Partitioned cookies in the frame (as Safari does).
 */
const LMS_HOST = 'lms.test';
const ALLOW_THIRD_PARTY = { profile: { cookie_controls_mode: 0 } };
const BLOCK_THIRD_PARTY = { profile: { cookie_controls_mode: 1 } };

describe('in Chromium over https: an LMS on another site launches the tool', () => {
  let app: TestApp | undefined;
  let tls: { key: string; cert: string } | undefined;
  let toolOrigin: string;
  let lmsOrigin: string;

  before(async (t) => {
    tls = testCertificate(t as unknown as TestContext, [LMS_HOST]);
    if (!tls) return;
    // The tool fetches the demo LMS's keys and the emulator over https on its own test certificate.
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    app = await startTestApp({}, { tls });
    toolOrigin = new URL(app.baseUrl).origin;
    lmsOrigin = toolOrigin.replace('127.0.0.1', LMS_HOST);
    assert.equal(new URL(toolOrigin).protocol, 'https:');
  });
  after(async () => {
    await app?.close();
  });

  /**
   * Every cookie of the tool refused under the LMS's site, Partitioned ones too (as Safari does), while
   * third-party cookies are blocked anyway: a content-settings exception in the profile.
   */
  function refuseToolUnderLms(): Record<string, unknown> {
    return {
      profile: {
        cookie_controls_mode: 1,
        content_settings: { exceptions: { cookies: { [`${toolOrigin.replace(/:\d+$/, ':*')},${lmsOrigin.replace(/:\d+$/, ':*')}`]: { setting: 2 } } } },
      },
    };
  }

  /** Chromium with the tool's certificate accepted and lms.test resolved to this machine. */
  async function inBrowser(t: TestContext, preferences: Record<string, unknown>, fn: (context: BrowserContext) => Promise<void>): Promise<void> {
    if (!app) {
      t.skip('no test certificate');
      return;
    }
    await withBrowser(t, fn, { preferences, args: [`--host-resolver-rules=MAP ${LMS_HOST} 127.0.0.1`, '--ignore-certificate-errors'] });
  }

  const driver = () => framedLaunchDriver(app!, { tool: toolOrigin, lms: lmsOrigin });

  /** The cookie path: the cookie check, then the login, both in the frame. */
  function assertCookiePath(responses: Response[]): void {
    assert.deepEqual(driver().pathsOf(responses).slice(0, 2), ['/lti/login', '/lti/login'], 'cookie check, then the login, both in the frame');
  }

  it('framed launch, third-party cookies allowed: the flow stays in the frame', async (t) => {
    await inBrowser(t, ALLOW_THIRD_PARTY, async (context) => {
      const { responses } = await driver().framedLaunchEndsOnCandidatePage(context);
      assertCookiePath(responses);
    });
  });

  it('framed launch, third-party cookies blocked: Partitioned cookies keep the flow in the frame', async (t) => {
    await inBrowser(t, BLOCK_THIRD_PARTY, async (context) => {
      const { responses } = await driver().framedLaunchEndsOnCandidatePage(context);
      assertCookiePath(responses);
      const login = responses.find((r) => r.request().method() === 'POST' && (r.request().postData() ?? '').includes('lti_storage_check=done'));
      assert.ok(login);
      const stateCookie = (await login.headerValues('set-cookie')).find((cookie) => cookie.startsWith('state'));
      assert.match(stateCookie ?? '', /SameSite=None/i);
      assert.match(stateCookie ?? '', /Partitioned/i);
    });
  });

  it('control: third-party cookies blocked, an unpartitioned cookie is not kept in the frame', async (t) => {
    await inBrowser(t, BLOCK_THIRD_PARTY, async (context) => {
      const page = await context.newPage();
      await page.goto(`${lmsOrigin}/sandbox/lms/?flavor=moodle&presentation=iframe`, { timeout: 15_000 });
      await page.setContent(`<iframe src="${toolOrigin}/healthz"></iframe>`);
      const frame = await (await page.waitForSelector('iframe')).contentFrame();
      await frame!.waitForLoadState();
      const kept = await frame!.evaluate(() => {
        document.cookie = 'plain=1; SameSite=None; Secure; path=/';
        document.cookie = 'partitioned=1; SameSite=None; Secure; Partitioned; path=/';
        return document.cookie;
      });
      assert.equal(kept, 'partitioned=1');
    });
  });

  it('framed launch where the browser refuses even Partitioned cookies, platform storage off: the new window ends on the candidate page', async (t) => {
    await inBrowser(t, refuseToolUnderLms(), async (context) => {
      const { recordLtiResponses, framedLaunch, pathsOf, candidateLaunches, assertCandidatePage, assertNoRefusal } = driver();
      const responses = recordLtiResponses(context);
      const page = await context.newPage();
      const frame = await framedLaunch(page, { platformStorage: false });
      await frame.locator('#cookie-blocked').waitFor({ state: 'visible', timeout: 15_000 });
      assert.deepEqual(pathsOf(responses), ['/lti/login'], 'the login went no further in the frame');
      const launchesBefore = candidateLaunches();
      const popupPromise = context.waitForEvent('page', { timeout: 10_000 });
      await frame.getByRole('button', { name: 'Open in a new window' }).click({ timeout: 10_000 });
      const popup = await popupPromise;
      assert.equal(popup.mainFrame().parentFrame(), null);
      await assertCandidatePage(popup, launchesBefore);
      assertNoRefusal(responses);
      assert.equal(page.url(), `${lmsOrigin}/sandbox/lms/launch`, 'the LMS page stays where it was');
    });
  });

  it('top-level launch (a window of its own) from the LMS on another site', async (t) => {
    await inBrowser(t, BLOCK_THIRD_PARTY, async (context) => {
      await driver().windowLaunchEndsOnCandidatePage(context);
    });
  });

  it('platform storage on, every cookie of the tool refused in the frame: the framed launch ends on the candidate page without a cookie', async (t) => {
    await inBrowser(t, refuseToolUnderLms(), async (context) => {
      const { responses } = await driver().framedLaunchEndsOnCandidatePage(context, { platformStorage: true });
      const paths = driver().pathsOf(responses);
      // One login (no cookie check), the id_token POST answered by the page reading the platform's storage,
      // then the id_token posted again with what it read.
      assert.deepEqual(paths.slice(0, 3), ['/lti/login', '/lti/launch', '/lti/launch'], paths.join(', '));
      const login = responses[0]!;
      assert.match(login.request().postData() ?? '', /(^|&)lti_storage_target=post_message_forwarding(&|$)/);
      assert.doesNotMatch(login.request().postData() ?? '', /lti_storage_check/);
      // The tool did set its state cookie; the browser refused it and sent no cookie of the tool.
      assert.ok((await login.headerValues('set-cookie')).some((cookie) => cookie.startsWith('state')), 'the login set its state cookie');
      for (const response of responses.filter((r) => new URL(r.url()).pathname.startsWith('/lti/'))) {
        assert.equal(await response.request().headerValue('cookie'), null, `no cookie sent with ${response.url()}`);
      }
      const verified = responses[2]!.request();
      assert.match(verified.postData() ?? '', /(^|&)lti_storage=verified(&|$)/);
      assert.equal(await verified.headerValue('sec-fetch-site'), 'same-origin');
      const toolCookies = (await context.cookies()).filter((cookie) => cookie.name.startsWith('state') || cookie.name.startsWith('proctor_lti'));
      assert.deepEqual(toolCookies, [], 'the cookie jar holds no login cookie of the tool');
    });
  });

  it('platform storage on but the LMS page does not answer: the login falls back to the cookie path, once', async (t) => {
    await inBrowser(t, refuseToolUnderLms(), async (context) => {
      const { recordLtiResponses, framedLaunch, pathsOf, candidateLaunches, assertCandidatePage, assertNoRefusal } = driver();
      // The storage frame is served, but it never answers (a platform without the capability).
      await context.route(/\/sandbox\/lms\/post_message_forwarding/, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>silent</title>' }));
      const responses = recordLtiResponses(context);
      const page = await context.newPage();
      const frame = await framedLaunch(page, { platformStorage: true });
      await frame.locator('#cookie-blocked').waitFor({ state: 'visible', timeout: 20_000 });
      const paths = pathsOf(responses);
      assert.deepEqual(paths, ['/lti/login', '/lti/login'], 'the storage login, then the cookie check: nothing more in the frame');
      assert.match(responses[1]!.request().postData() ?? '', /(^|&)lti_storage_check=cookie(&|$)/);
      assert.doesNotMatch(responses[1]!.request().postData() ?? '', /lti_storage_target/);
      const launchesBefore = candidateLaunches();
      const popupPromise = context.waitForEvent('page', { timeout: 10_000 });
      await frame.getByRole('button', { name: 'Open in a new window' }).click({ timeout: 10_000 });
      const popup = await popupPromise;
      await assertCandidatePage(popup, launchesBefore);
      assertNoRefusal(responses);
    });
  });
});
