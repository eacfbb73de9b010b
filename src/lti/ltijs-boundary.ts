import { createSecretKey, type KeyObject } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Application, CookieOptions, NextFunction, Request, Response } from 'express';
import Auth from 'ltijs/dist/Utils/Auth.js';
import LtijsRequest from 'ltijs/dist/Utils/Request.js';
import { methodOverride } from '../http/request-slots.js';

/*
 * Everything the adapter does to ltijs beyond its public Provider API, in one place: the private modules it
 * patches, the express 4 internals it wraps, the express response methods it adjusts for ltijs's requests and
 * the store method it wraps for ltijs's calls.
 * docs/architecture.md lists each with its reason; test/unit/lti/ltijs-boundary.test.ts fails when an ltijs
 * release changes what they rely on.
 */

/** ltijs's id_token validation (Auth.validateToken, called by its launch route) replaced by the tool's own. */
export function replaceTokenValidation(validate: typeof Auth.validateToken): void {
  Auth.validateToken = validate;
}

/** ltijs's login request builder (Request.ltiAdvantageLogin, called by its login route) wrapped. */
export function wrapLoginRequest(wrap: (build: typeof LtijsRequest.ltiAdvantageLogin) => typeof LtijsRequest.ltiAdvantageLogin): void {
  LtijsRequest.ltiAdvantageLogin = wrap(LtijsRequest.ltiAdvantageLogin.bind(LtijsRequest));
}

/** ltijs's login request (Request.ltiAdvantageLogin, as wrapped by `wrapLoginRequest`), for the tool's own login route. */
export function ltijsLoginRequest(request: Record<string, string | undefined>, platform: unknown, state: string): Promise<Record<string, string>> {
  return LtijsRequest.ltiAdvantageLogin(request, platform, state);
}

/** A dependency of ltijs as ltijs itself loads it (the same module instance). */
function ltijsDependency(name: string): unknown {
  const provider = createRequire(import.meta.url).resolve('ltijs/dist/Provider/Provider.js');
  return createRequire(provider)(name);
}

/** The URL formatter ltijs's login route builds its redirect with (fast-url-parser's legacy `format`). */
export function ltijsUrlFormat(): (url: { pathname: string; query: Record<string, string> }) => string {
  return (ltijsDependency('fast-url-parser') as { format(url: { pathname: string; query: Record<string, string> }): string }).format;
}

/** The parts of jsonwebtoken 9 (ltijs's JWT library) that ltijs calls with its ENCRYPTIONKEY as a string. */
interface Jsonwebtoken {
  sign(payload: unknown, key: unknown, ...rest: unknown[]): unknown;
  verify(token: unknown, key: unknown, ...rest: unknown[]): unknown;
}

/** jsonwebtoken as ltijs loads it (ltijs's own dependency, the same module instance). */
export function ltijsJsonwebtoken(): Jsonwebtoken {
  return ltijsDependency('jsonwebtoken') as Jsonwebtoken;
}

const secretKeys = new Map<string, KeyObject>();
const MAX_SECRET_KEYS = 16;

/** A string secret as the KeyObject jsonwebtoken would make of it; PEM text and anything else unchanged. */
function importedSecret(key: unknown): unknown {
  if (typeof key !== 'string' || key.includes('-----BEGIN')) return key;
  let imported = secretKeys.get(key);
  if (!imported) {
    if (secretKeys.size >= MAX_SECRET_KEYS) secretKeys.clear();
    imported = createSecretKey(Buffer.from(key));
    secretKeys.set(key, imported);
  }
  return imported;
}

const patchedJwt = new WeakSet<object>();

/** During a key rotation: ENCRYPTION_KEY's older keys by its newest, which ltijs verifies its session tokens with. */
const olderSigningKeys = new Map<string, readonly string[]>();

/**
 * ltijs verifies a session token (ltik) with its one ENCRYPTION_KEY: a token another replica signed with a key
 * this one lists after its newest must verify too, or a rolling key rotation ends open sessions.
 */
export function acceptOlderSigningKeys(newest: string, older: readonly string[]): void {
  if (older.length > 0) olderSigningKeys.set(newest, [...older]);
  else olderSigningKeys.delete(newest);
}

function isBadSignature(error: unknown): boolean {
  return error instanceof Error && error.name === 'JsonWebTokenError' && error.message === 'invalid signature';
}

/**
 * ltijs signs and verifies its session token (ltik) with its ENCRYPTIONKEY as a string. jsonwebtoken 9 first
 * tries every string as a PEM key (createPrivateKey / createPublicKey), which throws, and only then makes a
 * secret key of it: an exception and a key import per launch. This gives it the secret key imported once;
 * the tokens are the same bytes (HMAC over the same key) and the same checks apply.
 */
export function importSecretKeysOnce(jwt: Jsonwebtoken = ltijsJsonwebtoken()): void {
  if (patchedJwt.has(jwt)) return;
  const { sign, verify } = jwt;
  jwt.sign = function (this: unknown, payload, key, ...rest) {
    return sign.call(this, payload, importedSecret(key), ...rest);
  };
  jwt.verify = function (this: unknown, token, key, ...rest) {
    const older = typeof key === 'string' ? olderSigningKeys.get(key) : undefined;
    if (!older || rest.some((argument) => typeof argument === 'function')) return verify.call(this, token, importedSecret(key), ...rest);
    let firstError: unknown;
    for (const candidate of [key, ...older]) {
      try {
        return verify.call(this, token, importedSecret(candidate), ...rest);
      } catch (error) {
        if (!isBadSignature(error)) throw error;
        firstError ??= error;
      }
    }
    throw firstError;
  };
  patchedJwt.add(jwt);
}

/**
 * ltijs 5.9.9 runs on express 4, whose router ignores the promise an async handler returns. ltijs's session
 * check awaits the database again inside its own `catch`, so during a database outage its handler rejects and
 * the rejection is unhandled: the request never gets an answer and Node ends the process. This wraps each
 * request handler of ltijs's app (top-level middleware and route handlers) so a rejection is passed to
 * `next(error)`, which express 4 hands on to the app ltijs is mounted in, whose error handler answers.
 */
interface Express4Layer {
  handle: (req: Request, res: Response, next: NextFunction) => unknown;
  route?: { stack: Express4Layer[] };
}

const wrapped = new WeakSet<object>();

/** `afterAnswer` hears rejections that come after the response was sent (nothing is left to answer). */
export function forwardRejections(app: Application, afterAnswer: (error: unknown, req: Request) => void): number {
  const stack = (app as unknown as { _router?: { stack?: Express4Layer[] } })._router?.stack;
  if (!stack) throw new Error('ltijs app has no express 4 router stack: check the ltijs version');
  let count = 0;
  const wrapLayers = (layers: Express4Layer[]) => {
    for (const layer of layers) {
      if (layer.route) wrapLayers(layer.route.stack);
      const handle = layer.handle;
      // Error handlers (four parameters) are recognised by their arity: leave them alone.
      if (handle.length > 3 || wrapped.has(handle)) continue;
      const safe = function (this: unknown, req: Request, res: Response, next: NextFunction): void {
        let result: unknown;
        try {
          result = handle.call(this, req, res, next);
        } catch (error) {
          next(error);
          return;
        }
        if (result instanceof Promise) result.catch((error: unknown) => (res.headersSent ? afterAnswer(error, req) : next(error)));
      };
      wrapped.add(safe);
      layer.handle = safe;
      count += 1;
    }
  };
  wrapLayers(stack);
  return count;
}

/** ltijs's own error answers, `{ status, error, details: { message, … } }`, which carry raw error text. */
function isLtijsErrorBody(body: unknown): body is { status: number; error: string; details: { message?: unknown } } {
  if (typeof body !== 'object' || body === null || Buffer.isBuffer(body)) return false;
  const candidate = body as Record<string, unknown>;
  return typeof candidate.status === 'number' && typeof candidate.error === 'string' && typeof candidate.details === 'object' && candidate.details !== null;
}

/**
 * ltijs answers its internal failures itself (`res.status(500).send({ status, error, details: { message } })`),
 * with the raw error message: a database error names the database, host and port. This wraps `res.send` of
 * one of ltijs's requests so that such an answer (status 500 or above, that body) is handed to `replace`, with
 * ltijs's message, instead of being sent; `replace` answers with the tool's own error response.
 */
const sendUnlessLtijsError = methodOverride<Response, [unknown?], Response, { replace: (ltijsMessage: string) => void; replaced: boolean }>(
  'send',
  (res, answer, send, [responseBody]) => {
    if (!answer.replaced && res.statusCode >= 500 && isLtijsErrorBody(responseBody)) {
      answer.replaced = true;
      answer.replace(typeof responseBody.details.message === 'string' ? responseBody.details.message : responseBody.error);
      return res;
    }
    return send(responseBody);
  },
);

export function replaceLtijsErrorAnswers(res: Response, replace: (ltijsMessage: string) => void): void {
  sendUnlessLtijsError(res, { replace, replaced: false });
}

/** The one method of ltijs's database interface this patch touches. */
interface LtijsDeleting {
  Delete(collection: string, query: Record<string, unknown>): Promise<boolean>;
}

/**
 * ltijs deletes a used login's `state` document without awaiting it (`this.Database.Delete('state', …)` in its
 * launch route): a failure there would become an unhandled rejection, which ends the process. The store's
 * `Delete` is wrapped so such a failure is only reported to `onStateDeleteFailure` (the document expires by
 * itself); a failed delete in any other collection still rejects, since ltijs awaits those.
 */
export function tolerateStateDeleteFailures<S extends LtijsDeleting>(store: S, onStateDeleteFailure: (error: unknown) => void): S {
  const deleteDocuments = store.Delete.bind(store);
  store.Delete = async (collection, query) => {
    try {
      return await deleteDocuments(collection, query);
    } catch (error) {
      if (collection !== 'state') throw error;
      onStateDeleteFailure(error);
      return true;
    }
  };
  return store;
}

type SetCookie = (name: string, value: string, options?: CookieOptions) => Response;

const watchStateCookie = methodOverride<Response, Parameters<SetCookie>, Response, (state: string) => void>('cookie', (_res, onState, setCookie, [name, value, options]) => {
  if (name.startsWith('state') && name.length > 'state'.length && value !== '') onState(name.slice('state'.length));
  return setCookie(name, value, options);
});

/**
 * Calls `onState` with the state of the login whose state cookie is set on `res` (ltijs's login route sets
 * `state<state>` right before it builds the login request with that state).
 */
export function onStateCookie(res: Response, onState: (state: string) => void): void {
  watchStateCookie(res, onState);
}

const PARTITIONED = { partitioned: true } as const;

/**
 * ltijs's cookies, adjusted: the login state cookie lives as long as a login may take (ltijs gives it 60 s,
 * too short when the LMS first asks the person to sign in), and over https every cookie is Partitioned
 * (CHIPS), so that a browser blocking third-party cookies still keeps them inside the LMS's frame, keyed
 * to the LMS's site. ltijs's own cookie options have no such attribute.
 */
const adjustCookies = methodOverride<Response, Parameters<SetCookie>, Response, { secure: boolean; loginMaxAgeSeconds: number }>(
  'cookie',
  (_res, { secure, loginMaxAgeSeconds }, setCookie, [name, value, options = {}]) => {
    const loginState = name.startsWith('state') && value !== '' && typeof options.maxAge === 'number';
    const adjusted: CookieOptions = { ...options, ...(secure ? PARTITIONED : undefined), ...(loginState ? { maxAge: loginMaxAgeSeconds * 1000 } : undefined) };
    return setCookie(name, value, adjusted);
  },
);

export function cookieAttributes(secure: boolean, loginMaxAgeSeconds: number) {
  const attributes = { secure, loginMaxAgeSeconds };
  return (_req: Request, res: Response, next: NextFunction) => {
    adjustCookies(res, attributes);
    next();
  };
}
