import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLogoStore } from '../../../src/hosted/logos.js';
import { createInstitutionSettingsStore } from '../../../src/institution/settings.js';
import { platformKey } from '../../../src/lti/identifiers.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { ADMIN_TEST_PASSWORD } from '../../helpers/admin.js';
import { signInByKeyboard } from '../../helpers/admin-browser.js';
import { assertNoAxeViolations } from '../../helpers/axe.js';
import { withBrowser } from '../../helpers/browser.js';
import { PNG_1PX } from '../../helpers/hosted.js';

describe('in a browser: the institution settings page saves its logo with everything else', () => {
  let app: TestApp;
  let key: string;
  let platform: { issuer: string; clientId: string };
  before(async () => {
    app = await startTestApp({ ADMIN_PASSWORD: ADMIN_TEST_PASSWORD });
    const { issuer, clientId } = app.tool.sandbox!.demoLms.registration;
    platform = { issuer, clientId };
    key = platformKey(issuer, clientId);
  });
  after(async () => {
    await app.close();
  });

  const storedLogo = () => createLogoStore(app.db).findByKey(key);
  const settings = () => createInstitutionSettingsStore(app.db).get(platform.issuer, platform.clientId);

  it('"Save the settings" saves a chosen logo and the colours together', async (t) => {
    await createLogoStore(app.db).remove(platform.issuer, platform.clientId);
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      await signInByKeyboard(page, app.baseUrl);
      await page.goto(`${app.baseUrl}/admin/institution/${key}`);
      await page.setInputFiles('#logo', { name: 'logo.png', mimeType: 'image/png', buffer: PNG_1PX });
      await page.fill('#primaryColor', '0b5cad');
      await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]:has-text("Save the settings")')]);
      assert.match(await page.textContent('.notice-ok') ?? '', /institution settings were saved/);
      assert.equal((await storedLogo())?.contentType, 'image/png', 'the chosen logo was saved');
      assert.equal((await settings()).branding.primary_color, '0b5cad');
      await assertNoAxeViolations(page, 'saved with a logo');
    });
  });

  it('a logo that is refused saves nothing else either, and says so', async (t) => {
    const before = await settings();
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      await signInByKeyboard(page, app.baseUrl);
      await page.goto(`${app.baseUrl}/admin/institution/${key}`);
      await page.setInputFiles('#logo', { name: 'logo.png', mimeType: 'image/png', buffer: Buffer.from('not an image') });
      await page.fill('#primaryColor', '123456');
      await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]:has-text("Save the settings")')]);
      assert.match(await page.textContent('#logo-error') ?? '', /must be a PNG, JPEG, WebP or SVG image/);
      assert.match(await page.textContent('#logo-error') ?? '', /Nothing was saved/);
      assert.equal(await page.inputValue('#primaryColor'), '123456', 'the typed values stay in the form');
      assert.deepEqual(await settings(), before);
      await assertNoAxeViolations(page, 'refused logo');
    });
  });

  it('"Remove the logo" asks first: keeping it changes nothing, confirming removes it', async (t) => {
    await createLogoStore(app.db).save(platform.issuer, platform.clientId, PNG_1PX);
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      await signInByKeyboard(page, app.baseUrl);
      await page.goto(`${app.baseUrl}/admin/institution/${key}`);
      await Promise.all([page.waitForNavigation(), page.click('text=Remove the logo')]);
      assert.match(await page.textContent('h1') ?? '', /Remove the logo/);
      assert.ok(await storedLogo(), 'asking removes nothing');
      await assertNoAxeViolations(page, 'removal confirmation');
      await Promise.all([page.waitForNavigation(), page.click('text=Keep the logo')]);
      assert.match(page.url(), new RegExp(`/admin/institution/${key}$`));
      assert.ok(await storedLogo(), 'kept');

      await Promise.all([page.waitForNavigation(), page.click('text=Remove the logo')]);
      await Promise.all([page.waitForNavigation(), page.click('button:has-text("Remove the logo")')]);
      assert.match(await page.textContent('.notice-ok') ?? '', /logo was removed/);
      assert.equal(await storedLogo(), undefined);
    });
  });
});
