import { DEFAULT_ACCOUNT_ID, type AccountId, type PlatformRef, type ProctoringAccountStore } from './accounts.js';
import { DEFAULT_LOCALE, translator, wording, type Wording } from '../i18n/index.js';
import type { ProctoringCredentials } from './api-key.js';
import type { Region } from '../config.js';
import { createProctoringClient, type ProctoringClient } from './client.js';
import { ProctoringError } from './errors.js';

export interface AccountClients {
  /** The client of the account the platform uses (its own, or the environment's default). */
  forPlatform(platform: PlatformRef): Promise<ProctoringClient>;
  /** The client of one account; `default` is the environment's. Throws when there is no such account. */
  forAccount(accountId: AccountId): Promise<ProctoringClient>;
  /** Calls the service as the account and says in words whether, and why not, it works. */
  testConnection(accountId: AccountId): Promise<ConnectionTestResult>;
  /**
   * The same test for an account not saved yet (or a change not saved yet), with a client of its own that is
   * closed afterwards: a save tests the new values before they replace the old ones.
   */
  testCandidate(accountId: AccountId, target: ConnectionTarget): Promise<ConnectionTestResult>;
  close(): Promise<void>;
}

export interface ConnectionTestResult {
  ok: boolean;
  accountId: AccountId;
  baseUrl: string;
  /** A stable code: 'ok', or the client's error code (account_inactive, wrong_region, invalid_api_key, …). */
  code: string;
  /** For the administrator: what happened and what to do, in English (the command line, logs). */
  message: string;
  /** The same in the reader's language (the admin console). */
  words: Wording;
}

/** Where and as whom the service is called. */
export interface ConnectionTarget {
  baseUrl: string;
  region?: Region;
  credentials: ProctoringCredentials;
}

export interface AccountClientsOptions {
  accounts: Pick<ProctoringAccountStore, 'accountOf' | 'target'>;
  /** The environment's account (PROCTORING_* or the sandbox's); undefined where there is none (the CLI in sandbox mode). */
  defaultTarget: ConnectionTarget | undefined;
  timeoutMs: number;
  userAgent: string;
  /** Builds a client; tests may count them. */
  createClient?: typeof createProctoringClient;
}

/**
 * One proctoring client per account, kept while the account is unchanged. Each lookup reads the account's
 * version (its `updated_at`) from the database, so a change saved by the console, the CLI or another replica
 * replaces the client at the next launch; the replaced client is closed after a grace period for calls in flight.
 */
export function createAccountClients(options: AccountClientsOptions): AccountClients {
  const create = options.createClient ?? createProctoringClient;
  const build = (target: ConnectionTarget) =>
    create({ baseUrl: target.baseUrl, region: target.region, credentials: target.credentials, timeoutMs: options.timeoutMs, userAgent: options.userAgent });
  const defaultClient = options.defaultTarget ? build(options.defaultTarget) : undefined;
  const cache = new Map<AccountId, { version: number; client: Promise<ProctoringClient> }>();
  const retiring = new Set<ProctoringClient>();

  function retire(client: ProctoringClient): void {
    retiring.add(client);
    const timer = setTimeout(() => {
      retiring.delete(client);
      void client.close().catch(() => undefined);
    }, options.timeoutMs + 1000);
    timer.unref();
  }

  async function clientOf(accountId: AccountId, version: number): Promise<ProctoringClient> {
    if (accountId === DEFAULT_ACCOUNT_ID) {
      if (!defaultClient) throw new Error("the environment's default account is the built-in emulator (sandbox mode), which runs inside the tool: start the tool and run the command again");
      return defaultClient;
    }
    const cached = cache.get(accountId);
    if (cached && cached.version === version) return cached.client;
    const client = (async () => {
      const target = await options.accounts.target(accountId);
      if (!target) throw new Error(`proctoring account '${accountId}' no longer exists`);
      return build(target);
    })();
    cache.set(accountId, { version, client });
    client.catch(() => cache.get(accountId)?.client === client && cache.delete(accountId));
    if (cached) void cached.client.then(retire, () => undefined);
    return client;
  }

  async function versionOf(accountId: AccountId): Promise<number> {
    if (accountId === DEFAULT_ACCOUNT_ID) return 0;
    const target = await options.accounts.target(accountId);
    if (!target) throw new Error(`there is no proctoring account '${accountId}'`);
    return target.version;
  }

  return {
    async forPlatform(platform) {
      const { accountId, version } = await options.accounts.accountOf(platform);
      return clientOf(accountId, version);
    },
    async forAccount(accountId) {
      return clientOf(accountId, await versionOf(accountId));
    },
    async testConnection(accountId) {
      const target = accountId === DEFAULT_ACCOUNT_ID ? options.defaultTarget : await options.accounts.target(accountId);
      if (!target) throw new Error(`there is no proctoring account '${accountId}'`);
      return connectionTest(accountId, target.baseUrl, await this.forAccount(accountId));
    },
    async testCandidate(accountId, target) {
      const client = build(target);
      try {
        return await connectionTest(accountId, target.baseUrl, client);
      } finally {
        await client.close().catch(() => undefined);
      }
    },
    async close() {
      const clients = await Promise.allSettled([...cache.values()].map((entry) => entry.client));
      cache.clear();
      await Promise.allSettled([
        defaultClient?.close(),
        ...clients.flatMap((result) => (result.status === 'fulfilled' ? [result.value.close()] : [])),
        ...[...retiring].map((client) => client.close()),
      ]);
      retiring.clear();
    },
  };
}

/** Lists the account's webhook subscriptions (a call every account may make) and says how that went. */
async function connectionTest(accountId: AccountId, baseUrl: string, client: ProctoringClient): Promise<ConnectionTestResult> {
  try {
    const subscriptions = await client.listWebhooks();
    const words = wording('causes:proctoring.connected', { host: new URL(baseUrl).host, count: subscriptions.length });
    return { ok: true, accountId, baseUrl, code: 'ok', message: words(translator(DEFAULT_LOCALE)), words };
  } catch (error) {
    if (!(error instanceof ProctoringError)) throw error;
    return { ok: false, accountId, baseUrl, code: error.code, message: error.adminMessage, words: error.adminText };
  }
}
