import type { RequestHandler, Response } from 'express';
import { countResponse } from '../metrics.js';

/**
 * Route groups of `proctor_lti_http_responses_total` by the path's first segment (and under /lti/ its second): a
 * fixed vocabulary, so a path never becomes a label value (ids in paths would make a series per exam).
 */
const BY_FIRST_SEGMENT: ReadonlyMap<string, string> = new Map([
  ['hosted', 'hosted'],
  ['webhooks', 'webhooks'],
  ['admin', 'admin'],
  ['api', 'api'],
  ['healthz', 'health'],
  ['readyz', 'health'],
  ['metrics', 'metrics'],
  ['static', 'static'],
  ['favicon.ico', 'static'],
  ['sandbox', 'sandbox'],
  ['return', 'return'],
]);
const UNDER_LTI: ReadonlyMap<string, string> = new Map([
  ['login', 'lti_login'],
  ['launch', 'lti_launch'],
  ['keys', 'lti_setup'],
  ['register', 'lti_setup'],
  ['canvas.json', 'lti_setup'],
  ['api', 'lti_api'],
]);

/** The segment of `path` that starts at `from` (after a slash), up to the next slash. */
function segmentAt(path: string, from: number): string {
  const end = path.indexOf('/', from);
  return end === -1 ? path.slice(from) : path.slice(from, end);
}

export function routeGroupOf(path: string): string {
  const first = segmentAt(path, 1);
  if (first === 'lti') return UNDER_LTI.get(segmentAt(path, 5)) ?? 'lti_session';
  return BY_FIRST_SEGMENT.get(first) ?? 'other';
}

/** One listener shared by every response (not a closure per request, which would keep the request alive longer). */
function countClosedResponse(this: Response): void {
  const url = this.req.originalUrl;
  const query = url.indexOf('?');
  countResponse(routeGroupOf(query === -1 ? url : url.slice(0, query)), this.writableFinished ? this.statusCode : 'aborted');
}

/** Counts every answer by route group and status once it is sent, or as `aborted` when the client left first. */
export const responseMetrics: RequestHandler = (_req, res, next) => {
  res.once('close', countClosedResponse);
  next();
};
