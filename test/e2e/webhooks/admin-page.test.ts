// The console's Webhooks page against the real app and the Launch API emulator over HTTP: one section per proctoring
// account with its subscriptions and marks; subscribe and unsubscribe (CSRF, audit log, confirmation); refusals of
// the service in words; unmatched deliveries with the reason, 50 per page.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { UNMATCHED_PAGE_SIZE } from '../../../src/admin/pages/webhooks.js';
import { readSuspicionResult } from '../../../src/webhooks/delivery.js';
import { startEmulator, type EmulatorServer } from '../../helpers/proctoring.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { ADMIN_TEST_PASSWORD, csrfFrom, signedInAgent } from '../../helpers/admin.js';
import { emulator } from '../../helpers/launches.js';

const EU_ACCOUNT = { consumerKey: 'eu-campus-key', secret: 'eu-campus-secret-0001', region: 'EU', active: true };
const SUSPENDED = { consumerKey: 'old-key', secret: 'old-secret-00000003', region: 'EU', active: false };

describe('admin console: Webhooks', () => {
  let app: TestApp;
  let eu: EmulatorServer;
  let euEmulator: EmulatorServer['emulator'];
  let admin: Awaited<ReturnType<typeof signedInAgent>>;

  before(async () => {
    app = await startTestApp({ ADMIN_PASSWORD: ADMIN_TEST_PASSWORD });
    await app.tool.afterListen();
    eu = await startEmulator({ accounts: [EU_ACCOUNT, SUSPENDED], region: 'EU' });
    const euBaseUrl = eu.base;
    euEmulator = eu.emulator;
    await app.tool.accounts.create({ id: 'eu-campus', name: 'EU campus', region: 'EU', baseUrl: euBaseUrl, consumerKey: EU_ACCOUNT.consumerKey, secret: EU_ACCOUNT.secret });
    await app.tool.accounts.create({ id: 'suspended', name: 'Old contract', region: 'EU', baseUrl: euBaseUrl, consumerKey: SUSPENDED.consumerKey, secret: SUSPENDED.secret });
    admin = await signedInAgent(app);
  });
  after(async () => {
    await eu?.close();
    await app.close();
  });

  it('shows one section per account, with marks and counts; an account the service refuses says why', async () => {
    const page = await admin.agent.get('/admin/webhooks').expect(200);
    assert.match(page.text, /<a href="\/admin\/webhooks" aria-current="page">Webhooks<\/a>/, 'in the navigation');
    assert.match(page.text, /<h2 id="account-default">Sandbox account \(emulator\)<\/h2>/);
    assert.match(page.text, /<h2 id="account-eu-campus">EU campus \(eu-campus, region EU\)<\/h2>/);
    assert.match(page.text, /No subscriptions: this account sends no results to the tool\./);
    const sandbox = emulator(app).subscriptions()[0]!;
    assert.match(page.text, new RegExp(`<tr data-subscription="${sandbox.id}">[\\s\\S]*?this tool[\\s\\S]*?data-cell="deliveries">0`));
    assert.match(page.text, /The subscriptions could not be read: .*not active/);
  });

  it('subscribes only with the CSRF token, version 3 by default or 2, and records it in the audit log', async () => {
    await admin.agent.post('/admin/webhooks/subscribe').type('form').send({ account: 'eu-campus', version: '2' }).expect(403);
    assert.equal(euEmulator.subscriptions().length, 0);
    const csrf = await admin.csrf();
    const done = await admin.agent.post('/admin/webhooks/subscribe').type('form').send({ _csrf: csrf, account: 'eu-campus', version: '2' }).expect(303);
    assert.equal(done.headers.location, '/admin/webhooks?done=webhook-subscribed');
    await admin.agent.post('/admin/webhooks/subscribe').type('form').send({ _csrf: csrf, account: 'eu-campus' }).expect(303);
    assert.deepEqual(euEmulator.subscriptions().map((s) => s.version), ['2', '3']);
    for (const s of euEmulator.subscriptions()) assert.match(s.url, new RegExp(`^${app.baseUrl}/webhooks/proctoring/[A-Za-z0-9_-]{32}$`));
    const [entry] = (await app.db.query<{ action: string; target: string; source: string }>("SELECT action, target, source FROM admin_audit_log WHERE action LIKE 'webhook.%' ORDER BY id DESC")).rows;
    assert.deepEqual(entry, { action: 'webhook.subscribe', target: 'account eu-campus', source: 'console' });
    const page = await admin.agent.get('/admin/webhooks?done=webhook-subscribed').expect(200);
    assert.match(page.text, /The tool&#39;s receiver was subscribed\./);
  });

  it('refuses in words: the service refusing the account, an unknown account, a wrong version', async () => {
    const csrf = await admin.csrf();
    const inactive = await admin.agent.post('/admin/webhooks/subscribe').type('form').send({ _csrf: csrf, account: 'suspended' }).expect(502);
    assert.match(inactive.text, /Subscribing Old contract \(suspended, region EU\) failed/);
    assert.match(inactive.text, /not active/);
    assert.equal(inactive.text.includes(SUSPENDED.secret), false);
    const unknown = await admin.agent.post('/admin/webhooks/subscribe').type('form').send({ _csrf: csrf, account: 'nope' }).expect(400);
    assert.match(unknown.text, /There is no such proctoring account\./);
    const version = await admin.agent.post('/admin/webhooks/subscribe').type('form').send({ _csrf: csrf, account: 'default', version: '4' }).expect(400);
    assert.match(version.text, /The version must be 2 or 3\./);
    const audited = await app.db.query("SELECT 1 FROM admin_audit_log WHERE target IN ('account suspended', 'account nope')");
    assert.equal(audited.rows.length, 0);
  });

  it('unsubscribes after a confirmation page, and audits it', async () => {
    const [v2] = euEmulator.subscriptions();
    const confirm = await admin.agent.get(`/admin/webhooks/unsubscribe?account=eu-campus&id=${v2!.id}`).expect(200);
    assert.match(confirm.text, new RegExp(`Unsubscribe <code>${v2!.id}</code>\\?`));
    assert.match(confirm.text, /this tool/);
    assert.equal(euEmulator.subscriptions().length, 2, 'nothing changes before the confirmation');
    await admin.agent.post('/admin/webhooks/unsubscribe').type('form').send({ account: 'eu-campus', id: v2!.id }).expect(403);
    const done = await admin.agent.post('/admin/webhooks/unsubscribe').type('form').send({ _csrf: csrfFrom(confirm.text), account: 'eu-campus', id: v2!.id }).expect(303);
    assert.equal(done.headers.location, '/admin/webhooks?done=webhook-unsubscribed');
    assert.deepEqual(euEmulator.subscriptions().map((s) => s.version), ['3']);
    const audit = await admin.agent.get('/admin/audit').expect(200);
    assert.match(audit.text, /Ended a suspicion-result subscription/);
  });

  it('lists unmatched deliveries with the ids they carried and the reason, 50 per page', async () => {
    const subscription = (await app.tool.webhooks.store.list({ accountRef: 'default' }))[0]!;
    for (let i = 0; i < UNMATCHED_PAGE_SIZE + 5; i += 1) {
      const data = { id: `result-${i}`, attempt_id: `c0000000-0000-4000-8000-${String(i).padStart(12, '0')}`, user_id: `user-<b>${i}</b>`, suspicion: 10 };
      await app.tool.webhooks.store.insertDelivery({
        subscriptionId: subscription.id,
        dataSha256: `sha-${i}`,
        verifiedBy: 'api_key',
        webhookType: '1',
        dataRaw: JSON.stringify(data),
        result: { ...readSuspicionResult(data, '3'), problems: ['unmatched_unknown_user_or_exam'] },
      });
    }
    const first = await admin.agent.get('/admin/webhooks').expect(200);
    assert.match(first.text, /55 in all\./);
    assert.equal((first.text.match(/data-cell="reason"/g) ?? []).length, UNMATCHED_PAGE_SIZE);
    assert.match(first.text, /No attempt of this candidate \(in this exam\) was launched through this proctoring account\./);
    assert.match(first.text, /user-&lt;b&gt;54&lt;\/b&gt;/, 'escaped');
    assert.match(first.text, /Page 1 of 2/);
    const second = await admin.agent.get('/admin/webhooks?page=2').expect(200);
    assert.equal((second.text.match(/data-cell="reason"/g) ?? []).length, 5);
    assert.match(second.text, /c0000000-0000-4000-8000-000000000000/);
    assert.match(second.text, /Suspicion result, version 3/);
  });
});
