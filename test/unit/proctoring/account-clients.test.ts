import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { createAccountClients, type AccountClientsOptions } from '../../../src/proctoring/account-clients.js';
import type { AccountTarget } from '../../../src/proctoring/accounts.js';
import type { ProctoringClient, ProctoringClientOptions } from '../../../src/proctoring/client.js';
import { ProctoringUnavailable } from '../../../src/proctoring/errors.js';

interface FakeClient extends ProctoringClient {
  baseUrl: string;
  closed: number;
}

/**
 * The client cache per proctoring account: a default account that does not exist (sandbox CLI), an account
 * removed between two reads, one that never existed, a client that could not be built, and a connection test
 * that fails for another reason than the service's answer.
 */
describe('account clients', () => {
  let targets: Map<string, AccountTarget>;
  let built: FakeClient[];
  let listWebhooks: () => Promise<[]>;

  beforeEach(() => {
    targets = new Map([['acme', target('acme', 1)]]);
    built = [];
    listWebhooks = async () => [];
  });

  function target(accountId: string, version: number): AccountTarget {
    return { accountId, baseUrl: `https://${accountId}.proctoring.example`, region: 'EU', credentials: { apiKey: `key-${accountId}-${version}` }, version };
  }

  function fakeClient(options: ProctoringClientOptions): ProctoringClient {
    const unused = () => Promise.reject(new Error('not used here'));
    const client: FakeClient = {
      baseUrl: options.baseUrl,
      closed: 0,
      candidateLaunch: unused,
      reviewerLaunch: unused,
      liveLaunch: unused,
      launchpad: unused,
      listWebhooks: () => listWebhooks(),
      subscribe: unused,
      unsubscribe: unused,
      async close() {
        client.closed += 1;
      },
    };
    built.push(client);
    return client;
  }

  function clients(overrides: Partial<AccountClientsOptions> = {}) {
    return createAccountClients({
      accounts: {
        target: async (id) => targets.get(id),
        accountOf: async () => ({ accountId: 'acme', version: targets.get('acme')?.version ?? 0 }),
      },
      defaultTarget: { baseUrl: 'https://default.proctoring.example', credentials: { apiKey: 'default-key' } },
      timeoutMs: 1000,
      userAgent: 'test',
      createClient: fakeClient,
      ...overrides,
    });
  }

  it('builds one client per account version and keeps it', async () => {
    const accounts = clients();
    const first = await accounts.forAccount('acme');
    assert.equal(await accounts.forAccount('acme'), first);
    assert.equal(await accounts.forPlatform({ issuer: 'https://lms.example', clientId: 'c' }), first);
    assert.deepEqual(built.map((client) => client.baseUrl), ['https://default.proctoring.example', 'https://acme.proctoring.example']);
    await accounts.close();
  });

  it('without a default account (the sandbox CLI) says to start the tool', async () => {
    const accounts = clients({ defaultTarget: undefined });
    await assert.rejects(accounts.forAccount('default'), {
      message: "the environment's default account is the built-in emulator (sandbox mode), which runs inside the tool: start the tool and run the command again",
    });
    await assert.rejects(accounts.testConnection('default'), { message: "there is no proctoring account 'default'" });
    await accounts.close();
  });

  it('refuses an account that does not exist', async () => {
    const accounts = clients();
    await assert.rejects(accounts.forAccount('nobody'), { message: "there is no proctoring account 'nobody'" });
    await assert.rejects(accounts.testConnection('nobody'), { message: "there is no proctoring account 'nobody'" });
    assert.equal(built.length, 1, 'only the default client was built');
    await accounts.close();
  });

  it('refuses an account removed after its platform was looked up, and builds it again once it is back', async () => {
    const accounts = clients({ accounts: { target: async (id) => targets.get(id), accountOf: async () => ({ accountId: 'acme', version: 7 }) } });
    const platform = { issuer: 'https://lms.example', clientId: 'c' };
    targets.delete('acme');
    await assert.rejects(accounts.forPlatform(platform), { message: "proctoring account 'acme' no longer exists" });
    // The failed lookup is not kept: the account saved again is used at the next launch.
    targets.set('acme', target('acme', 7));
    const client = await accounts.forPlatform(platform);
    assert.equal(built.at(-1), client);
    await accounts.close();
  });

  it('replaces the client of a changed account and closes the old one after its grace period', async () => {
    const accounts = clients({ timeoutMs: 0 });
    const first = await accounts.forAccount('acme');
    targets.set('acme', target('acme', 2));
    const second = await accounts.forAccount('acme');
    assert.notEqual(second, first);
    const old = built.find((client) => client === first);
    assert.equal(old?.closed, 0, 'calls in flight may still use the old client');
    await accounts.close();
    assert.equal(old?.closed, 1);
  });

  it('a connection test reports the service\'s refusal as a result', async () => {
    listWebhooks = () => Promise.reject(new ProctoringUnavailable(503, 'webhooks_list'));
    const accounts = clients();
    const result = await accounts.testConnection('acme');
    assert.equal(result.ok, false);
    assert.equal(result.code, 'unavailable');
    assert.equal(result.baseUrl, 'https://acme.proctoring.example');
    assert.equal(result.message, new ProctoringUnavailable(503, 'webhooks_list').adminMessage);
    await accounts.close();
  });

  it('a connection test lets any other failure through', async () => {
    listWebhooks = () => Promise.reject(new TypeError('a bug, not an answer'));
    const accounts = clients();
    await assert.rejects(accounts.testConnection('acme'), { name: 'TypeError', message: 'a bug, not an answer' });
    await accounts.close();
  });

  it('a connection test that works says so', async () => {
    const accounts = clients();
    const result = await accounts.testConnection('default');
    assert.equal(result.ok, true);
    assert.equal(result.code, 'ok');
    assert.equal(result.baseUrl, 'https://default.proctoring.example');
    await accounts.close();
  });
});
