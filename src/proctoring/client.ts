import { Agent, type Dispatcher } from 'undici';
import { z } from 'zod';
import { apiKeyFor, type ProctoringCredentials } from './api-key.js';
import type { Region } from '../config.js';
import {
  validateCandidateLaunch,
  validateLaunchpad,
  validateLiveLaunch,
  validateReviewerLaunch,
  validateSubscribe,
  validateUnsubscribe,
  type CandidateLaunchRequest,
  type LaunchpadRequest,
  type LiveLaunchRequest,
  type ReviewerLaunchRequest,
  type SubscribeRequest,
  type UnsubscribeRequest,
  type ValidationResult,
  type WebhookType,
} from './contract.js';
import {
  ProctoringBadRequest,
  ProctoringBadResponse,
  ProctoringConnectionFailed,
  ProctoringRequestInvalid,
  ProctoringTimeout,
  ProctoringUnauthorized,
  ProctoringUnavailable,
  type ProctoringOperation,
} from './errors.js';
import { excerpt, parseLaunchUrl } from './responses.js';
import { timeProctoringCall } from '../metrics.js';
import { isRecord, propertyOf } from '../values.js';

export { apiKeyFor, type ProctoringCredentials } from './api-key.js';

export interface ProctoringClientOptions {
  /** The regional base URL (spec: `{base_url}`); endpoints are `/v2/…` under it. */
  baseUrl: string;
  credentials: ProctoringCredentials;
  /** The region the key was issued for (spec: Authentication): named in the explanation of a 2155 answer. */
  region?: Region;
  /** Time allowed for each call, retry included. Default 10 s. */
  timeoutMs?: number;
  userAgent?: string;
}

export interface LaunchResult {
  /** Absolute http(s) URL, with its `#exam_tag` fragment when the request carried one. */
  url: string;
}

/** A webhook subscription as the service answers it (as public integrations of this API show); only `id` is relied upon. */
export const webhookSubscriptionSchema = z.looseObject({
  id: z.union([z.string(), z.number()]),
  webhook_type: z.union([z.string(), z.number()]).optional(),
  url: z.string().optional(),
  key: z.string().optional(),
  data: z.looseObject({ behavior_settings: z.unknown().optional() }).nullish(),
  version: z.union([z.string(), z.number()]).optional(),
});
export type WebhookSubscription = z.infer<typeof webhookSubscriptionSchema>;

export type SubscribeBody = Omit<SubscribeRequest, 'type'> & { type?: WebhookType };

export interface ProctoringClient {
  candidateLaunch(req: CandidateLaunchRequest): Promise<LaunchResult>;
  reviewerLaunch(req: ReviewerLaunchRequest): Promise<LaunchResult>;
  liveLaunch(req: LiveLaunchRequest): Promise<LaunchResult>;
  launchpad(req: LaunchpadRequest): Promise<LaunchResult>;
  listWebhooks(): Promise<WebhookSubscription[]>;
  subscribe(type: WebhookType, req: SubscribeBody): Promise<WebhookSubscription>;
  /** Resolves to the service's plain-text answer. */
  unsubscribe(req: UnsubscribeRequest): Promise<{ message: string }>;
  close(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_BODY_BYTES = 1_000_000;
const BAD_REQUEST_BODY_CHARS = 1000;

/**
 * Failures of a connection before any answer. Only these are retried, once: most often a pooled
 * keep-alive connection the server had already closed. Never retried once the service has answered.
 */
const CONNECTION_FAILURES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);
const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']);

class BodyTooLarge extends Error {}

export function createProctoringClient(options: ProctoringClientOptions): ProctoringClient {
  const base = new URL(options.baseUrl);
  if (base.protocol !== 'https:' && base.protocol !== 'http:') throw new Error('The proctoring base URL must be an http(s) URL');
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const host = base.host;
  const origin = base.origin;
  // The base URL's own path (a service mounted under a prefix), which every call's path follows.
  const basePath = base.pathname.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const apiKey = apiKeyFor(options.credentials);
  const secrets = [apiKey, 'secret' in options.credentials ? options.credentials.secret : ''].filter((s) => s.length >= 4);
  const agent = new Agent({ keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000, connect: { timeout: timeoutMs } });

  /** Removes the credentials from anything the service echoed back before it goes into an error. */
  const redact = (text: string) => secrets.reduce((out, secret) => out.split(secret).join('[redacted]'), text);

  async function send(operation: ProctoringOperation, method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; text: string }> {
    const headers: Record<string, string> = {
      api_key: apiKey,
      accept: 'application/json, text/plain;q=0.9, */*;q=0.1',
      'user-agent': options.userAgent ?? 'proctor-lti',
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const payload = body === undefined ? undefined : JSON.stringify(body);
    // One deadline for the whole call, the retry included; its timer goes with the call (AbortSignal.timeout would
    // keep one per call alive for the whole deadline, a launch's garbage outliving the launch).
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new DOMException('The Launch API call timed out', 'TimeoutError')), timeoutMs).unref();
    try {
      return await sendUntil(deadline.signal, method, path, headers, payload, operation);
    } finally {
      clearTimeout(timer);
    }
  }

  async function sendUntil(signal: AbortSignal, method: 'GET' | 'POST', path: string, headers: Record<string, string>, payload: string | undefined, operation: ProctoringOperation): Promise<{ status: number; text: string }> {
    for (let attempt = 1; ; attempt++) {
      let response: Dispatcher.ResponseData;
      try {
        response = await agent.request({
          origin,
          path: `${basePath}${path}`,
          method,
          headers,
          body: payload,
          signal,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
      } catch (error) {
        const code = errorCode(error);
        if (signal.aborted || (code && TIMEOUTS.has(code))) throw new ProctoringTimeout(timeoutMs, host, operation);
        if (code && CONNECTION_FAILURES.has(code) && attempt === 1) continue;
        throw new ProctoringConnectionFailed(code ?? 'transport error', host, attempt, operation);
      }
      try {
        const text = await readText(response.body);
        return { status: response.statusCode, text };
      } catch (error) {
        if (error instanceof BodyTooLarge) throw new ProctoringBadResponse(`an answer larger than ${MAX_BODY_BYTES} bytes`, operation, response.statusCode);
        const code = errorCode(error);
        if (signal.aborted || (code && TIMEOUTS.has(code))) throw new ProctoringTimeout(timeoutMs, host, operation);
        throw new ProctoringConnectionFailed(`${code ?? 'connection dropped'} while reading the answer`, host, attempt, operation);
      }
    }
  }

  async function call(operation: ProctoringOperation, method: 'GET' | 'POST', path: string, body?: unknown): Promise<string> {
    const { status, text } = await timeProctoringCall(operation, () => send(operation, method, path, body));
    if (status >= 200 && status < 300) return text;
    if (status === 400) throw new ProctoringBadRequest(excerpt(redact(text), BAD_REQUEST_BODY_CHARS), operation);
    if (status === 401) throw new ProctoringUnauthorized(unauthorizedCode(text), operation, { region: options.region, baseUrl });
    if (status === 408 || status === 429 || status >= 500) throw new ProctoringUnavailable(status, operation);
    throw new ProctoringBadResponse(`unexpected status ${status}: ${excerpt(redact(text))}`, operation, status);
  }

  function checked<T>(operation: ProctoringOperation, result: ValidationResult<T>): T {
    if (!result.ok) throw new ProctoringRequestInvalid(result.violations, operation);
    return result.value;
  }

  async function launch(operation: ProctoringOperation, path: string, body: unknown): Promise<LaunchResult> {
    const text = await call(operation, 'POST', path, body);
    const parsed = parseLaunchUrl(text);
    if (parsed.ok) return { url: parsed.value };
    // Described from the redacted body, so that no excerpt can cut a credential in half and keep part of it.
    const described = parseLaunchUrl(redact(text));
    throw new ProctoringBadResponse(described.ok ? 'an unusable body' : described.detail, operation, 200);
  }

  function subscription(operation: ProctoringOperation, value: unknown): WebhookSubscription {
    const parsed = webhookSubscriptionSchema.safeParse(value);
    if (!parsed.success) throw new ProctoringBadResponse(`not a webhook subscription: ${excerpt(redact(JSON.stringify(value) ?? ''))}`, operation, 200);
    return parsed.data;
  }

  function json(operation: ProctoringOperation, text: string): unknown {
    try {
      return JSON.parse(text);
    } catch {
      throw new ProctoringBadResponse(`not JSON: ${excerpt(redact(text))}`, operation, 200);
    }
  }

  return {
    candidateLaunch: async (req) => launch('candidate_launch', '/v2/candidate/launch', checked('candidate_launch', validateCandidateLaunch(req))),
    reviewerLaunch: async (req) => launch('reviewer_launch', '/v2/reviewer/launch', checked('reviewer_launch', validateReviewerLaunch(req))),
    liveLaunch: async (req) => launch('live_launch', '/v2/live/launch', checked('live_launch', validateLiveLaunch(req))),
    launchpad: async (req) => launch('launchpad', '/v2/live/launchpad', checked('launchpad', validateLaunchpad(req))),

    async listWebhooks() {
      const text = await call('webhooks_list', 'GET', '/v2/whks/list');
      // Public integrations of this API: an empty body means no subscriptions.
      if (text.trim() === '') return [];
      const value = json('webhooks_list', text);
      if (!Array.isArray(value)) throw new ProctoringBadResponse(`not a list of subscriptions: ${excerpt(redact(text))}`, 'webhooks_list', 200);
      return value.map((item) => subscription('webhooks_list', item));
    },

    async subscribe(type, req) {
      if (req.type !== undefined && req.type !== type) {
        throw new ProctoringRequestInvalid([{ path: 'type', rule: 'type_mismatch', message: "'Webhook type' in the body must be the type in the path." }], 'webhooks_subscribe');
      }
      const body = checked('webhooks_subscribe', validateSubscribe({ ...req, type }));
      const text = await call('webhooks_subscribe', 'POST', `/v2/whks/subscribe/${encodeURIComponent(type)}`, body);
      return subscription('webhooks_subscribe', json('webhooks_subscribe', text));
    },

    async unsubscribe(req) {
      const body = checked('webhooks_unsubscribe', validateUnsubscribe(req));
      const text = await call('webhooks_unsubscribe', 'POST', '/v2/whks/unsubscribe', body);
      return { message: text.trim() };
    },

    async close() {
      await agent.close();
    },
  };
}

/** The upstream code of a 401 answer: `{code: 2655, …}`, or a documented code anywhere in the text. */
function unauthorizedCode(text: string): number | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (isRecord(value)) {
      const code = Number(value.code);
      if (Number.isInteger(code)) return code;
    }
  } catch {
    // not JSON: look for the code in the text
  }
  const match = /\b(2154|2155|2655)\b/.exec(text);
  return match ? Number(match[1]) : undefined;
}

/** The system error code of a transport error, looking through undici's wrappers. */
function errorCode(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (typeof current === 'object' && current !== null && !seen.has(current)) {
    seen.add(current);
    const code = propertyOf(current, 'code');
    const errors = propertyOf(current, 'errors');
    const cause = propertyOf(current, 'cause');
    if (typeof code === 'string' && (CONNECTION_FAILURES.has(code) || TIMEOUTS.has(code))) return code;
    if (Array.isArray(errors) && errors.length > 0) current = errors[0];
    else if (cause !== undefined) current = cause;
    else return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

async function readText(body: AsyncIterable<Uint8Array> & { destroy(error?: Error): unknown }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > MAX_BODY_BYTES) {
      body.destroy();
      throw new BodyTooLarge();
    }
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}
