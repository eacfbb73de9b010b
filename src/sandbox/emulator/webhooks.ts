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

/** What a sample result says; missing values are derived from the attempt id, so each attempt differs. */
export interface SampleResult {
  suspicion?: number;
  flags?: Record<string, number>;
  /** Epoch seconds of the submission. */
  date?: number;
  /** 1 submitted, 5 ended screen recording. */
  code?: number;
}

export const FLAG_NAMES = [
  'unfocus',
  'clipboard',
  'browser_resize',
  'multiple_faces',
  'leaving_exam_area',
  'speaking',
  'ai',
  'printing',
  'screenshot',
  'hardware_change',
  'external_action',
  'webcam_obscured',
  'mobile_phone_detected',
] as const;

/** A number 0–99 from the attempt id and a salt: stable for one attempt, different across attempts. */
function spread(attemptId: string, salt: string): number {
  return createHash('sha256').update(`${salt}:${attemptId}`).digest().readUInt16BE(0) % 100;
}

const SUBMISSION_TEXT: Record<number, { message: string; description: string }> = {
  1: { message: 'Submitted', description: 'The candidate submitted the exam.' },
  5: { message: 'Ended screen recording', description: 'The candidate ended the screen recording before submitting.' },
};

/**
 * The suspicion-calculation notification (as public integrations of this API show): version 2 `data` is {id, attempt_id,
 * suspicion}; version 3 adds user_id, submission_data and flags. The flag names are our reading of
 * the listed percentages.
 */
export function sampleData(version: WebhookVersion, ids: { attemptId?: string; userId: string }, result: SampleResult = {}): Record<string, unknown> {
  const seed = ids.attemptId ?? ids.userId;
  const base = { id: randomUUID(), ...(ids.attemptId === undefined ? {} : { attempt_id: ids.attemptId }), suspicion: result.suspicion ?? spread(seed, 'suspicion') };
  if (version === '2') return base;
  const code = result.code ?? 1;
  return {
    ...base,
    user_id: ids.userId,
    submission_data: { date: result.date ?? Math.floor(Date.now() / 1000), code, ...(SUBMISSION_TEXT[code] ?? { message: `Code ${code}`, description: '' }) },
    flags: result.flags ?? Object.fromEntries(FLAG_NAMES.map((name, index) => [name, index < 6 ? Math.max(0, spread(seed, name) - 50) : 0])),
  };
}

/** signature = lowercase hex SHA1(nonce + ':' + dataJson + ':' + secret), over the data JSON exactly as sent. */
export function signature(nonce: string, dataJson: string, secret: string): string {
  return createHash('sha1').update(`${nonce}:${dataJson}:${secret}`, 'utf8').digest('hex');
}

export interface BodyOptions {
  /** Leave `api_key` out: the receiver must check the signature. */
  omitApiKey?: boolean;
  /** Send a signature that does not verify. */
  badSignature?: boolean;
  /** Send this `api_key` instead of the subscription's key. */
  apiKey?: string;
}

/**
 * The raw body, built by hand so that `data` is byte for byte the JSON that was signed. The data is
 * written with spaces after separators, as some JSON writers do, so a receiver that re-serialises it
 * computes another signature.
 */
export function deliveryBody(subscription: StoredSubscription, secret: string, data: Record<string, unknown>, options: BodyOptions = {}): string {
  const nonce = randomBytes(16).toString('hex');
  const dataJson = spacedJson(data);
  const signed = signature(nonce, dataJson, secret);
  const apiKey = options.apiKey ?? (options.omitApiKey ? undefined : subscription.key);
  const head = {
    type: subscription.webhook_type,
    nonce,
    signature: options.badSignature ? signature(nonce, dataJson, `${secret}-wrong`) : signed,
    ...(apiKey !== undefined ? { api_key: apiKey } : {}),
  };
  return `${JSON.stringify(head).slice(0, -1)},"data":${dataJson}}`;
}

/** JSON with a space after each `:` and `,` outside strings. */
function spacedJson(value: unknown): string {
  return JSON.stringify(value, null, 1).replace(/\n\s*/g, (_match, offset: number, whole: string) => (whole[offset - 1] === '{' || whole[offset - 1] === '[' || /^\n\s*[}\]]/.test(whole.slice(offset)) ? '' : ' '));
}

export async function post(url: string, body: string, timeoutMs = 5000): Promise<{ status?: number; error?: string }> {
  try {
    const response = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'proctoring-emulator' },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body.dump();
    return { status: response.statusCode };
  } catch (error) {
    return { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

export async function deliver(target: DeliveryTarget, ids: { attemptId: string; userId: string }, timeoutMs = 5000): Promise<DeliveryResult> {
  const { subscription, secret } = target;
  const body = deliveryBody(subscription, secret, sampleData(subscription.version, ids));
  return { subscriptionId: subscription.id, url: subscription.url, version: subscription.version, ...(await post(subscription.url, body, timeoutMs)) };
}
