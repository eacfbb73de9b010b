import type { RequestHandler } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import type { Config } from '../config.js';
import { countRateLimited, registerRateLimiter } from '../metrics.js';
import { AppError } from './errors.js';
import { propertyOf } from '../values.js';

/**
 * Per-client request limits on the endpoints anyone may call without a session. A client is its address as
 * express sees it (`req.ip`: with TRUST_PROXY_HOPS set, the address the nearest trusted proxy reports; IPv6
 * grouped by /56, one household or site). Counters live in each process's memory: with several replicas each
 * counts for itself.
 *
 * How the defaults (per address and 5-minute window) were chosen: a whole exam hall starts at once from behind
 * one campus NAT. 1,000 students starting a launch within five minutes make 1,000 login initiations and 2,000
 * launch requests (the id_token POST and the GET with the session), more with "Try again" and new-window
 * re-logins; 5,000 per endpoint leaves room for that, and the proctoring pages of those students fetch the
 * hosted roster and logo a few times each (5,000). A flood from one address is cut at 5,000 login states per
 * window, and MAX_PENDING_LOGINS bounds what many addresses together can store. Dynamic registration is an
 * administrator's action: 30. The webhook receiver hears from the proctoring service's few senders, which
 * deliver a result per attempt as it is computed and again when it is recalculated: 10,000 per window holds a
 * recalculation of a large exam, and a flood of forgeries (each refused by its signature) is cut there.
 */
/** IPv6 clients are counted by this prefix: one household or site, which rotates addresses within it at will. */
export const IPV6_CLIENT_PREFIX = 56;

/** The client group an address counts in, as every limit counts it: an IPv4 address, or its IPv6 /56 network. */
export function clientKeyOf(address: string | undefined): string {
  return address ? ipKeyGenerator(address, IPV6_CLIENT_PREFIX) : 'unknown';
}

export interface RateLimitRule {
  /** Requests allowed per client and window; 0 switches the limit off. */
  limit: number;
  windowSeconds: number;
}

export class TooManyRequestsError extends AppError {
  constructor(retryAfterSeconds: number) {
    const wait = waitOf(retryAfterSeconds);
    super(429, 'too_many_requests', 'Too many requests', `Too many requests from your network. Please wait ${wait.amount} ${wait.unit} and try again.`, {
      retryable: true,
      messageKey: 'common:errors.tooManyRequests',
      messageValues: { ...wait },
    });
  }
}

function waitOf(seconds: number): { amount: number; unit: 'seconds' | 'minutes' } {
  return seconds < 90 ? { amount: Math.max(1, Math.ceil(seconds)), unit: 'seconds' } : { amount: Math.ceil(seconds / 60), unit: 'minutes' };
}

/**
 * A limiter for one endpoint (each has its own counters). Past the limit: 429 through the tool's error handler
 * (its page, or JSON under /hosted and /api) with `Retry-After`; `RateLimit` headers on every answer.
 */
export function createRateLimiter(name: string, rule: RateLimitRule): RequestHandler {
  if (rule.limit <= 0) return (_req, _res, next) => next();
  registerRateLimiter(name);
  return rateLimit({
    windowMs: rule.windowSeconds * 1000,
    limit: rule.limit,
    identifier: name,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    ipv6Subnet: IPV6_CLIENT_PREFIX,
    handler: (req, _res, next) => {
      countRateLimited(name);
      const resetTime = propertyOf(propertyOf(req, 'rateLimit'), 'resetTime');
      const seconds = resetTime instanceof Date ? (resetTime.getTime() - Date.now()) / 1000 : rule.windowSeconds;
      next(new TooManyRequestsError(seconds));
    },
  });
}

/** The tool's limiters, one per unauthenticated endpoint group, from the configuration. */
export function createRateLimits(config: Pick<Config, 'rateLimits'>) {
  const { windowSeconds } = config.rateLimits;
  return {
    login: createRateLimiter('lti-login', { limit: config.rateLimits.login, windowSeconds }),
    launch: createRateLimiter('lti-launch', { limit: config.rateLimits.launch, windowSeconds }),
    register: createRateLimiter('lti-register', { limit: config.rateLimits.register, windowSeconds }),
    hosted: createRateLimiter('hosted', { limit: config.rateLimits.hosted, windowSeconds }),
    webhooks: createRateLimiter('webhooks', { limit: config.rateLimits.webhooks, windowSeconds }),
  };
}
