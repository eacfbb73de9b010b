import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { platformKey } from '../../../src/lti/identifiers.js';
import { startEmulator, type EmulatorServer } from '../../helpers/proctoring.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { ADMIN_TEST_PASSWORD } from '../../helpers/admin.js';
import { signInByKeyboard, tabTo } from '../../helpers/admin-browser.js';
import { assertNoAxeViolations } from '../../helpers/axe.js';
import { withBrowser } from '../../helpers/browser.js';

const SUSPENDED = { consumerKey: 'old-key', secret: 'old-secret-00000003', region: 'EU', active: false };

describe('in a browser: proctoring accounts', () => {
  let app: TestApp;
  let eu: EmulatorServer;
  let euBaseUrl: string;
  let key: string;
  before(async () => {
    app = await startTestApp({ ADMIN_PASSWORD: ADMIN_TEST_PASSWORD });
    eu = await startEmulator({ accounts: [SUSPENDED], region: 'EU' });
    euBaseUrl = eu.base;
    const { issuer, clientId } = app.tool.sandbox!.demoLms.registration;
    key = platformKey(issuer, clientId);
  });
  after(async () => {
    await eu?.close();
    await app.close();
  });

  it('keyboard only: refused, then saved, then "Test connection" explains the answer; axe on every state', async (t) => {
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      await signInByKeyboard(page, app.baseUrl);
      await page.goto(`${app.baseUrl}/admin/accounts`);
      await assertNoAxeViolations(page, 'accounts list');
      await page.goto(`${app.baseUrl}/admin/accounts/${key}`);
      await assertNoAxeViolations(page, 'account form');

      // Refused: a base URL that is not one, and no secret.
      await tabTo(page, '#name');
      await page.keyboard.type('EU campus');
      await tabTo(page, '#region');
      await page.keyboard.type('EU');
      await tabTo(page, '#baseUrl');
      await page.keyboard.type('eu.proctoring.example.com');
      await tabTo(page, '#consumerKey');
      await page.keyboard.type(SUSPENDED.consumerKey);
      await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
      assert.match(await page.textContent('#baseUrl-error') ?? '', /Base URL: must be the https base URL/);
      assert.match(await page.textContent('#secret-error') ?? '', /Secret: required with the consumer key/);
      assert.equal(await page.getAttribute('#baseUrl', 'aria-invalid'), 'true');
      await assertNoAxeViolations(page, 'refused account form');

      await page.fill('#baseUrl', '');
      await tabTo(page, '#baseUrl');
      await page.keyboard.type(euBaseUrl);
      await tabTo(page, '#secret');
      await page.keyboard.type(SUSPENDED.secret);
      await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
      assert.match(await page.textContent('.notice-ok') ?? '', /proctoring account was saved/);
      assert.match(await page.textContent('#current-heading + dl') ?? '', /ending in 0003/);
      assert.equal(await page.inputValue('#secret'), '', 'the secret is not shown again');

      await tabTo(page, '#test-connection');
      await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
      assert.match(await page.textContent('#connection-test') ?? '', /not active \(code 2154\)/);
      await assertNoAxeViolations(page, 'failed connection test');
    });
  });
});
