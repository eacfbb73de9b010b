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
  let admin: Awaited<ReturnType<typeof signedInAgent>>;
  const emulators: EmulatorServer[] = [];

  before(async () => {
    app = await startTestApp({ ADMIN_PASSWORD: ADMIN_TEST_PASSWORD });
    await app.tool.afterListen();
    admin = await signedInAgent(app);
  });
  after(async () => {
    for (const server of emulators) await server.close();
    await app.close();
  });

  /**
   * A test's own EU service (an emulator) and its two accounts in the tool: an active one without subscriptions
   * and a suspended one. No test sees another's subscriptions.
   */
  let made = 0;
  async function euAccounts() {
    made += 1;
    const server = await startEmulator({ accounts: [EU_ACCOUNT, SUSPENDED], region: 'EU' });
    emulators.push(server);
    const active = { id: `eu-campus-${made}`, name: `EU campus ${made}` };
    const suspended = { id: `suspended-${made}`, name: `Old contract ${made}` };
    await app.tool.accounts.create({ ...active, region: 'EU', baseUrl: server.base, consumerKey: EU_ACCOUNT.consumerKey, secret: EU_ACCOUNT.secret });
    await app.tool.accounts.create({ ...suspended, region: 'EU', baseUrl: server.base, consumerKey: SUSPENDED.consumerKey, secret: SUSPENDED.secret });
    return { active, suspended, euEmulator: server.emulator };
  }

  it('shows one section per account, with marks and counts; an account the service refuses says why', async () => {
    const { active, suspended } = await euAccounts();
    const page = await admin.agent.get('/admin/webhooks').expect(200);
    assert.match(page.text, /<a href="\/admin\/webhooks" aria-current="page">Webhooks<\/a>/, 'in the navigation');
    assert.match(page.text, /<h2 id="account-default">Sandbox account \(emulator\)<\/h2>/);
    const section = (id: string) => page.text.slice(page.text.indexOf(`<h2 id="account-${id}">`)).split('<h2 ')[1] ?? '';
    assert.match(section(active.id), new RegExp(`^id="account-${active.id}">${active.name} \\(${active.id}, region EU\\)</h2>`));
    assert.match(section(active.id), /No subscriptions: this account sends no results to the tool\./);
    const sandbox = emulator(app).subscriptions()[0]!;
    assert.match(page.text, new RegExp(`<tr data-subscription="${sandbox.id}">[\\s\\S]*?this tool[\\s\\S]*?data-cell="deliveries">0`));
    assert.match(section(suspended.id), /The subscriptions could not be read: .*not active/);
  });

  it('subscribes only with the CSRF token, version 3 by default or 2, and records it in the audit log', async () => {
    const { active, euEmulator } = await euAccounts();
    await admin.agent.post('/admin/webhooks/subscribe').type('form').send({ account: active.id, version: '2' }).expect(403);
    assert.equal(euEmulator.subscriptions().length, 0);
    const csrf = await admin.csrf();
    const done = await admin.agent.post('/admin/webhooks/subscribe').type('form').send({ _csrf: csrf, account: active.id, version: '2' }).expect(303);
    assert.equal(done.headers.location, '/admin/webhooks?done=webhook-subscribed');
    await admin.agent.post('/admin/webhooks/subscribe').type('form').send({ _csrf: csrf, account: active.id }).expect(303);
    assert.deepEqual(euEmulator.subscriptions().map((s) => s.version), ['2', '3']);
    for (const s of euEmulator.subscriptions()) assert.match(s.url, new RegExp(`^${app.baseUrl}/webhooks/proctoring/[A-Za-z0-9_-]{32}$`));
    const [entry] = (await app.db.query<{ action: string; target: string; source: string }>("SELECT action, target, source FROM admin_audit_log WHERE action LIKE 'webhook.%' ORDER BY id DESC")).rows;
    assert.deepEqual(entry, { action: 'webhook.subscribe', target: `account ${active.id}`, source: 'console' });
    const page = await admin.agent.get('/admin/webhooks?done=webhook-subscribed').expect(200);
    assert.match(page.text, /The tool&#39;s receiver was subscribed\./);
  });

  it('refuses in words: the service refusing the account, an unknown account, a wrong version', async () => {
    const { suspended } = await euAccounts();
    const csrf = await admin.csrf();
    const inactive = await admin.agent.post('/admin/webhooks/subscribe').type('form').send({ _csrf: csrf, account: suspended.id }).expect(502);
    assert.match(inactive.text, new RegExp(`Subscribing ${suspended.name} \\(${suspended.id}, region EU\\) failed`));
    assert.match(inactive.text, /not active/);
    assert.equal(inactive.text.includes(SUSPENDED.secret), false);
    const unknown = await admin.agent.post('/admin/webhooks/subscribe').type('form').send({ _csrf: csrf, account: 'nope' }).expect(400);
    assert.match(unknown.text, /There is no such proctoring account\./);
    const version = await admin.agent.post('/admin/webhooks/subscribe').type('form').send({ _csrf: csrf, account: 'default', version: '4' }).expect(400);
    assert.match(version.text, /The version must be 2 or 3\./);
    const audited = await app.db.query('SELECT 1 FROM admin_audit_log WHERE target IN ($1, $2)', [`account ${suspended.id}`, 'account nope']);
    assert.equal(audited.rows.length, 0);
  });

  it('unsubscribes after a confirmation page, and audits it', async () => {
    const { active, euEmulator } = await euAccounts();
    const csrf = await admin.csrf();
    for (const version of ['2', '3']) await admin.agent.post('/admin/webhooks/subscribe').type('form').send({ _csrf: csrf, account: active.id, version }).expect(303);
    const [v2] = euEmulator.subscriptions();
    const confirm = await admin.agent.get(`/admin/webhooks/unsubscribe?account=${active.id}&id=${v2!.id}`).expect(200);
    assert.match(confirm.text, new RegExp(`Unsubscribe <code>${v2!.id}</code>\\?`));
    assert.match(confirm.text, /this tool/);
    assert.equal(euEmulator.subscriptions().length, 2, 'nothing changes before the confirmation');
    await admin.agent.post('/admin/webhooks/unsubscribe').type('form').send({ account: active.id, id: v2!.id }).expect(403);
    const done = await admin.agent.post('/admin/webhooks/unsubscribe').type('form').send({ _csrf: csrfFrom(confirm.text), account: active.id, id: v2!.id }).expect(303);
    assert.equal(done.headers.location, '/admin/webhooks?done=webhook-unsubscribed');
    assert.deepEqual(euEmulator.subscriptions().map((s) => s.version), ['3']);
    const audit = await admin.agent.get('/admin/audit').expect(200);
    assert.match(audit.text, /Ended a suspicion-result subscription/);
  });

  it('lists unmatched deliveries with the ids they carried and the reason, 50 per page', async () => {
    // On a subscription of its own: the sandbox account's delivery count stays what the other tests expect.
    const { active } = await euAccounts();
    await admin.agent.post('/admin/webhooks/subscribe').type('form').send({ _csrf: await admin.csrf(), account: active.id }).expect(303);
    const subscription = (await app.tool.webhooks.store.list({ accountRef: active.id }))[0]!;
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
