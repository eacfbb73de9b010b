import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { ADMIN_TEST_PASSWORD } from '../../helpers/admin.js';
import { signInByKeyboard } from '../../helpers/admin-browser.js';
import { assertNoAxeViolations, horizontalOverflow } from '../../helpers/axe.js';
import { withBrowser } from '../../helpers/browser.js';
import { loadCatalog, message } from '../../helpers/catalogs.js';

/** A plain message of the admin catalog of a language, by dotted key. */
const adminMessage = (locale: string, key: string) => message(loadCatalog(locale, 'admin'), key);

async function pageLanguage(page: Page): Promise<{ lang: string; dir: string }> {
  return page.evaluate(() => ({ lang: document.documentElement.lang, dir: document.documentElement.dir }));
}

const LANGUAGES = [
  { header: 'de-DE,de;q=0.9,en;q=0.5', locale: 'de', dir: 'ltr' },
  { header: 'ar-EG,ar;q=0.9', locale: 'ar', dir: 'rtl' },
  { header: 'zh-CN,zh;q=0.9', locale: 'zh-Hans', dir: 'ltr' },
] as const;

describe('in a browser: the admin console in German, Arabic and Chinese', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ ADMIN_PASSWORD: ADMIN_TEST_PASSWORD });
    const { issuer, clientId } = app.tool.sandbox!.demoLms.registration;
    // A refused launch fills the platforms page's second table.
    await app.db.query("INSERT INTO lti_refused_registrations (issuer, client_id, deployment_id, reason) VALUES ($1, $2, 'dep-9', 'unknown_deployment')", [issuer, clientId]);
  });
  after(async () => {
    await app.close();
  });

  for (const language of LANGUAGES) {
    it(`${language.locale}: sign-in, overview and platforms in the language, lang and dir set, axe clean`, async (t) => {
      await withBrowser(t, async (context) => {
        const page = await context.newPage();
        await page.setExtraHTTPHeaders({ 'Accept-Language': language.header });
        await page.goto(`${app.baseUrl}/admin/sign-in`);
        assert.deepEqual(await pageLanguage(page), { lang: language.locale, dir: language.dir });
        assert.equal(await page.textContent('h1'), adminMessage(language.locale, 'signIn.title'));
        assert.equal(await page.textContent('label[for="password"]'), adminMessage(language.locale, 'signIn.password'));
        await assertNoAxeViolations(page, `${language.locale} sign-in`);

        await signInByKeyboard(page, app.baseUrl);
        assert.deepEqual(await pageLanguage(page), { lang: language.locale, dir: language.dir });
        assert.equal(await page.textContent('h1'), adminMessage(language.locale, 'dashboard.title'));
        assert.equal(await page.textContent('.admin-nav a[aria-current="page"]'), adminMessage(language.locale, 'nav.overview'));
        assert.equal(await page.textContent('.admin-sign-out button'), adminMessage(language.locale, 'layout.signOut'));
        assert.equal((await page.title()).includes(adminMessage(language.locale, 'layout.brand')), true, await page.title());
        // The sign-in just made is listed with its label in the language; the stored entry stays data.
        assert.ok(((await page.textContent('.admin-table tbody tr')) ?? '').includes(adminMessage(language.locale, 'audit.actions.adminSignIn')));
        await assertNoAxeViolations(page, `${language.locale} overview`);

        await page.goto(`${app.baseUrl}/admin/platforms`);
        assert.deepEqual(await pageLanguage(page), { lang: language.locale, dir: language.dir });
        assert.equal(await page.textContent('h1'), adminMessage(language.locale, 'platforms.list.title'));
        assert.equal(await page.textContent('#refused-heading'), adminMessage(language.locale, 'platforms.refused.heading'));
        const headers = await page.locator('.admin-table thead th').allTextContents();
        assert.ok(headers.includes(adminMessage(language.locale, 'platforms.list.issuerAndClient')), headers.join(' | '));
        assert.ok(headers.includes(adminMessage(language.locale, 'platforms.refused.deploymentId')), headers.join(' | '));
        const body = (await page.textContent('main')) ?? '';
        for (const english of ['Refused launches', 'Dynamic registration', 'Register an LMS', 'Last launch']) assert.equal(body.includes(english), false, `English "${english}" left on the ${language.locale} page`);
        // Technical values stay as they are.
        assert.ok(body.includes(app.tool.sandbox!.demoLms.registration.issuer));
        await assertNoAxeViolations(page, `${language.locale} platforms`);
      });
    });
  }

  it('ar: the layout is mirrored and nothing scrolls sideways at 1,280 and 390 px', async (t) => {
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      await page.setExtraHTTPHeaders({ 'Accept-Language': 'ar' });
      await signInByKeyboard(page, app.baseUrl);
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        for (const path of ['/admin', '/admin/platforms']) {
          await page.goto(`${app.baseUrl}${path}`);
          assert.equal(await horizontalOverflow(page), 0, `${path} at ${width} px scrolls sideways`);
          const layout = await page.evaluate(() => {
            const main = document.querySelector('main')!.getBoundingClientRect();
            const heading = document.querySelector('h1')!;
            const range = document.createRange();
            range.selectNodeContents(heading);
            const text = range.getBoundingClientRect();
            const brand = document.querySelector('.admin-brand')!.getBoundingClientRect();
            const signOut = document.querySelector('.admin-sign-out')!.getBoundingClientRect();
            return { mainLeft: main.left, mainRight: main.right, textLeft: text.left, textRight: text.right, brandRight: brand.right, signOutLeft: signOut.left, direction: getComputedStyle(heading).direction };
          });
          assert.equal(layout.direction, 'rtl');
          // The heading's text starts on the right: it ends near main's right edge, far from its left.
          assert.ok(layout.mainRight - layout.textRight < 40, `${path} at ${width} px: heading not right-aligned ${JSON.stringify(layout)}`);
          assert.ok(layout.textLeft - layout.mainLeft > 40, `${path} at ${width} px: heading reaches the left ${JSON.stringify(layout)}`);
          // The header mirrors too: the brand on the right, sign-out towards the left.
          if (width === 1280) assert.ok(layout.signOutLeft < layout.brandRight, JSON.stringify(layout));
        }
      }
      await page.goto(`${app.baseUrl}/admin/platforms`);
      const firstHeader = await page.evaluate(() => getComputedStyle(document.querySelector('.admin-table th')!).textAlign);
      assert.ok(['start', 'right'].includes(firstHeader), firstHeader);
    });
  });
});
