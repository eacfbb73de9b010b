import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { request } from 'undici';
import type { BehaviorSettings, SubscribeRequest, WebhookVersion } from '../../proctoring/contract.js';

/** A kept subscription; `account` is the consumer key it belongs to (never sent back). */
export interface StoredSubscription {
  id: string;
  account: string;
  webhook_type: number;
  url: string;
  key?: string;
  data: { behavior_settings: BehaviorSettings | null };
  version: WebhookVersion;
}

/** Version used when a subscriber sends none (the spec names no default). */
const DEFAULT_VERSION: WebhookVersion = '2';

export function subscriptionFrom(account: string, body: SubscribeRequest): StoredSubscription {
  return {
    id: randomUUID(),
    account,
    webhook_type: Number(body.type),
    url: body.client.url,
    ...(body.client.key !== undefined ? { key: body.client.key } : {}),
    data: { behavior_settings: body.behavior_settings ?? null },
    version: body.version ?? DEFAULT_VERSION,
  };
}

/** The subscribe / list answer (as public integrations of this API show): `{id, webhook_type, url, key, data: {behavior_settings}, version}`. */
export function publicSubscription(subscription: StoredSubscription) {
  const { account: _account, ...answer } = subscription;
  return answer;
}

export interface DeliveryTarget {
  subscription: StoredSubscription;
  /** The secret of the subscription's account: the signature key. */
  secret: string;
}

export interface DeliveryResult {
  subscriptionId: string;
  url: string;
  version: WebhookVersion;
  status?: number;
  error?: string;
}

/**
 * The suspicion-calculation notification (as public integrations of this API show): version 2 `data` is {id, attempt_id,
 * suspicion}; version 3 adds user_id, submission_data and flags. The flag names are our reading of
 * the listed percentages.
 */
export function sampleData(version: WebhookVersion, ids: { attemptId: string; userId: string }): Record<string, unknown> {
  const base = { id: randomUUID(), attempt_id: ids.attemptId, suspicion: 27 };
  if (version === '2') return base;
  return {
    ...base,
    user_id: ids.userId,
    submission_data: { date: Math.floor(Date.now() / 1000), code: 1, message: 'Submitted', description: 'The candidate submitted the exam.' },
    flags: {
      unfocus: 12,
      clipboard: 0,
      browser_resize: 3,
      multiple_faces: 0,
      leaving_exam_area: 5,
      speaking: 8,
      ai: 0,
      printing: 0,
      screenshot: 0,
      hardware_change: 0,
      external_action: 2,
      webcam_obscured: 0,
      mobile_phone_detected: 0,
    },
  };
}

/** signature = lowercase hex SHA1(nonce + ':' + dataJson + ':' + secret), over the data JSON exactly as sent. */
export function signature(nonce: string, dataJson: string, secret: string): string {
  return createHash('sha1').update(`${nonce}:${dataJson}:${secret}`, 'utf8').digest('hex');
}

/** The raw body, built by hand so that `data` is byte for byte the JSON that was signed. */
export function deliveryBody(subscription: StoredSubscription, secret: string, data: Record<string, unknown>): string {
  const nonce = randomBytes(16).toString('hex');
  const dataJson = JSON.stringify(data);
  const head = {
    type: subscription.webhook_type,
    nonce,
    signature: signature(nonce, dataJson, secret),
    ...(subscription.key !== undefined ? { api_key: subscription.key } : {}),
  };
  return `${JSON.stringify(head).slice(0, -1)},"data":${dataJson}}`;
}

export async function deliver(target: DeliveryTarget, ids: { attemptId: string; userId: string }, timeoutMs = 5000): Promise<DeliveryResult> {
  const { subscription, secret } = target;
  const body = deliveryBody(subscription, secret, sampleData(subscription.version, ids));
  const result: DeliveryResult = { subscriptionId: subscription.id, url: subscription.url, version: subscription.version };
  try {
    const response = await request(subscription.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'proctoring-emulator' },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body.dump();
    result.status = response.statusCode;
  } catch (error) {
    result.error = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  }
  return result;
}
