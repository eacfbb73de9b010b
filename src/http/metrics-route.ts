import { timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { metricsRegistry } from '../metrics.js';

/**
 * `GET /metrics` in Prometheus's text format, only for `Authorization: Bearer <METRICS_TOKEN>`. Without a
 * configured token, or with a missing or wrong one, the endpoint does not exist (404): nothing tells a
 * scanner that metrics are there.
 */
export function metricsRoute(token: string | undefined): RequestHandler {
  const expected = token === undefined ? undefined : Buffer.from(`Bearer ${token}`);
  return async (req, res, next) => {
    const given = Buffer.from(req.get('authorization') ?? '');
    if (!expected || given.length !== expected.length || !timingSafeEqual(given, expected)) {
      next();
      return;
    }
    res.set('Content-Type', metricsRegistry.contentType).set('Cache-Control', 'no-store');
    res.send(await metricsRegistry.metrics());
  };
}
