import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { ADMIN_TEST_PASSWORD } from '../../helpers/admin.js';
import { signInByKeyboard } from '../../helpers/admin-browser.js';
import { assertNoAxeViolations } from '../../helpers/axe.js';
import { withBrowser } from '../../helpers/browser.js';

describe('in a browser: "Add this client…" gives the new platform a name of its own', () => {
  let app: TestApp;
  let template: { issuer: string; clientId: string; name: string };
  before(async () => {
    app = await startTestApp({ ADMIN_PASSWORD: ADMIN_TEST_PASSWORD });
    const { issuer, clientId } = app.tool.sandbox!.demoLms.registration;
    const registered = (await app.tool.lti.platforms.list()).find((p) => p.issuer === issuer && p.clientId === clientId);
    assert.ok(registered);
    template = { issuer, clientId, name: registered.name };
    await app.db.query("INSERT INTO lti_refused_registrations (issuer, client_id, deployment_id, reason) VALUES ($1, 'second-key-42', 'dep-1', 'unknown_client')", [issuer]);
  });
  after(async () => {
    await app.close();
  });

  it('refuses the name of another platform with a clear message, then adds the client under the suggested name', async (t) => {
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      await signInByKeyboard(page, app.baseUrl);
      await page.goto(`${app.baseUrl}/admin/platforms`);
      await Promise.all([page.waitForNavigation(), page.click('a:has-text("Add this client")')]);
      const suggested = await page.inputValue('#name');
      assert.notEqual(suggested, template.name, 'the suggested name is not the existing platform\'s');
      assert.match(suggested, /second-key-42/);
      await assertNoAxeViolations(page, 'add a client');

      await page.fill('#name', template.name);
      await Promise.all([page.waitForNavigation(), page.click('button:has-text("Add this client")')]);
      assert.match(await page.textContent('#name-error') ?? '', /already named/);
      assert.equal((await app.tool.lti.platforms.list()).some((p) => p.clientId === 'second-key-42'), false, 'nothing added');
      await assertNoAxeViolations(page, 'name refused');

      await page.fill('#name', suggested);
      await Promise.all([page.waitForNavigation(), page.click('button:has-text("Add this client")')]);
      assert.match(await page.textContent('.notice-ok') ?? '', /client id was registered/);
      const names = (await app.tool.lti.platforms.list()).map((p) => p.name);
      assert.equal(new Set(names).size, names.length, 'every platform has its own name');
      assert.ok(names.includes(suggested));
    });
  });
});
