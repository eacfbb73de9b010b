// In Chromium: the console's Webhooks page — subscribe (version 2 chosen), the list with its marks, unsubscribe
// through the confirmation page, the unmatched deliveries and a refusal by the service — each state without axe
// violations.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startEmulator, type EmulatorServer } from '../../helpers/proctoring.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { ADMIN_TEST_PASSWORD } from '../../helpers/admin.js';
import { assertNoAxeViolations } from '../../helpers/axe.js';
import { withBrowser } from '../../helpers/browser.js';
import { emulator } from '../../helpers/launches.js';

const SUSPENDED = { consumerKey: 'old-key', secret: 'old-secret-00000003', region: 'EU', active: false };

describe('in a browser: the console\'s Webhooks page', () => {
  let app: TestApp;
  let eu: EmulatorServer;

  before(async () => {
    app = await startTestApp({ ADMIN_PASSWORD: ADMIN_TEST_PASSWORD });
    await app.tool.afterListen();
    eu = await startEmulator({ accounts: [SUSPENDED], region: 'EU' });
    const euBaseUrl = eu.base;
    await app.tool.accounts.create({ id: 'suspended', name: 'Old contract', region: 'EU', baseUrl: euBaseUrl, consumerKey: SUSPENDED.consumerKey, secret: SUSPENDED.secret });
    // A result for an attempt the tool never launched: kept as unmatched.
    const [delivered] = await emulator(app).deliverWebhooks({ attempt_id: 'a0000000-0000-4000-8000-00000000000a', user_id: 'someone-else' });
    assert.equal(delivered?.status, 200);
  });
  after(async () => {
    await eu?.close();
    await app.close();
  });

  it('subscribes, lists, unsubscribes after confirming, shows unmatched deliveries and a refusal; no axe violations', async (t) => {
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      await page.goto(`${app.baseUrl}/admin/webhooks`);
      await page.fill('#password', ADMIN_TEST_PASSWORD);
      await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
      assert.match(page.url(), /\/admin\/webhooks$/);
      await assertNoAxeViolations(page, 'webhooks page');

      // The start-up subscription, marked as this tool's, and the unmatched delivery with its reason.
      const defaultSection = page.locator('section[aria-labelledby="account-default"]');
      assert.equal(await defaultSection.locator('tbody tr').count(), 1);
      assert.equal(await defaultSection.locator('[data-mark]').first().textContent(), 'this tool');
      assert.equal(await page.locator('#unmatched tbody tr').count(), 1);
      assert.match((await page.locator('#unmatched [data-cell="reason"]').textContent()) ?? '', /names an attempt_id this tool never launched/);
      assert.match((await page.locator('#unmatched').textContent()) ?? '', /a0000000-0000-4000-8000-00000000000a[\s\S]*someone-else/);

      // Subscribe version 2.
      await defaultSection.locator('select[name="version"]').selectOption('2');
      await Promise.all([page.waitForNavigation(), defaultSection.locator('button:has-text("Subscribe this tool")').click()]);
      assert.match((await page.locator('.notice-ok').textContent()) ?? '', /receiver was subscribed/);
      const v2 = emulator(app).subscriptions().find((s) => s.version === '2');
      assert.ok(v2, 'subscribed at the emulator');
      const row = page.locator(`tr[data-subscription="${v2.id}"]`);
      assert.match((await row.textContent()) ?? '', /version 2[\s\S]*this tool/);
      await assertNoAxeViolations(page, 'after subscribing');

      // Unsubscribe: a confirmation page first.
      await Promise.all([page.waitForNavigation(), row.locator('a:has-text("Unsubscribe")').click()]);
      assert.match((await page.locator('h1').textContent()) ?? '', new RegExp(`Unsubscribe ${v2.id}\\?`));
      await assertNoAxeViolations(page, 'unsubscribe confirmation');
      assert.ok(emulator(app).subscriptions().some((s) => s.id === v2.id), 'still subscribed before confirming');
      await Promise.all([page.waitForNavigation(), page.click('button:has-text("Unsubscribe")')]);
      assert.match((await page.locator('.notice-ok').textContent()) ?? '', /ended at the proctoring service/);
      assert.equal(emulator(app).subscriptions().some((s) => s.id === v2.id), false);
      assert.equal(await page.locator(`tr[data-subscription="${v2.id}"]`).count(), 0);

      // The service refuses the suspended account: said in words, on its section and when subscribing.
      const suspended = page.locator('section[aria-labelledby="account-suspended"]');
      assert.match((await suspended.textContent()) ?? '', /could not be read: .*not active/);
      await Promise.all([page.waitForNavigation(), suspended.locator('button:has-text("Subscribe this tool")').click()]);
      assert.match((await page.locator('#failure').textContent()) ?? '', /Subscribing Old contract \(suspended, region EU\) failed[\s\S]*not active/);
      await assertNoAxeViolations(page, 'refused subscription');
    });
  });

  it('"Subscribe this tool" again says it is already subscribed and makes no second subscription', async (t) => {
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      await page.goto(`${app.baseUrl}/admin/webhooks`);
      await page.fill('#password', ADMIN_TEST_PASSWORD);
      await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
      const defaultSection = page.locator('section[aria-labelledby="account-default"]');
      for (let press = 0; press < 2; press += 1) {
        await defaultSection.locator('select[name="version"]').selectOption('3');
        await Promise.all([page.waitForNavigation(), defaultSection.locator('button:has-text("Subscribe this tool")').click()]);
      }
      assert.match((await page.locator('.notice-ok').textContent()) ?? '', /already subscribed .*version 3.*nothing was changed/i);
      assert.equal(emulator(app).subscriptions().filter((s) => s.version === '3').length, 1, 'one version 3 subscription, the start-up one');
      assert.equal(await defaultSection.locator('tbody tr').count(), 1);
      await assertNoAxeViolations(page, 'already subscribed');
    });
  });
});
