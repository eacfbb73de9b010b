// The LMS setup checklist on a platform's page, in a browser: ticked off and hidden from the keyboard alone, in
// English and in Arabic (right to left), axe clean each time.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { platformKey } from '../../../src/lti/identifiers.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { ADMIN_TEST_PASSWORD } from '../../helpers/admin.js';
import { signInByKeyboard, tabTo } from '../../helpers/admin-browser.js';
import { assertNoAxeViolations } from '../../helpers/axe.js';
import { withBrowser } from '../../helpers/browser.js';
import { loadCatalog, message } from '../../helpers/catalogs.js';

const MOODLE = { issuer: 'https://moodle.checklist.example.edu', clientId: 'checklist-client' };
const CANVAS = { issuer: 'https://canvas.checklist.example.edu', clientId: '10000000000123' };
const pageOf = (platform: { issuer: string; clientId: string }) => `/admin/platforms/${platformKey(platform.issuer, platform.clientId)}`;

describe('admin console in a browser: the LMS setup checklist', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ ADMIN_PASSWORD: ADMIN_TEST_PASSWORD });
    for (const [platform, authPath] of [[MOODLE, '/mod/lti/auth.php'], [CANVAS, '/api/lti/authorize_redirect']] as const) {
      await app.tool.lti.platforms.register({ ...platform, name: `LMS at ${new URL(platform.issuer).host}`, authUrl: `${platform.issuer}${authPath}`, tokenUrl: `${platform.issuer}/token`, key: { jwksUrl: `${platform.issuer}/jwks` }, deploymentIds: ['1'] });
    }
  });
  after(async () => {
    await app.close();
  });

  it('keyboard only: tick two Moodle steps, save, hide the list and show it again; axe on each state', async (t) => {
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      await signInByKeyboard(page, app.baseUrl);
      await page.goto(`${app.baseUrl}${pageOf(MOODLE)}`);
      assert.equal(await page.textContent('#checklist-heading'), 'Finish in Moodle');
      await assertNoAxeViolations(page, 'platform page with the Moodle checklist');

      for (const item of ['activate', 'newWindow']) {
        await tabTo(page, `#checklist-${item}`);
        await page.keyboard.press('Space');
      }
      await tabTo(page, '#checklist form.admin-form button[type="submit"]');
      await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
      assert.equal(await page.textContent('.notice-ok'), 'The checklist was saved.');
      assert.deepEqual(await page.locator('#checklist input[type="checkbox"]').evaluateAll((boxes) => boxes.map((box) => (box instanceof HTMLInputElement ? `${box.value}${box.checked ? ' ✓' : ''}` : ''))), [
        'activate ✓',
        'chooser',
        'newWindow ✓',
        'httpSecurity',
      ]);
      await assertNoAxeViolations(page, 'the checklist after saving');

      await tabTo(page, '#checklist form.inline-form button');
      await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
      assert.equal(await page.locator('#checklist').count(), 0, 'hidden');
      await assertNoAxeViolations(page, 'the platform page with the checklist hidden');
      await tabTo(page, 'form[action$="/checklist/shown"] button');
      await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
      assert.equal(await page.locator('#checklist-activate:checked').count(), 1, 'shown again with its ticks');
    });
  });

  it('ar: the Canvas checklist in Arabic, right to left, no English left in it, axe clean', async (t) => {
    const catalog = loadCatalog('ar', 'admin');
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      await page.setExtraHTTPHeaders({ 'Accept-Language': 'ar' });
      await signInByKeyboard(page, app.baseUrl);
      await page.goto(`${app.baseUrl}${pageOf(CANVAS)}`);
      assert.equal(await page.getAttribute('html', 'dir'), 'rtl');
      assert.equal(await page.textContent('#checklist-heading'), message(catalog, 'platforms.checklist.heading.canvas'));
      const text = (await page.textContent('#checklist')) ?? '';
      assert.ok(text.includes(CANVAS.clientId), 'the client id is named');
      for (const english of ['Finish in', 'Developer Keys', 'Save the ticks', 'Hide this checklist']) assert.equal(text.includes(english), false, `English "${english}" left`);
      await assertNoAxeViolations(page, 'ar: platform page with the Canvas checklist');
    });
  });
});
