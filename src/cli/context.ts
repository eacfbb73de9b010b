import { toolUrl, type Config } from '../config.js';
import type { Database } from '../db/types.js';
import type { LtiAdapter } from '../lti/provider.js';
import type { AccountClients, AccountClientsOptions } from '../proctoring/account-clients.js';
import type { SubscriptionService } from '../webhooks/subscriptions.js';

/** What every command works with: the configuration and a migrated database. */
export interface Context {
  config: Config;
  db: Database;
}

export type WithDatabase = <T>(work: (context: Context) => Promise<T>) => Promise<T>;
export type WithLti = <T>(work: (lti: LtiAdapter, context: Context) => Promise<T>) => Promise<T>;
export type WithAccountClients = <T>(work: (clients: AccountClients, context: Context) => Promise<T>) => Promise<T>;
export type WithWebhooks = <T>(work: (subscriptions: SubscriptionService, context: Context) => Promise<T>) => Promise<T>;

/**
 * How commands reach the database, LTI and the proctoring service: opened by the command itself when run from a
 * shell (here), or the running tool's own when the command runs inside it (in-tool.ts).
 */
export interface CliRuntime {
  withDatabase: WithDatabase;
  /** The database for schema changes (`migrate`): not migrated first; from a shell, one connection without timeouts. */
  withSchemaDatabase: WithDatabase;
  withLti: WithLti;
  withAccountClients: WithAccountClients;
  /** Webhook subscriptions of every proctoring account, through their clients. */
  withWebhooks: WithWebhooks;
}

/**
 * A command run from a shell opens a migrated database and closes it when done. Heavy modules (the database
 * drivers, ltijs, the proctoring client) load only when a command needs them, so that every command starts fast.
 */
export function localRuntime(config: Config): CliRuntime {
  const withDatabase: WithDatabase = async (work) => {
    const [{ openDatabase }, { migrate }] = await Promise.all([import('../db/index.js'), import('../db/migrate.js')]);
    const db = await openDatabase(config.database);
    try {
      await migrate(db);
      return await work({ config, db });
    } finally {
      await db.close();
    }
  };
  const withSchemaDatabase: WithDatabase = async (work) => {
    const { openDatabase } = await import('../db/index.js');
    const db = await openDatabase({ ...config.database, forSchemaChanges: true });
    try {
      return await work({ config, db });
    } finally {
      await db.close();
    }
  };
  const withLti: WithLti = (work) =>
    withDatabase(async (context) => {
      const [{ encryptionKeysOf }, { createLogger }, { createConfiguredLtiAdapter }, { verifyEncryptionKeys }] = await Promise.all([
        import('../dev-encryption-key.js'),
        import('../logger.js'),
        import('../lti/configured-adapter.js'),
        import('../lti/encryption-check.js'),
      ]);
      // Nothing is read or written with a key that does not open this database's data.
      await verifyEncryptionKeys(context.db, encryptionKeysOf(config));
      const lti = await createConfiguredLtiAdapter({ config, db: context.db, logger: createLogger('silent'), encryptionKeys: encryptionKeysOf(config) });
      try {
        return await work(lti, context);
      } finally {
        await lti.close();
      }
    });
  const withAccountClients: WithAccountClients = (work) =>
    withDatabase(async (context) => {
      const [{ USER_AGENT }, { encryptionKeysOf }, { createSecretBox }, { createAccountStore }, { createAccountClients }, { verifyEncryptionKeys }] = await Promise.all([
        import('../user-agent.js'),
        import('../dev-encryption-key.js'),
        import('../secrets/secret-box.js'),
        import('../proctoring/accounts.js'),
        import('../proctoring/account-clients.js'),
        import('../lti/encryption-check.js'),
      ]);
      await verifyEncryptionKeys(context.db, encryptionKeysOf(config));
      const clients = createAccountClients({
        accounts: createAccountStore(context.db, createSecretBox(encryptionKeysOf(config))),
        defaultTarget: await defaultTargetOf(config),
        timeoutMs: config.proctoring.timeoutMs,
        userAgent: USER_AGENT,
      });
      try {
        return await work(clients, context);
      } finally {
        await clients.close();
      }
    });
  const withWebhooks: WithWebhooks = (work) =>
    withAccountClients(async (clients, context) => {
      const [{ encryptionKeysOf }, { createSecretBox }, { createAccountStore }, { proctoringAccounts }, { createWebhookStore }, { createSubscriptionService }] = await Promise.all([
        import('../dev-encryption-key.js'),
        import('../secrets/secret-box.js'),
        import('../proctoring/accounts.js'),
        import('../webhooks/accounts.js'),
        import('../webhooks/store.js'),
        import('../webhooks/subscriptions.js'),
      ]);
      const subscriptions = createSubscriptionService({
        store: createWebhookStore(context.db),
        accounts: proctoringAccounts({
          store: createAccountStore(context.db, createSecretBox(encryptionKeysOf(config))),
          clients,
          defaultAccount: { label: config.sandbox ? 'Sandbox account (emulator)' : 'Default account (PROCTORING_* settings)', credentials: config.proctoring.credentials },
        }),
        baseUrl: toolUrl(config, ''),
      });
      return work(subscriptions, context);
    });
  return { withDatabase, withSchemaDatabase, withLti, withAccountClients, withWebhooks };
}

/**
 * The environment's account as seen from a shell. In sandbox mode it is the emulator inside the running tool:
 * on PostgreSQL (where commands run here while the tool runs) it is reached over HTTP at PUBLIC_URL; on the
 * embedded database a running tool carries the command out itself, so there is none here.
 */
async function defaultTargetOf(config: Config): Promise<AccountClientsOptions['defaultTarget']> {
  const { baseUrl, credentials, region } = config.proctoring;
  if (baseUrl && credentials) return { baseUrl, region, credentials };
  if (!config.sandbox || !config.database.url) return undefined;
  const { SANDBOX_ACCOUNT } = await import('../sandbox/index.js');
  return { baseUrl: toolUrl(config, '/sandbox/proctoring'), credentials: { consumerKey: SANDBOX_ACCOUNT.consumerKey, secret: SANDBOX_ACCOUNT.secret } };
}
