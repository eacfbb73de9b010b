import { createHash } from 'node:crypto';
import { errorForStatus, ProctoringError } from './errors.js';

export type ProctoringCredentials = { apiKey: string } | { consumerKey: string; secret: string };

/** api_key = consumer_key + lowercase hex MD5(secret), or the ready key (spec: Authentication). */
export function apiKeyFor(credentials: ProctoringCredentials): string {
  if ('apiKey' in credentials) return credentials.apiKey;
  return credentials.consumerKey + createHash('md5').update(credentials.secret).digest('hex');
}

/** The generated URL from a success body whose shape the spec does not show (see upstream-facts.md). */
export function urlFromBody(text: string): string {
  let value: unknown = text.trim();
  try {
    value = JSON.parse(text);
  } catch {
    // bare URL text
  }
  if (Array.isArray(value)) value = value[0];
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    value = record.url ?? record.launch_url ?? record.candidate_url ?? record.reviewer_url;
  }
  if (typeof value !== 'string') throw new ProctoringError('bad_response', 'The proctoring service answered without a URL.');
  let url = value.trim();
  if (/^https?%3A/i.test(url)) url = decodeURIComponent(url);
  if (!/^https?:\/\/[^\s]+$/i.test(url)) throw new ProctoringError('bad_response', 'The proctoring service answered with something that is not a URL.');
  return url;
}

export function createProctoringClient(options: { baseUrl: string; credentials: ProctoringCredentials; timeoutMs?: number; userAgent?: string }) {
  const apiKey = apiKeyFor(options.credentials);
  const timeoutMs = options.timeoutMs ?? 10_000;

  async function call(path: string, body: unknown, attempt = 0): Promise<string> {
    let response: Response;
    try {
      response = await fetch(`${options.baseUrl}${path}`, {
        method: 'POST',
        headers: { api_key: apiKey, 'Content-Type': 'application/json', Accept: 'application/json', ...(options.userAgent ? { 'User-Agent': options.userAgent } : {}) },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      if (error instanceof Error && error.name === 'TimeoutError') {
        throw new ProctoringError('timeout', `The proctoring service did not answer within ${timeoutMs} ms.`);
      }
      // A connection that failed before any answer is retried once; never after the service answered.
      if (attempt === 0) return call(path, body, 1);
      throw new ProctoringError('connection_failed', 'The proctoring service could not be reached.');
    }
    const text = await response.text();
    if (!response.ok) throw errorForStatus(response.status, text);
    return text;
  }

  return {
    async candidateLaunch(body: Record<string, unknown>) {
      return { url: urlFromBody(await call('/v2/candidate/launch', body)) };
    },
    async reviewerLaunch(body: Record<string, unknown>) {
      return { url: urlFromBody(await call('/v2/reviewer/launch', body)) };
    },
    async close() {},
  };
}
