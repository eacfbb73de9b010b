import express, { type Request, type RequestHandler, type Response } from 'express';
import { LtiRefusal } from './errors.js';
import { ltijsJsonwebtoken } from './ltijs-boundary.js';
import { sessionChecks, sessionTokenOf } from './session-token.js';

export interface LaunchTokenSessionOptions {
  encryptionKey: string;
  sessionMaxAgeSeconds: number;
  refuse(req: Request, res: Response, refusal: LtiRefusal, status: number): void;
}

/** The form of such a route: a session token and a field or two. */
const FORM_MAX_BYTES = 16 * 1024;

/**
 * The session check of a route that needs only the launch behind a session token, not the documents ltijs stores
 * for the session: the token is taken from the form (never the URL), its signature checked with the newest key or,
 * during a key rotation, an older one, and its age with the session's maximum, as ltijs's check and the tool's own
 * would; nothing is read from the database. The route then reads its launch as any session route does (the login's
 * claims, `launchOf`). A launch may hand such a route its token without storing its ltijs session: the privacy
 * notice's button, on every student's first launch, costs no session write and no session read.
 */
export function launchTokenSession(options: LaunchTokenSessionOptions): RequestHandler[] {
  const jwt = ltijsJsonwebtoken();
  const verify: RequestHandler = (req, res, next) => {
    const ltik = sessionTokenOf(req);
    try {
      if (!ltik) throw new Error('no session token');
      jwt.verify(ltik, options.encryptionKey);
    } catch (error) {
      options.refuse(req, res, new LtiRefusal('invalid_token', error instanceof Error ? error.message : 'invalid session token'), 401);
      return;
    }
    res.locals.ltik = ltik;
    // The error page's "Try again" posts the same token again.
    res.locals.retryFields = { ltik };
    next();
  };
  return [express.urlencoded({ extended: false, limit: FORM_MAX_BYTES }), sessionChecks(options), verify];
}
