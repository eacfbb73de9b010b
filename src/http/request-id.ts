import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import type { Logger } from '../logger.js';
import { requestSlot } from './request-slots.js';

/** What a proxy's X-Request-Id may look like to be reused (uuids, hex, ULIDs, nginx's $request_id …). */
const FORWARDED_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/**
 * Gives every request an id: the trusted proxy's `X-Request-Id` when there is one, else a new uuid. It is sent
 * back as `X-Request-Id` and kept in `res.locals.reqId`; `requestLogger` writes it on every line of the request.
 */
export function requestIds(options: { trustForwardedId: boolean }): RequestHandler {
  return (req, res, next) => {
    const forwarded = options.trustForwardedId ? req.get('x-request-id') : undefined;
    const reqId = forwarded !== undefined && FORWARDED_ID.test(forwarded) ? forwarded : randomUUID();
    res.set('X-Request-Id', reqId);
    res.locals.reqId = reqId;
    next();
  };
}

/** The id `requestIds` gave this request; undefined for a request it did not see. */
export function requestIdOf(req: Request): string | undefined {
  const reqId: unknown = req.res?.locals.reqId;
  return typeof reqId === 'string' ? reqId : undefined;
}

const childLoggers = requestSlot<Request, { base: Logger; child: Logger }>('request logger');

/**
 * The log of one request: `logger` with the request's id (`reqId`) on every line, made once per request. A
 * request without an id (a router used on its own) logs to `logger` itself. Code below the routes gets this
 * logger passed down; the id is not looked up from an async context (on Node 20 an `AsyncLocalStorage` costs
 * every promise of the process an async hook).
 */
export function requestLogger(logger: Logger, req: Request): Logger {
  const cached = childLoggers.get(req);
  if (cached?.base === logger) return cached.child;
  const reqId = requestIdOf(req);
  if (reqId === undefined) return logger;
  const child = logger.child({ reqId });
  childLoggers.set(req, { base: logger, child });
  return child;
}
