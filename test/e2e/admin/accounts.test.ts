import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAuditLog } from '../../../src/admin/audit.js';
import { platformKey } from '../../../src/lti/identifiers.js';
import { DEFAULT_ACCOUNT_ID } from '../../../src/proctoring/accounts.js';
import { startEmulator, type EmulatorServer } from '../../helpers/proctoring.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { ADMIN_TEST_PASSWORD, signedInAgent } from '../../helpers/admin.js';

const EU_ACCOUNT = { consumerKey: 'eu-campus-key', secret: 'eu-campus-secret-0001', region: 'EU', active: true };
const US_ONLY = { consumerKey: 'us-key', secret: 'us-secret-000000002', region: 'US', active: true };
const SUSPENDED = { consumerKey: 'old-key', secret: 'old-secret-00000003', region: 'EU', active: false };

describe('admin console: proctoring accounts per platform', () => {
  let app: TestApp;
  let admin: Awaited<ReturnType<typeof signedInAgent>>;
  let eu: EmulatorServer;
  let euBaseUrl: string;
  let platform: { issuer: string; clientId: string };
  let key: string;

  before(async () => {
    app = await startTestApp({ ADMIN_PASSWORD: ADMIN_TEST_PASSWORD });
    admin = await signedInAgent(app);
    eu = await startEmulator({ accounts: [EU_ACCOUNT, US_ONLY, SUSPENDED], region: 'EU' });
    euBaseUrl = eu.base;
    const registration = app.tool.sandbox!.demoLms.registration;
    platform = { issuer: registration.issuer, clientId: registration.clientId };
    key = platformKey(platform.issuer, platform.clientId);
  });
  after(async () => {
    await eu?.close();
    await app.close();
  });

  const save = async (fields: Record<string, string>) =>
    admin.agent.post(`/admin/accounts/${key}`).type('form').send({ _csrf: await admin.csrf(), ...fields });
  /** The platform on the default account, and no account of its own left from another test. */
  const useDefaultAccount = async () => {
    await app.tool.accounts.assign(platform, DEFAULT_ACCOUNT_ID);
    for (const account of await app.tool.accounts.list()) await app.tool.accounts.remove(account.id);
  };
  /** The platform on its own, working account, new (each test that needs one makes it). */
  const useEuCampus = async () => {
    await useDefaultAccount();
    const saved = await save({ id: 'eu-campus', name: 'EU campus', region: 'EU', baseUrl: euBaseUrl, credentialKind: 'consumer_key', consumerKey: EU_ACCOUNT.consumerKey, secret: EU_ACCOUNT.secret });
    assert.equal(saved.status, 303, saved.text.slice(0, 500));
  };
  const testConnection = async () => admin.agent.post(`/admin/accounts/${key}/test`).type('form').send({ _csrf: await admin.csrf() });

  it('lists each platform with the default account until it has its own', async () => {
    await useDefaultAccount();
    const page = await admin.agent.get('/admin/accounts').expect(200);
    assert.match(page.text, /Uses the default account/);
    const detail = await admin.agent.get(`/admin/accounts/${key}`).expect(200);
    assert.match(detail.text, /This platform uses the default account/);
  });

  it('tests the default account', async () => {
    await useDefaultAccount();
    const response = await testConnection();
    assert.equal(response.status, 200);
    assert.match(response.text, /Connection works/);
    assert.match(response.text, /accepted the credentials/);
  });

  it('refuses wrong fields with the expected format, keeps no secret in the page, and saves nothing', async () => {
    await useDefaultAccount();
    const response = await save({ id: 'EU Campus', name: '', region: 'mars', baseUrl: 'ftp://eu.example.com', credentialKind: 'consumer_key', consumerKey: 'k', secret: '' });
    assert.equal(response.status, 400);
    for (const message of [/Account id: must be 1–40 lowercase letters, digits and dashes, such as eu-campus/, /Name: must not be empty/, /Region: must be one of AU, CA/, /Base URL: must be the https base URL/]) {
      assert.match(response.text, message);
    }
    const missingSecret = await save({ id: 'eu-campus', name: 'EU campus', region: 'EU', baseUrl: euBaseUrl, credentialKind: 'consumer_key', consumerKey: 'k', secret: '' });
    assert.equal(missingSecret.status, 400);
    assert.match(missingSecret.text, /Secret: required with the consumer key/);
    const typedSecret = await save({ id: 'EU Campus', name: 'EU', region: 'EU', baseUrl: euBaseUrl, credentialKind: 'consumer_key', consumerKey: 'k', secret: 'typed-secret-never-echoed' });
    assert.equal(typedSecret.status, 400);
    assert.equal(typedSecret.text.includes('typed-secret-never-echoed'), false, 'a refused form does not send the secret back');
    assert.deepEqual(await app.tool.accounts.list(), []);
    assert.equal((await app.tool.accounts.accountOf(platform)).accountId, DEFAULT_ACCOUNT_ID);
  });

  it('refuses a form without its CSRF token', async () => {
    await useDefaultAccount();
    const response = await admin.agent.post(`/admin/accounts/${key}`).type('form').send({ id: 'eu-campus', name: 'EU', region: 'EU', baseUrl: euBaseUrl, consumerKey: 'k', secret: 's' });
    assert.equal(response.status, 403);
    assert.deepEqual(await app.tool.accounts.list(), []);
  });

  it('gives the platform its own account: shown with the last four characters only, audited without the secret', async () => {
    await useDefaultAccount();
    const response = await save({ id: 'eu-campus', name: 'EU campus', region: 'eu', baseUrl: `${euBaseUrl}/`, credentialKind: 'consumer_key', consumerKey: EU_ACCOUNT.consumerKey, secret: EU_ACCOUNT.secret });
    assert.equal(response.status, 303, response.text.slice(0, 500));
    assert.match(response.headers.location ?? '', /done=account-tested/);
    assert.equal((await app.tool.accounts.accountOf(platform)).accountId, 'eu-campus');
    const page = await admin.agent.get(response.headers.location ?? '').expect(200);
    assert.match(page.text, /proctoring service accepted the account: it was saved and is in use/);
    assert.match(page.text, /ending in <code>0001<\/code>/);
    assert.equal(page.text.includes(EU_ACCOUNT.secret), false, 'the secret is never shown');
    const list = await admin.agent.get('/admin/accounts').expect(200);
    assert.match(list.text, /EU campus/);
    const audit = await createAuditLog(app.db).list({ limit: 10 });
    assert.deepEqual(audit.slice(0, 2).map((e) => e.action).sort(), ['account.add', 'platform.account']);
    assert.equal(JSON.stringify(audit).includes(EU_ACCOUNT.secret), false, 'never audited');
    const tested = await testConnection();
    assert.match(tested.text, /Connection works/);
  });

  it('keeps the saved secret when the field is left empty', async () => {
    await useEuCampus();
    const response = await save({ id: 'eu-campus', name: 'EU campus (Dublin)', region: 'EU', baseUrl: euBaseUrl, credentialKind: 'consumer_key', consumerKey: EU_ACCOUNT.consumerKey, secret: '' });
    assert.equal(response.status, 303, response.text.slice(0, 500));
    const target = await app.tool.accounts.target('eu-campus');
    assert.deepEqual(target?.credentials, { consumerKey: EU_ACCOUNT.consumerKey, secret: EU_ACCOUNT.secret });
    assert.equal((await app.tool.accounts.get('eu-campus'))?.name, 'EU campus (Dublin)');
    const [entry] = await createAuditLog(app.db).list({ action: 'account.update' });
    assert.deepEqual(entry!.changes.map((c) => c.field), ['name']);
  });

  const failures: Array<{ code: number; fields: Record<string, string>; words: RegExp }> = [
    { code: 2155, fields: { credentialKind: 'consumer_key', consumerKey: US_ONLY.consumerKey, secret: US_ONLY.secret }, words: /another region than this base URL \(code 2155\)/ },
    { code: 2154, fields: { credentialKind: 'consumer_key', consumerKey: SUSPENDED.consumerKey, secret: SUSPENDED.secret }, words: /account is not active \(code 2154\)/ },
    { code: 2655, fields: { credentialKind: 'api_key', apiKey: 'not-a-known-key-at-all' }, words: /rejected the API key \(code 2655\)/ },
  ];
  for (const failure of failures) {
    it(`a save the service refuses (${failure.code}) changes nothing: the form again, with the cause in words`, async () => {
      await useEuCampus();
      const before = await app.tool.accounts.target('eu-campus');
      const response = await save({ id: 'eu-campus', name: 'EU campus', region: 'EU', baseUrl: euBaseUrl, ...failure.fields });
      assert.equal(response.status, 400, response.text.slice(0, 500));
      assert.match(response.text, /Not saved: the service did not accept the new account/);
      assert.match(response.text, failure.words);
      for (const value of Object.values(failure.fields)) assert.equal(response.text.includes(value) && value.length > 12, false, 'no credential in the page');
      assert.deepEqual(await app.tool.accounts.target('eu-campus'), before, 'the old account stays in use');
      assert.equal((await app.tool.accounts.accountOf(platform)).accountId, 'eu-campus');
    });
  }

  it('a new account the service refuses is not created: the platform keeps the default one', async () => {
    const response = await admin.agent.post(`/admin/accounts/${key}/remove`).type('form').send({ _csrf: await admin.csrf() });
    assert.equal(response.status, 303);
    const refused = await save({ id: 'eu-campus', name: 'EU campus', region: 'EU', baseUrl: euBaseUrl, credentialKind: 'consumer_key', consumerKey: SUSPENDED.consumerKey, secret: SUSPENDED.secret });
    assert.equal(refused.status, 400);
    assert.match(refused.text, /account is not active \(code 2154\)/);
    assert.equal(await app.tool.accounts.get('eu-campus'), undefined);
    assert.equal((await app.tool.accounts.accountOf(platform)).accountId, DEFAULT_ACCOUNT_ID);
    const saved = await save({ id: 'eu-campus', name: 'EU campus', region: 'EU', baseUrl: euBaseUrl, credentialKind: 'consumer_key', consumerKey: EU_ACCOUNT.consumerKey, secret: EU_ACCOUNT.secret });
    assert.equal(saved.status, 303, saved.text.slice(0, 500));
    assert.equal((await app.tool.accounts.accountOf(platform)).accountId, 'eu-campus');
  });

  it('"Test connection" explains in words a saved account the service stopped accepting', async () => {
    await useEuCampus();
    EU_ACCOUNT.active = false;
    try {
      const response = await testConnection();
      assert.equal(response.status, 200);
      assert.match(response.text, /Connection test failed/);
      assert.match(response.text, /account is not active \(code 2154\)/);
    } finally {
      EU_ACCOUNT.active = true;
    }
  });

  it('refuses switching to an API key without one', async () => {
    await useEuCampus();
    const response = await save({ id: 'eu-campus', name: 'EU campus', region: 'EU', baseUrl: euBaseUrl, credentialKind: 'api_key', apiKey: '' });
    assert.equal(response.status, 400);
    assert.match(response.text, /API key: required to change this account to a ready API key/);
  });

  it('removes the account: the platform goes back to the default one', async () => {
    await useEuCampus();
    const response = await admin.agent.post(`/admin/accounts/${key}/remove`).type('form').send({ _csrf: await admin.csrf() });
    assert.equal(response.status, 303);
    assert.equal((await app.tool.accounts.accountOf(platform)).accountId, DEFAULT_ACCOUNT_ID);
    assert.equal(await app.tool.accounts.get('eu-campus'), undefined);
    const actions = (await createAuditLog(app.db).list({ limit: 2 })).map((e) => e.action).sort();
    assert.deepEqual(actions, ['account.remove', 'platform.account']);
  });
});
