import { randomBytes } from 'node:crypto';
import type { WebhookSubscription } from '../proctoring/client.js';
import { AppError } from '../http/errors.js';
import { wording } from '../i18n/index.js';
import type { AccountDirectory, ProctoringAccount } from './accounts.js';
import type { DeliveryVersion } from './delivery.js';
import type { SubscriptionRecord, UnmatchedDelivery, UnmatchedQuery, WebhookStore } from './store.js';
import { keyHash } from './verify.js';

/** The receiver's path; each subscription adds its own unguessable id. */
export const RECEIVER_PATH = '/webhooks/proctoring';
/** Type 1: the suspicion-calculation webhook, the only type the Launch API names. */
export const SUSPICION_WEBHOOK_TYPE = '1';
export const DEFAULT_WEBHOOK_VERSION: DeliveryVersion = '3';

/** Where a subscription the service lists sends its deliveries. */
export type SubscriptionTarget = 'this-tool' | 'this-tool-unknown' | 'elsewhere';

/** The marks in an administrator's words (console and CLI). */
export const TARGET_LABELS: Readonly<Record<SubscriptionTarget, string>> = {
  'this-tool': 'this tool',
  'this-tool-unknown': "this tool's address, but no record here (made by another installation or a deleted database)",
  elsewhere: 'another receiver',
};

export interface ListedSubscription {
  /** The service's id (what `unsubscribe` takes); undefined for a local record the service no longer lists. */
  upstreamId?: string;
  url: string;
  version?: string;
  target: SubscriptionTarget;
  /** Whether the service lists it. */
  atService: boolean;
  /** The tool's record, with delivery counts, for subscriptions made by this tool. */
  local?: SubscriptionRecord;
}

export interface SubscriptionListing {
  account: { ref: string; label: string };
  subscriptions: ListedSubscription[];
}

export class UnknownAccountError extends AppError {
  constructor(ref: string) {
    super(404, 'unknown_account', 'Unknown proctoring account', 'There is no such proctoring account.', { adminText: wording('causes:webhooks.unknownAccount', { account: ref }) });
  }
}

export interface SubscriptionServiceDeps {
  store: WebhookStore;
  accounts: AccountDirectory;
  /** The tool's external base URL, without a trailing slash. */
  baseUrl: string;
}

/** 192 random bits: the receiver URL cannot be guessed. */
const newSubscriptionId = () => randomBytes(24).toString('base64url');
/** 240 random bits in 40 characters (the service takes keys of up to 50). */
const newKey = () => randomBytes(30).toString('base64url');

export function createSubscriptionService(deps: SubscriptionServiceDeps) {
  const receiverPrefix = `${deps.baseUrl}${RECEIVER_PATH}/`;

  async function account(ref: string): Promise<ProctoringAccount> {
    const found = await deps.accounts.resolve(ref);
    if (!found) throw new UnknownAccountError(ref);
    return found;
  }

  function localIdOf(url: string): string | undefined {
    return url.startsWith(receiverPrefix) ? url.slice(receiverPrefix.length) : undefined;
  }

  const service = {
    receiverUrl: (id: string) => `${receiverPrefix}${id}`,

    /** The proctoring account a platform uses: its own, or `default`. */
    accountOfPlatform: (platform: { issuer: string; clientId: string }): Promise<string> => deps.accounts.refOf(platform),

    /**
     * Subscribes the tool's receiver, at a new unguessable URL with a new key, to suspicion results. The
     * record is written first (so a delivery that arrives at once is accepted) and removed again when
     * the service refuses.
     */
    async subscribe(input: { accountRef: string; version?: DeliveryVersion }): Promise<SubscriptionRecord> {
      const target = await account(input.accountRef);
      const version = input.version ?? DEFAULT_WEBHOOK_VERSION;
      const id = newSubscriptionId();
      const key = newKey();
      const receiverUrl = `${receiverPrefix}${id}`;
      await deps.store.createPending({ id, accountRef: target.ref, version, receiverUrl, keySha256: keyHash(key) });
      let answer: WebhookSubscription;
      try {
        answer = await target.client.subscribe(SUSPICION_WEBHOOK_TYPE, { version, client: { url: receiverUrl, key } });
      } catch (error) {
        await deps.store.discard(id);
        throw error;
      }
      await deps.store.confirm(id, String(answer.id));
      const record = await deps.store.get(id);
      if (!record) throw new Error('subscription record vanished');
      return record;
    },

    /** The service's subscriptions of the account, marked by where they point, with the tool's own records. */
    async list(accountRef: string): Promise<SubscriptionListing> {
      const target = await account(accountRef);
      const [upstream, local] = await Promise.all([target.client.listWebhooks(), deps.store.list({ accountRef: target.ref })]);
      const byId = new Map(local.map((record) => [record.id, record]));
      const listed: ListedSubscription[] = upstream.map((item) => {
        const url = item.url ?? '';
        const localId = localIdOf(url);
        const record = localId === undefined ? undefined : byId.get(localId);
        if (record) byId.delete(record.id);
        return {
          upstreamId: String(item.id),
          url,
          version: item.version === undefined ? undefined : String(item.version),
          target: record ? 'this-tool' : localId !== undefined ? 'this-tool-unknown' : 'elsewhere',
          atService: true,
          local: record,
        };
      });
      for (const record of byId.values()) {
        listed.push({ upstreamId: record.upstreamId, url: record.receiverUrl, version: record.version, target: 'this-tool', atService: false, local: record });
      }
      return { account: { ref: target.ref, label: target.label }, subscriptions: listed };
    },

    /** Ends a subscription at the service (by the service's id, or the tool's own) and marks the tool's record removed. */
    async unsubscribe(input: { accountRef: string; id: string }): Promise<{ upstreamId: string; message: string; local?: SubscriptionRecord }> {
      const target = await account(input.accountRef);
      const local = (await deps.store.findByUpstreamId(target.ref, input.id)) ?? (await deps.store.get(input.id));
      const upstreamId = local?.accountRef === target.ref && local.upstreamId ? local.upstreamId : input.id;
      const { message } = await target.client.unsubscribe({ id: upstreamId });
      if (local && local.accountRef === target.ref) await deps.store.markRemoved(local.id);
      return { upstreamId, message, local: local?.accountRef === target.ref ? local : undefined };
    },

    /**
     * Subscribes unless the service already lists a subscription of this tool (one the tool holds the key of)
     * with the same delivery version: pressing "Subscribe" twice makes one subscription. Another version is a
     * new subscription, so that a receiver can move from version 2 to 3 without a gap.
     */
    async subscribeOnce(input: { accountRef: string; version?: DeliveryVersion }): Promise<{ created: boolean; record: SubscriptionRecord }> {
      const version = input.version ?? DEFAULT_WEBHOOK_VERSION;
      const listing = await service.list(input.accountRef);
      const existing = listing.subscriptions.find((entry) => entry.atService && entry.target === 'this-tool' && entry.local && !entry.local.removedAt && entry.local.version === version);
      if (existing?.local) return { created: false, record: existing.local };
      return { created: true, record: await service.subscribe({ accountRef: input.accountRef, version }) };
    },

    /**
     * Makes sure the account has one subscription of this tool that the service lists (sandbox start-up:
     * the emulator forgets its subscriptions when the process ends). Local records the service no longer
     * lists are marked removed.
     */
    async ensureSubscribed(accountRef: string, version: DeliveryVersion = DEFAULT_WEBHOOK_VERSION): Promise<SubscriptionRecord> {
      const listing = await service.list(accountRef);
      for (const entry of listing.subscriptions) {
        if (!entry.atService && entry.local && !entry.local.removedAt) await deps.store.markRemoved(entry.local.id);
      }
      const existing = listing.subscriptions.find((entry) => entry.atService && entry.local);
      return existing?.local ?? service.subscribe({ accountRef, version });
    },

    /** Deliveries that matched no attempt (of one account's subscriptions when asked), newest first. */
    unmatched: (query: Partial<UnmatchedQuery> = {}): Promise<{ deliveries: UnmatchedDelivery[]; total: number }> =>
      deps.store.unmatched({ limit: Math.min(Math.max(query.limit ?? 100, 1), 500), offset: Math.max(query.offset ?? 0, 0), accountRef: query.accountRef }),
  };
  return service;
}

export type SubscriptionService = ReturnType<typeof createSubscriptionService>;
