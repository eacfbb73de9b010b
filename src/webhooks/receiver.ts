import { createHash } from 'node:crypto';
import type { Logger } from '../logger.js';
import type { AccountDirectory } from './accounts.js';
import { readSuspicionResult } from './delivery.js';
import { matchResult, type MatchingSource } from './matching.js';
import { topLevelMembers } from './raw-json.js';
import { storableText, type VerifiedBy, type WebhookStore } from './store.js';
import { keyMatches, signatureMatches } from './verify.js';

/** The last path segment of a receiver URL: 32 base64url characters (192 random bits). */
export const SUBSCRIPTION_ID_PATTERN = /^[A-Za-z0-9_-]{32}$/;

export type ReceiveOutcome =
  | { status: 200; body: { status: 'stored' | 'duplicate'; id: string } }
  | { status: 400 | 401; reason: string };

const AUTH_MEMBERS = ['type', 'nonce', 'signature', 'api_key', 'data'];
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const textOf = (value: unknown) => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined);

/** A copy of a JSON value that PostgreSQL's jsonb accepts (no NUL characters or lone surrogates). */
function storableJson(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) return value.map(storableJson);
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [storableText(key), storableJson(item)]));
  return value;
}

export interface ReceiverDeps {
  store: Pick<WebhookStore, 'findActive' | 'noteFailure' | 'insertDelivery'>;
  accounts: AccountDirectory;
  matching: MatchingSource;
  logger: Logger;
}

/**
 * Checks and stores one delivery: known subscription, a JSON object, then `api_key` equal to the
 * subscription's key or a signature that verifies over the raw bytes of `data`. Anything refused is
 * counted on the subscription and nothing of it is stored. The same data to the same subscription is
 * stored once (a unique constraint), however often and however concurrently it arrives.
 */
export function createReceiver(deps: ReceiverDeps) {
  async function refuse(subscriptionId: string, status: 400 | 401, reason: string, logger: Logger): Promise<ReceiveOutcome> {
    await deps.store.noteFailure(subscriptionId, reason).catch((error: unknown) => logger.warn({ err: error }, 'could not count a refused webhook delivery'));
    logger.warn({ subscriptionId, status, reason }, 'webhook delivery refused');
    return { status, reason };
  }

  async function authenticate(
    accountRef: string,
    keySha256: string,
    body: Record<string, unknown>,
    rawData: Uint8Array | undefined,
  ): Promise<VerifiedBy | undefined> {
    const apiKey = body.api_key;
    if (typeof apiKey === 'string' && keyMatches(apiKey, keySha256)) return 'api_key';
    const signature = body.signature;
    const nonce = textOf(body.nonce);
    if (typeof signature !== 'string' || nonce === undefined || rawData === undefined) return undefined;
    const secret = (await deps.accounts.resolve(accountRef))?.signingSecret;
    if (!secret) return undefined;
    return signatureMatches(signature, nonce, rawData, secret) ? 'signature' : undefined;
  }

  return {
    /** `logger`: the log of the request that brought the delivery (default: the receiver's logger). */
    async receive(subscriptionId: string, raw: Buffer, logger: Logger = deps.logger): Promise<ReceiveOutcome> {
      if (!SUBSCRIPTION_ID_PATTERN.test(subscriptionId)) return { status: 401, reason: 'unknown subscription' };
      const subscription = await deps.store.findActive(subscriptionId);
      if (!subscription) return { status: 401, reason: 'unknown subscription' };

      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return refuse(subscription.id, 400, 'body is not JSON', logger);
      }
      const members = isRecord(body) ? topLevelMembers(raw) : undefined;
      if (!isRecord(body) || !members) return refuse(subscription.id, 400, 'body is not a JSON object', logger);
      const duplicated = AUTH_MEMBERS.find((name) => members.filter((m) => m.key === name).length > 1);
      if (duplicated) return refuse(subscription.id, 400, `member "${duplicated}" appears more than once`, logger);
      const dataMember = members.find((m) => m.key === 'data');
      const rawData = dataMember ? raw.subarray(dataMember.start, dataMember.end) : undefined;

      const verifiedBy = await authenticate(subscription.accountRef, subscription.keySha256, body, rawData);
      if (!verifiedBy) {
        const reason = typeof body.api_key === 'string' ? 'wrong api_key and no valid signature' : typeof body.signature === 'string' ? 'signature does not verify' : 'neither api_key nor signature';
        return refuse(subscription.id, 401, reason, logger);
      }

      const result = readSuspicionResult(body.data, subscription.version);
      if (!dataMember) result.problems.push('missing_data');
      const type = textOf(body.type);
      if (type !== '1') result.problems.push(type === undefined ? 'missing_type' : `unexpected_type:${type.slice(0, 20)}`);
      if (textOf(body.nonce) === undefined) result.problems.push('missing_nonce');
      const matched = await matchResult(result, deps.matching, subscription.accountRef);
      result.problems.push(...matched.problems);

      let dataJson: string | undefined;
      try {
        dataJson = dataMember ? JSON.stringify(storableJson(body.data)) : undefined;
      } catch {
        result.problems.push('data_not_storable_as_json');
      }
      const stored = await deps.store.insertDelivery({
        subscriptionId: subscription.id,
        // The same delivery is the same data; without data, the same body.
        dataSha256: createHash('sha256').update(rawData ?? raw).digest('hex'),
        verifiedBy,
        webhookType: type,
        nonce: textOf(body.nonce),
        dataRaw: rawData ? Buffer.from(rawData).toString('utf8') : '',
        dataJson,
        result,
        match: matched.match,
      });
      logger.info(
        { subscriptionId: subscription.id, deliveryId: stored.id, duplicate: !stored.stored, verifiedBy, matchedBy: matched.match?.by ?? null, problems: result.problems.length },
        stored.stored ? 'webhook delivery stored' : 'webhook delivery already stored',
      );
      return { status: 200, body: { status: stored.stored ? 'stored' : 'duplicate', id: stored.id } };
    },
  };
}

export type Receiver = ReturnType<typeof createReceiver>;
