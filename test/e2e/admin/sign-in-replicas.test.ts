import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import express from 'express';
import supertest from 'supertest';
import { createAdminConsole } from '../../../src/admin/index.js';
import { createContextStore } from '../../../src/hosted/contexts.js';
import { createInstitutionSettingsStore } from '../../../src/institution/settings.js';
import { createPlatformActivity } from '../../../src/lti/platform-activity.js';
import { createRefusedRegistrations } from '../../../src/lti/refused-registrations.js';
import { createLogger } from '../../../src/logger.js';
import { startTestApp, TEST_ENCRYPTION_KEY, type TestApp } from '../../helpers/app.js';
import { ADMIN_TEST_PASSWORD, csrfFrom } from '../../helpers/admin.js';

/**
 * Two instances of the console on one database, as two replicas behind a load balancer: the tool itself, and
 * a second console built like the tool builds its own (its own process memory, the same database). Wrong
 * passwords sent to either count for both, so the lockout holds whichever instance answers.
 */
describe('admin sign-in lockout across instances on one database', () => {
  let app: TestApp;
  let second: Server;
  let secondUrl: string;
  before(async () => {
    app = await startTestApp({ ADMIN_PASSWORD: ADMIN_TEST_PASSWORD });
    const db = app.db;
    const lti = app.tool.lti;
    const views = express();
    views.set('views', app.tool.app.get('views') as string);
    views.set('view engine', 'ejs');
    views.use(
      '/admin',
      createAdminConsole({
        config: app.config,
        db,
        lti,
        logger: createLogger('silent'),
        secret: TEST_ENCRYPTION_KEY,
        refusedRegistrations: createRefusedRegistrations(db, async () => ({ known: true })),
        platformActivity: createPlatformActivity(db),
        institutions: createInstitutionSettingsStore(db),
        contexts: createContextStore(db, { pseudonymSecret: 'unused' }),
        pseudonyms: 'unused',
        accounts: app.tool.accounts,
        accountClients: app.tool.accountClients,
        webhooks: app.tool.webhooks.subscriptions,
      }).router,
    );
    second = createServer(views);
    await new Promise<void>((resolve) => second.listen(0, '127.0.0.1', resolve));
    secondUrl = `http://127.0.0.1:${(second.address() as AddressInfo).port}`;
  });
  after(async () => {
    second.closeAllConnections();
    await new Promise<void>((resolve) => second.close(() => resolve()));
    await app.close();
  });

  const attempt = async (baseUrl: string, password: string) => {
    const agent = supertest.agent(baseUrl);
    const token = csrfFrom((await agent.get('/admin/sign-in').expect(200)).text);
    return (await agent.post('/admin/sign-in').type('form').send({ _csrf: token, password })).status;
  };

  it('counts wrong passwords on both instances together and locks the address out on both', async () => {
    // Five wrong passwords, spread over the two instances, three of them at the same time.
    assert.equal(await attempt(app.baseUrl, 'wrong password 1'), 401);
    assert.equal(await attempt(secondUrl, 'wrong password 2'), 401);
    const together = await Promise.all([attempt(app.baseUrl, 'wrong password 3'), attempt(secondUrl, 'wrong password 4'), attempt(app.baseUrl, 'wrong password 5')]);
    assert.deepEqual(together, [401, 401, 401]);
    // Each instance alone saw at most three: only the shared count reaches the limit.
    assert.equal(await attempt(app.baseUrl, ADMIN_TEST_PASSWORD), 429, 'locked on the first instance, even with the right password');
    assert.equal(await attempt(secondUrl, ADMIN_TEST_PASSWORD), 429, 'locked on the second instance too');
    const { rows } = await app.db.query<{ failures: number }>("SELECT failures FROM admin_sign_in_failures WHERE address <> '*'");
    assert.equal(rows.length, 1, 'one address');
    assert.ok(rows[0]!.failures >= 5);
  });

  it('attempts at the same time on both instances cannot pass the limit together', async () => {
    await app.db.query('DELETE FROM admin_sign_in_failures');
    const statuses = await Promise.all(Array.from({ length: 8 }, (_, i) => attempt(i % 2 === 0 ? app.baseUrl : secondUrl, `wrong password ${i}`)));
    assert.equal(statuses.filter((status) => status === 401).length, 5, `five refused as wrong, the rest locked out: ${statuses.join(', ')}`);
    assert.equal(statuses.filter((status) => status === 429).length, 3);
  });

  it('a successful sign-in does not count as a failure', async () => {
    await app.db.query('DELETE FROM admin_sign_in_failures');
    assert.equal(await attempt(secondUrl, ADMIN_TEST_PASSWORD), 303);
    assert.equal(await attempt(app.baseUrl, ADMIN_TEST_PASSWORD), 303);
    const { rows } = await app.db.query<{ failures: number }>('SELECT failures FROM admin_sign_in_failures');
    assert.ok(rows.every((row) => row.failures === 0));
  });
});
