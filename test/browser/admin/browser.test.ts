import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createInstitutionSettingsStore } from '../../../src/institution/settings.js';
import { platformKey } from '../../../src/lti/identifiers.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { ADMIN_TEST_PASSWORD } from '../../helpers/admin.js';
import { signInByKeyboard } from '../../helpers/admin-browser.js';
import { assertNoAxeViolations } from '../../helpers/axe.js';
import { withBrowser } from '../../helpers/browser.js';
import { launch } from '../../helpers/lti-flow.js';

describe('in a browser: the admin console', () => {
  let app: TestApp;
  let key: string;
  before(async () => {
    app = await startTestApp({ ADMIN_PASSWORD: ADMIN_TEST_PASSWORD });
    const { issuer, clientId } = app.tool.sandbox!.demoLms.registration;
    key = platformKey(issuer, clientId);
    await launch(app, { user: 'instructor' });
    await app.db.query("INSERT INTO lti_refused_registrations (issuer, client_id, deployment_id, reason) VALUES ($1, $2, 'dep-9', 'unknown_deployment')", [issuer, clientId]);
  });
  after(async () => {
    await app.close();
  });

  it('every page passes axe, signed in from the keyboard', async (t) => {
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      await page.goto(`${app.baseUrl}/admin/sign-in`);
      await assertNoAxeViolations(page, 'sign-in');
      await signInByKeyboard(page, app.baseUrl);
      for (const path of ['/admin', '/admin/platforms', '/admin/platforms/new?lms=canvas', '/admin/platforms/new?lms=brightspace', `/admin/platforms/${key}`, `/admin/platforms/${key}/remove`,
        `/admin/platforms/refused/confirm?${new URLSearchParams({ issuer: app.tool.sandbox!.demoLms.registration.issuer, clientId: app.tool.sandbox!.demoLms.registration.clientId, deploymentId: 'dep-9' })}`,
        '/admin/institution', `/admin/institution/${key}`, '/admin/launches', '/admin/roster', '/admin/exams', '/admin/audit']) {
        const response = await page.goto(`${app.baseUrl}${path}`);
        assert.equal(response?.status(), 200, path);
        await assertNoAxeViolations(page, path);
      }
      // Refused forms are accessible too.
      await page.goto(`${app.baseUrl}/admin/platforms/new`);
      await page.click('button[type="submit"]:has-text("Register")');
      await page.waitForSelector('#problems');
      await assertNoAxeViolations(page, 'refused platform form');
    });
  });

  it('keyboard only: the institution form takes a colour, refuses "blue" with the format, and saves', async (t) => {
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      await signInByKeyboard(page, app.baseUrl);
      await page.goto(`${app.baseUrl}/admin/institution/${key}`);
      await page.focus('#primaryColor');
      await page.keyboard.type('blue');
      await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
      assert.match(await page.textContent('#primaryColor-error') ?? '', /6 hexadecimal digits like 0b5cad/);
      assert.equal(await page.getAttribute('#primaryColor', 'aria-invalid'), 'true');
      await assertNoAxeViolations(page, 'refused institution form');
      await page.fill('#primaryColor', '');
      await page.focus('#primaryColor');
      await page.keyboard.type('0B5CAD');
      // The colour picker follows the text field.
      assert.equal(await page.inputValue('input[type="color"][data-colour-for="primaryColor"]'), '#0b5cad');
      await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
      assert.match(await page.textContent('.notice-ok') ?? '', /institution settings were saved/);
      const { issuer, clientId } = app.tool.sandbox!.demoLms.registration;
      assert.equal((await createInstitutionSettingsStore(app.db).get(issuer, clientId)).branding.primary_color, '0b5cad');
    });
  });

  it('copy buttons copy the values to paste into the LMS', async (t) => {
    await withBrowser(t, async (context) => {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.baseUrl });
      const page = await context.newPage();
      await signInByKeyboard(page, app.baseUrl);
      await page.goto(`${app.baseUrl}/admin/platforms/new`);
      await page.click('button[data-copy="value-login"]');
      await page.waitForFunction(() => document.querySelector('#value-login ~ [data-copy-status]')?.textContent !== '');
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), `${app.baseUrl}/lti/login`);
    });
  });

  it('a form without its CSRF token is refused; sign-out ends the session', async (t) => {
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      await signInByKeyboard(page, app.baseUrl);
      await page.goto(`${app.baseUrl}/admin/platforms/${key}`);
      await page.evaluate(() => document.querySelectorAll('input[name="_csrf"]').forEach((input) => input.remove()));
      const [response] = await Promise.all([page.waitForNavigation(), page.click('button:has-text("Deactivate")')]);
      assert.equal(response?.status(), 403);
      assert.match(await page.textContent('body') ?? '', /page has expired/);
      assert.equal((await app.tool.lti.platforms.list())[0]!.active, true, 'nothing changed');
      await page.goto(`${app.baseUrl}/admin`);
      await Promise.all([page.waitForNavigation(), page.click('button:has-text("Sign out")')]);
      assert.match(await page.textContent('.notice-ok') ?? '', /signed out/);
      await page.goto(`${app.baseUrl}/admin/platforms`);
      assert.match(page.url(), /\/admin\/sign-in/);
    });
  });
});

// The lockout holds for 15 minutes: an app of its own, so that no other test meets a locked sign-in.
describe('in a browser: the admin console locks sign-in after wrong passwords', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ ADMIN_PASSWORD: ADMIN_TEST_PASSWORD });
  });
  after(async () => {
    await app.close();
  });

  it('a wrong password is told; repeated ones lock sign-in', async (t) => {
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      let status = 0;
      for (let i = 0; i < 6 && status !== 429; i += 1) {
        await page.goto(`${app.baseUrl}/admin/sign-in`);
        await page.fill('#password', `wrong password ${i}`);
        const [response] = await Promise.all([page.waitForNavigation(), page.click('button:has-text("Sign in")')]);
        status = response?.status() ?? 0;
        if (i === 0) {
          assert.equal(status, 401);
          assert.match(await page.textContent('[role="alert"]') ?? '', /password is not correct/);
          await assertNoAxeViolations(page, 'wrong password');
        }
      }
      assert.equal(status, 429);
      assert.match(await page.textContent('[role="alert"]') ?? '', /locked for 15 minutes/);
    });
  });
});
