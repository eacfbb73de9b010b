// Proctoring accounts per platform: launches of a platform go to its own account (region, base URL,
// credentials), a change takes effect at the next launch, and "test connection" explains 2154/2155/2655.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AccountInputError, AccountInUseError, DEFAULT_ACCOUNT_ID } from '../../../src/proctoring/accounts.js';
import { startEmulator, type EmulatorServer } from '../../helpers/proctoring.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { emulator, launchAs } from '../../helpers/launches.js';

const EU_ACCOUNT = { consumerKey: 'eu-campus-key', secret: 'eu-campus-secret-0001', region: 'EU', active: true };
const US_ONLY = { consumerKey: 'us-key', secret: 'us-secret-000000002', region: 'US', active: true };
const SUSPENDED = { consumerKey: 'old-key', secret: 'old-secret-00000003', region: 'EU', active: false };

describe('proctoring accounts per platform', () => {
  let app: TestApp;
  let eu: EmulatorServer;
  let euBaseUrl: string;
  let euEmulator: EmulatorServer['emulator'];
  let platform: { issuer: string; clientId: string };

  before(async () => {
    app = await startTestApp();
    eu = await startEmulator({ accounts: [EU_ACCOUNT, US_ONLY, SUSPENDED], region: 'EU' });
    euBaseUrl = eu.base;
    euEmulator = eu.emulator;
    const registration = app.tool.sandbox!.demoLms.registration;
    platform = { issuer: registration.issuer, clientId: registration.clientId };
  });
  after(async () => {
    await eu?.close();
    await app.close();
  });

  /** The EU account as an administrator might type it: region in lowercase, base URL with a trailing slash. */
  const addEuCampus = () =>
    app.tool.accounts.create({ id: 'eu-campus', name: 'EU campus', region: 'eu', baseUrl: `${euBaseUrl}/`, consumerKey: EU_ACCOUNT.consumerKey, secret: EU_ACCOUNT.secret });
  /** Puts the platform back on the default account and removes the accounts a test added. */
  const restore = async (...ids: string[]) => {
    await app.tool.accounts.assign(platform, DEFAULT_ACCOUNT_ID);
    for (const id of ids) await app.tool.accounts.remove(id);
  };

  it('refuses wrong input naming each field and the expected format', async () => {
    await assert.rejects(
      app.tool.accounts.create({ id: 'EU Campus', name: '', region: 'mars', baseUrl: 'ftp://x', consumerKey: 'k' }),
      (error: unknown) => {
        assert.ok(error instanceof AccountInputError);
        const fields = error.problems.map((p) => p.field).sort();
        assert.deepEqual(fields, ['baseUrl', 'id', 'name', 'region', 'secret'], 'the missing secret is named with the rest');
        assert.match(error.message, /lowercase letters, digits and dashes/);
        assert.match(error.message, /one of AU, CA, DE/);
        return true;
      },
    );
    await assert.rejects(app.tool.accounts.create({ id: 'x', name: 'X', region: 'EU', baseUrl: euBaseUrl, consumerKey: 'k' }), /secret: required/);
    await assert.rejects(app.tool.accounts.create({ id: 'default', name: 'X', region: 'EU', baseUrl: euBaseUrl, apiKey: 'abcdefghijkl' }), /'default' names the environment's account/);
  });

  it("sends a platform's launches to its own account, and back to the default one", async () => {
    try {
      const account = await addEuCampus();
      assert.equal(account.region, 'EU');
      assert.equal(account.baseUrl, euBaseUrl);
      assert.equal(account.hint, '0001');
      assert.equal(JSON.stringify(await app.tool.accounts.list()).includes(EU_ACCOUNT.secret), false, 'the secret is never listed');
      const stored = await app.db.query<{ credentials_sealed: string }>('SELECT credentials_sealed FROM proctoring_accounts WHERE id = $1', ['eu-campus']);
      assert.equal(stored.rows[0]!.credentials_sealed.includes(EU_ACCOUNT.secret), false, 'sealed at rest');

      await app.tool.accounts.assign(platform, 'eu-campus');
      const sandboxCalls = emulator(app).received.length;
      const euCalls = euEmulator.received.length;
      const launched = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
      assert.equal(launched.response.status, 302, launched.response.text.slice(0, 300));
      assert.ok(launched.response.headers.location?.startsWith(euBaseUrl), 'redirected to the EU service');
      assert.ok(euEmulator.received.length > euCalls, 'the EU service was called');
      const euCall = euEmulator.received.at(-1);
      assert.equal(euCall?.endpoint, '/v2/candidate/launch');
      assert.equal(euCall?.account, EU_ACCOUNT.consumerKey);
      assert.equal(euCall?.apiKeyValid, true);
      assert.equal(emulator(app).received.length, sandboxCalls, 'the default account was not called');

      await app.tool.accounts.assign(platform, DEFAULT_ACCOUNT_ID);
      const euCallsBefore = euEmulator.received.length;
      const back = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
      assert.equal(back.response.status, 302);
      assert.ok(emulator(app).received.length > sandboxCalls, 'the default account was called');
      assert.equal(emulator(app).received.at(-1)?.endpoint, '/v2/candidate/launch');
      assert.equal(euEmulator.received.length, euCallsBefore, 'the EU account was not called');
    } finally {
      await restore('eu-campus');
    }
  });

  it('uses changed credentials at the next launch (the cached client is replaced)', async () => {
    try {
      await addEuCampus();
      await app.tool.accounts.assign(platform, 'eu-campus');
      // A first launch leaves the tool a client with the EU credentials to replace.
      const first = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
      assert.equal(first.response.status, 302, first.response.text.slice(0, 300));
      assert.equal(euEmulator.received.at(-1)?.account, EU_ACCOUNT.consumerKey);

      await app.tool.accounts.update('eu-campus', { consumerKey: US_ONLY.consumerKey, secret: US_ONLY.secret });
      const wrongRegion = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
      assert.notEqual(wrongRegion.response.status, 302);
      assert.equal(euEmulator.received.at(-1)?.account, US_ONLY.consumerKey);
      await app.tool.accounts.update('eu-campus', { consumerKey: EU_ACCOUNT.consumerKey, secret: EU_ACCOUNT.secret });
      const fixed = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
      assert.equal(fixed.response.status, 302);
      assert.equal(euEmulator.received.at(-1)?.account, EU_ACCOUNT.consumerKey);
      await assert.rejects(app.tool.accounts.remove('eu-campus'), AccountInUseError);
    } finally {
      await restore('eu-campus');
    }
  });

  it('tests the connection and explains 2154, 2155 and 2655 in words', async () => {
    const cases = [
      { id: 'wrong-region', credentials: { consumerKey: US_ONLY.consumerKey, secret: US_ONLY.secret }, code: 'wrong_region', words: /another region.*set up for region EU at http/ },
      { id: 'suspended', credentials: { consumerKey: SUSPENDED.consumerKey, secret: SUSPENDED.secret }, code: 'account_inactive', words: /not active/ },
      { id: 'mistyped', credentials: { apiKey: 'not-a-known-key-at-all' }, code: 'invalid_api_key', words: /rejected the API key/ },
    ];
    try {
      await addEuCampus();
      const ok = await app.tool.accountClients.testConnection('eu-campus');
      assert.equal(ok.ok, true, ok.message);
      assert.match(ok.message, /accepted the credentials/);
      assert.equal((await app.tool.accountClients.testConnection(DEFAULT_ACCOUNT_ID)).ok, true);

      for (const { id, credentials, code, words } of cases) {
        await app.tool.accounts.create({ id, name: id, region: 'EU', baseUrl: euBaseUrl, ...credentials });
        const result = await app.tool.accountClients.testConnection(id);
        assert.equal(result.ok, false);
        assert.equal(result.code, code);
        assert.match(result.message, words);
        for (const value of Object.values(credentials)) assert.equal(result.message.includes(value), false, 'no credential in the message');
      }
    } finally {
      await restore('eu-campus', ...cases.map((c) => c.id));
    }
  });
});
