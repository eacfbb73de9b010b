import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { doubleCsrf } from 'csrf-csrf';
import { wording } from '../i18n/index.js';
import { z } from 'zod';
import { AppError } from './errors.js';

export interface Csrf {
  /** A token for forms (hidden `_csrf` field) and scripts (`x-csrf-token` header) of this session. */
  tokenFor(req: Request, res: Response): string;
  /** Refuses POST, PUT, PATCH and DELETE without a token of this session (403). */
  protect: RequestHandler;
}

export interface CsrfOptions {
  /** Server secret the tokens are signed with; a list (newest first) during a key rotation: the newest signs, each verifies. */
  secret: string | readonly string[];
  /** https: the cookie is `__Host-`, Secure and SameSite=None (the tool is framed by the LMS). */
  secure: boolean;
  /** The identifier of the session the request belongs to (the LTI session token); '' when none. */
  sessionIdOf(req: Request): string;
  /** For pages never framed by an LMS (the admin console): own cookie name, SameSite=Strict. */
  cookie?: { name: string; sameSite: 'strict' };
}

/** A form's token field; a form without one (or with a list) carries no token and is refused as forged. */
const CSRF_FIELD = z.object({ _csrf: z.string() });

/**
 * Signed double-submit tokens (csrf-csrf), bound to the LTI session: a token issued for one launch is
 * worthless in another, and a page of another site can neither read the cookie nor the token.
 */
export function createCsrf(options: CsrfOptions): Csrf {
  const { generateCsrfToken, doubleCsrfProtection } = doubleCsrf({
    getSecret: () => (typeof options.secret === 'string' ? options.secret : [...options.secret]),
    getSessionIdentifier: (req) => createHash('sha256').update(options.sessionIdOf(req)).digest('base64url'),
    cookieName: `${options.secure ? '__Host-' : ''}${options.cookie?.name ?? 'proctor.csrf'}`,
    cookieOptions: { sameSite: options.cookie?.sameSite ?? (options.secure ? 'none' : 'lax'), secure: options.secure, path: '/', httpOnly: true },
    getCsrfTokenFromRequest: (req) => {
      const header = req.get('x-csrf-token');
      if (header) return header;
      return CSRF_FIELD.safeParse(req.body).data?._csrf;
    },
  });
  return {
    tokenFor: (req, res) => generateCsrfToken(req, res, { overwrite: false, validateOnReuse: false }),
    protect: (req, res, next) => {
      doubleCsrfProtection(req, res, (error?: unknown) => {
        if (error) {
          next(
            new AppError(403, 'csrf', 'This form has expired', 'This page has expired. Reload it and try again.', {
              adminText: wording('causes:launch.formExpired'),
              messageKey: 'common:errors.formExpired',
            }),
          );
          return;
        }
        next();
      });
    },
  };
}
