import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent, buildConnector, request } from 'undici';
import { addressRefusal, ipLiteralOf, type AddressPolicy } from './address-policy.js';

/**
 * HTTP for URLs an outside party chooses (an LMS's dynamic registration): https only (plain http only to
 * loopback, in development), every address checked by the address policy on the connection itself (the
 * DNS lookup of the connection is filtered and the connected peer checked again, so a name that
 * resolves differently a second time cannot reach an internal address), no redirects, bodies read as a
 * stream up to a cap, and the caller's deadline over the whole exchange.
 */

export interface GuardedHttpOptions {
  policy: AddressPolicy;
  /** Largest body read; a longer answer is cut off and refused. */
  maxBytes: number;
}

/** A refused or failed exchange. `message` is for the log only: it may name internal addresses. */
export class OutboundError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OutboundError';
  }
}

export interface GuardedResponse {
  status: number;
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface GuardedRequestInit {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** The one deadline of the whole exchange: connecting, waiting and reading the body. */
  signal: AbortSignal;
  /** A lower cap than the client's for this request. */
  maxBytes?: number;
}

export interface GuardedHttp {
  /** Why a URL would be refused before any connection (scheme, IP literal), or undefined. */
  refusal(url: string): string | undefined;
  request(url: string, init: GuardedRequestInit): Promise<GuardedResponse>;
  close(): Promise<void>;
}

const LOOPBACK_NAMES = new Set(['localhost']);

/** Plain http is allowed only to loopback, and only where the policy allows loopback at all. */
export function schemeRefusal(url: URL, policy: AddressPolicy): string | undefined {
  if (url.protocol === 'https:') return undefined;
  if (url.protocol !== 'http:') return `scheme ${url.protocol} refused`;
  const literal = ipLiteralOf(url.hostname);
  const loopback = literal ? addressRefusal(literal, { allowLoopback: false }) === 'loopback' : LOOPBACK_NAMES.has(url.hostname);
  return policy.allowLoopback && loopback ? undefined : 'plain http refused: https is required';
}

function guardedLookup(policy: AddressPolicy): LookupFunction {
  return (hostname: string, options: LookupOptions, callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) {
        callback(error, '');
        return;
      }
      const allowed = addresses.filter((entry) => addressRefusal(entry.address, policy) === undefined);
      const first = allowed[0];
      if (first === undefined) {
        const seen = addresses.map((entry) => `${entry.address} (${addressRefusal(entry.address, policy)})`).join(', ');
        callback(Object.assign(new OutboundError(`${hostname} resolves only to refused addresses: ${seen}`), { code: 'EADDRREFUSED' }), '');
        return;
      }
      if (options.all) callback(null, allowed);
      else callback(null, first.address, first.family);
    });
  };
}

export function createGuardedHttp(options: GuardedHttpOptions): GuardedHttp {
  const { policy } = options;
  const connect = buildConnector({ lookup: guardedLookup(policy), timeout: 5000 });
  const agent = new Agent({
    connect(connectOptions, callback) {
      // The lookup already filtered names; IP literals are checked before any request. The peer is
      // checked once more here, on the socket actually connected.
      connect(connectOptions, (error, socket) => {
        if (error || !socket) {
          callback(error ?? new OutboundError('no socket'), null);
          return;
        }
        const refusal = addressRefusal(socket.remoteAddress ?? '', policy);
        if (refusal) {
          socket.destroy();
          callback(new OutboundError(`connected to a refused address ${socket.remoteAddress} (${refusal})`), null);
          return;
        }
        callback(null, socket);
      });
    },
    maxResponseSize: options.maxBytes,
    keepAliveTimeout: 1000,
  });

  const refusal = (rawUrl: string): string | undefined => {
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      return `not a URL: ${rawUrl.slice(0, 200)}`;
    }
    const schemeProblem = schemeRefusal(url, policy);
    if (schemeProblem) return `${schemeProblem}: ${url.origin}`;
    const literal = ipLiteralOf(url.hostname);
    const addressProblem = literal ? addressRefusal(literal, policy) : undefined;
    return addressProblem ? `address ${literal} refused (${addressProblem})` : undefined;
  };

  return {
    refusal,
    async request(rawUrl, init) {
      const refused = refusal(rawUrl);
      if (refused) throw new OutboundError(refused);
      const url = new URL(rawUrl);
      let response: Awaited<ReturnType<typeof request>>;
      try {
        // undici's request never follows redirects: a 3xx is an answer like any other.
        response = await request(url, { method: init.method ?? 'GET', headers: init.headers, body: init.body, dispatcher: agent, signal: init.signal });
      } catch (error) {
        throw new OutboundError(`${url.origin}: ${describe(error)}`, { cause: error });
      }
      const chunks: Buffer[] = [];
      const maxBytes = Math.min(init.maxBytes ?? options.maxBytes, options.maxBytes);
      let size = 0;
      try {
        for await (const chunk of response.body) {
          const bytes: Buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
          size += bytes.length;
          if (size > maxBytes) {
            response.body.destroy();
            throw new OutboundError(`${url.origin}: answer larger than ${maxBytes} bytes`);
          }
          chunks.push(bytes);
        }
      } catch (error) {
        if (error instanceof OutboundError) throw error;
        throw new OutboundError(`${url.origin}: ${describe(error)}`, { cause: error });
      }
      return { status: response.statusCode, text: Buffer.concat(chunks).toString('utf8'), headers: response.headers };
    },
    close: () => agent.destroy(),
  };
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.name}: ${error.message}${cause}`;
}

/**
 * A `fetch` on the guarded client, for code that expects one (jose's remote key set, the Names and Roles pager):
 * the same policies, the caller's signal as the one deadline, and a body cap. Only GET and POST with a string
 * body; redirects are never followed (a 3xx comes back as the answer). A deadline that passes rejects with the
 * signal's reason (a `TimeoutError`), as fetch does; a refused or failed exchange with `OutboundError`.
 */
export function guardedFetch(http: GuardedHttp, options: { maxBytes: number }): typeof fetch {
  return async (input, init = {}) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = (init.method ?? 'GET').toUpperCase();
    if (method !== 'GET' && method !== 'POST') throw new OutboundError(`method ${method} is not supported`);
    if (init.body !== undefined && init.body !== null && typeof init.body !== 'string') {
      throw new OutboundError('only string bodies are supported');
    }
    const signal = init.signal ?? AbortSignal.timeout(30_000);
    try {
      const answer = await http.request(url, {
        method,
        headers: Object.fromEntries(new Headers(init.headers).entries()),
        body: typeof init.body === 'string' ? init.body : undefined,
        signal,
        maxBytes: options.maxBytes,
      });
      const headers = new Headers();
      for (const [name, value] of Object.entries(answer.headers)) {
        for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, item);
      }
      // A Response cannot carry 1xx; any other status is passed on as it came.
      return new Response(answer.status === 204 || answer.status === 304 ? null : answer.text, { status: answer.status < 200 ? 502 : answer.status, headers });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw error;
    }
  };
}
