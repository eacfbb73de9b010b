import type { NextFunction, Request, Response } from 'express';
import { decodeJwt } from 'jose';
import { bodyFields } from '../http/request-input.js';
import { LtiRefusal } from './errors.js';

/**
 * The LTI session token (ltijs's ltik) a request carries: the form field `ltik` of a POST, or an
 * `Authorization: Bearer` (or ltijs's `LTIK-AUTH-V1 Token=`) header. Never read from a URL: a token there
 * ends up in access logs, browser history and Referer headers.
 */
export function sessionTokenOf(req: Request): string | undefined {
  const { ltik } = bodyFields(req);
  if (typeof ltik === 'string') return ltik;
  const header = req.get('authorization');
  return header?.match(/^(?:Bearer |LTIK-AUTH-V1 Token=)([^,\s]+)/)?.[1];
}

export interface SessionCheckOptions {
  sessionMaxAgeSeconds: number;
  refuse(req: Request, res: Response, refusal: LtiRefusal, status: number): void;
}

/**
 * Runs before ltijs's session check: a session token in the query string is refused (ltijs would accept
 * it), and a session older than its maximum age is refused (ltijs's sessions never expire).
 */
export function sessionChecks(options: SessionCheckOptions) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.query.ltik !== undefined) {
      options.refuse(req, res, new LtiRefusal('session_in_url', 'LTI session token in a URL'), 400);
      return;
    }
    const ltik = sessionTokenOf(req);
    if (ltik) {
      let issuedAt: number | undefined;
      try {
        issuedAt = decodeJwt(ltik).iat;
      } catch {
        issuedAt = undefined;
      }
      if (issuedAt === undefined || (issuedAt + options.sessionMaxAgeSeconds) * 1000 < Date.now()) {
        options.refuse(req, res, new LtiRefusal('session_expired', 'LTI session older than its maximum age'), 401);
        return;
      }
    }
    next();
  };
}
