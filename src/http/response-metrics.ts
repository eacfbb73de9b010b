import type { Request, RequestHandler, Response } from 'express';
import { countResponse } from '../metrics.js';

/**
 * Route groups of `proctor_lti_http_responses_total`, first match wins: a fixed vocabulary, so a path never
 * becomes a label value (ids in paths would make a series per exam).
 */
const ROUTE_GROUPS: readonly (readonly [group: string, path: RegExp])[] = [
  ['lti_login', /^\/lti\/login\/?$/],
  ['lti_launch', /^\/lti\/launch\/?$/],
  ['lti_setup', /^\/lti\/(?:keys|register|canvas\.json)(?:\/|$)/],
  ['lti_api', /^\/lti\/api\//],
  ['lti_session', /^\/lti(?:\/|$)/],
  ['hosted', /^\/hosted\//],
  ['webhooks', /^\/webhooks\//],
  ['admin', /^\/admin(?:\/|$)/],
  ['api', /^\/api\//],
  ['health', /^\/(?:healthz|readyz)$/],
  ['metrics', /^\/metrics$/],
  ['static', /^\/(?:static\/|favicon\.ico$)/],
  ['sandbox', /^\/sandbox(?:\/|$)/],
  ['return', /^\/return\//],
];

export function routeGroupOf(path: string): string {
  return ROUTE_GROUPS.find(([, pattern]) => pattern.test(path))?.[0] ?? 'other';
}

/** One listener shared by every response (not a closure per request, which would keep the request alive longer). */
function countClosedResponse(this: Response): void {
  const url = (this.req as Request).originalUrl;
  const query = url.indexOf('?');
  countResponse(routeGroupOf(query === -1 ? url : url.slice(0, query)), this.writableFinished ? this.statusCode : 'aborted');
}

/** Counts every answer by route group and status once it is sent, or as `aborted` when the client left first. */
export const responseMetrics: RequestHandler = (_req, res, next) => {
  res.once('close', countClosedResponse);
  next();
};
