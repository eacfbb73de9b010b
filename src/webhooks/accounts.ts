import type { AccountClients } from '../proctoring/account-clients.js';
import { DEFAULT_ACCOUNT_ID, type PlatformRef, type ProctoringAccountStore } from '../proctoring/accounts.js';
import type { ProctoringCredentials } from '../proctoring/api-key.js';
import type { ProctoringClient } from '../proctoring/client.js';

/** The environment's account (PROCTORING_*, or the sandbox's): the proctoring accounts' `default`. */
export const DEFAULT_ACCOUNT_REF = DEFAULT_ACCOUNT_ID;

/** A proctoring account as webhook subscriptions see it. */
export interface ProctoringAccount {
  /** The account id stored with each subscription: `default`, or a per-platform account's id. */
  ref: string;
  /** For administrators: which account this is (never a key). */
  label: string;
  client: Pick<ProctoringClient, 'listWebhooks' | 'subscribe' | 'unsubscribe'>;
  /**
   * The secret that signs deliveries (the consumer secret). Undefined for an account configured with a
   * ready API key only: its deliveries are then accepted by their `api_key` alone.
   */
  signingSecret?: string;
}

export interface AccountDirectory {
  resolve(ref: string): Promise<ProctoringAccount | undefined>;
  /** The account a platform (issuer + client id) uses: its own, or `default`. */
  refOf(platform: PlatformRef): Promise<string>;
}

const secretOf = (credentials: ProctoringCredentials | undefined) => (credentials && 'secret' in credentials ? credentials.secret : undefined);

/** The proctoring accounts (the environment's and the per-platform ones) with their clients. */
export function proctoringAccounts(deps: {
  store: Pick<ProctoringAccountStore, 'get' | 'target' | 'accountOf'>;
  clients: Pick<AccountClients, 'forAccount'>;
  /** The environment's account; without credentials (the CLI), deliveries cannot be checked by signature. */
  defaultAccount: { label: string; credentials?: ProctoringCredentials };
}): AccountDirectory {
  return {
    async resolve(ref) {
      if (ref === DEFAULT_ACCOUNT_REF) {
        return { ref, label: deps.defaultAccount.label, client: await deps.clients.forAccount(ref), signingSecret: secretOf(deps.defaultAccount.credentials) };
      }
      const [account, target] = await Promise.all([deps.store.get(ref), deps.store.target(ref)]);
      if (!account || !target) return undefined;
      return { ref, label: `${account.name} (${account.id}, ${account.region})`, client: await deps.clients.forAccount(ref), signingSecret: secretOf(target.credentials) };
    },
    async refOf(platform) {
      return (await deps.store.accountOf(platform)).accountId;
    },
  };
}

/** A directory of fixed accounts (tests). */
export function staticAccounts(accounts: readonly ProctoringAccount[]): AccountDirectory {
  return {
    resolve: async (ref) => accounts.find((account) => account.ref === ref),
    refOf: async () => DEFAULT_ACCOUNT_REF,
  };
}
