import type { RequestHandler } from 'express';
import type { Logger } from '../logger.js';

/** Probes and scrapes come from the balancer or the monitoring itself, without a forwarded client address. */
const DIRECT_PATHS = new Set(['/healthz', '/readyz', '/metrics']);
/** After its first warning, the check says it again at most this often (with the count meanwhile). */
export const FORWARDED_WARNING_EVERY_MS = 60 * 60_000;

/**
 * With TRUST_PROXY_HOPS set, the client's address comes from `X-Forwarded-For`. A proxy that does not send it
 * (HAProxy without `option forwardfor`) makes every user the proxy's address, so that all of them share one
 * rate-limit bucket: warn, once and then hourly, rather than let a class start hit 429s unexplained.
 */
export function warnWithoutForwardedFor(options: { trustProxyHops: number; logger: Logger; now?: () => number }): RequestHandler {
  const now = options.now ?? Date.now;
  let warnedAt: number | undefined;
  let missedSince = 0;
  return (req, _res, next) => {
    if (options.trustProxyHops === 0 || DIRECT_PATHS.has(req.path) || req.get('x-forwarded-for') !== undefined) return next();
    missedSince += 1;
    if (warnedAt === undefined || now() - warnedAt >= FORWARDED_WARNING_EVERY_MS) {
      options.logger.warn(
        { trustProxyHops: options.trustProxyHops, requestsWithoutHeader: missedSince, clientAddress: req.socket.remoteAddress, path: req.path },
        'TRUST_PROXY_HOPS is set but a request arrived without X-Forwarded-For: every user seems to come from the proxy and shares its rate limits. Make the proxy send the header (HAProxy: option forwardfor; nginx: proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for) or set TRUST_PROXY_HOPS=0',
      );
      warnedAt = now();
      missedSince = 0;
    }
    next();
  };
}
