import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { requestContext } from '../logger.js';

/** What a proxy's X-Request-Id may look like to be reused (uuids, hex, ULIDs, nginx's $request_id …). */
const FORWARDED_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/**
 * Gives every request an id: the trusted proxy's `X-Request-Id` when there is one, else a new uuid. It is sent
 * back as `X-Request-Id` and carried by every log line written while the request is served.
 */
export function requestIds(options: { trustForwardedId: boolean }): RequestHandler {
  return (req, res, next) => {
    const forwarded = options.trustForwardedId ? req.get('x-request-id') : undefined;
    const reqId = forwarded !== undefined && FORWARDED_ID.test(forwarded) ? forwarded : randomUUID();
    res.set('X-Request-Id', reqId);
    requestContext.run({ reqId }, next);
  };
}
