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
const WORKING = { consumerKey: 'eu-key', secret: 'eu-secret-000000004', region: 'EU', active: true };

describe('in a browser: proctoring accounts', () => {
  let app: TestApp;
  let eu: EmulatorServer;
  let euBaseUrl: string;
  let key: string;
  before(async () => {
    app = await startTestApp({ ADMIN_PASSWORD: ADMIN_TEST_PASSWORD });
    eu = await startEmulator({ accounts: [SUSPENDED, WORKING], region: 'EU' });
    euBaseUrl = eu.base;
    const { issuer, clientId } = app.tool.sandbox!.demoLms.registration;
    key = platformKey(issuer, clientId);
  });
  after(async () => {
    await eu?.close();
    await app.close();
  });

  it('keyboard only: refused, then refused by the service with nothing saved, then tested and saved; axe on every state', async (t) => {
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

      // Well formed, but the service does not accept it: nothing is saved, the cause is shown.
      await page.fill('#baseUrl', '');
      await tabTo(page, '#baseUrl');
      await page.keyboard.type(euBaseUrl);
      await tabTo(page, '#secret');
      await page.keyboard.type(SUSPENDED.secret);
      await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
      const refusal = await page.textContent('#connection-test') ?? '';
      assert.match(refusal, /Not saved: the service did not accept the new account/);
      assert.match(refusal, /not active \(code 2154\)/);
      assert.match(refusal, /Nothing was changed/);
      assert.match(await page.textContent('#current-heading + p') ?? '', /uses the default account/);
      assert.deepEqual(await app.tool.accounts.list(), [], 'no account was created');
      assert.equal(await page.inputValue('#baseUrl'), euBaseUrl, 'the typed values stay in the form');
      assert.equal(await page.inputValue('#secret'), '', 'the secret is not sent back');
      await assertNoAxeViolations(page, 'account refused by the service');

      await page.fill('#consumerKey', '');
      await tabTo(page, '#consumerKey');
      await page.keyboard.type(WORKING.consumerKey);
      await tabTo(page, '#secret');
      await page.keyboard.type(WORKING.secret);
      await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
      assert.match(await page.textContent('.notice-ok') ?? '', /service accepted the account: it was saved and is in use/);
      assert.match(await page.textContent('#current-heading + dl') ?? '', /ending in 0004/);
      assert.equal(await page.inputValue('#secret'), '', 'the secret is not shown again');
      await assertNoAxeViolations(page, 'tested and saved');

      // A wrong new secret leaves the working one in place.
      await tabTo(page, '#secret');
      await page.keyboard.type('a-wrong-secret-0000099');
      await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
      assert.match(await page.textContent('#connection-test') ?? '', /rejected the API key \(code 2655\)/);
      assert.match(await page.textContent('#current-heading + dl') ?? '', /ending in 0004/);

      await tabTo(page, '#test-connection');
      await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
      assert.match(await page.textContent('#connection-test') ?? '', /Connection works/);
    });
  });
});
