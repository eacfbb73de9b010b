import { randomBytes } from 'node:crypto';
import { jwtVerify, type JWTVerifyGetKey } from 'jose';
import { NRPS_SCOPE } from './flavors.js';
import { messageOf } from '../../values.js';

/** Scopes this platform grants: only the services it serves. */
export const SUPPORTED_SCOPES: readonly string[] = [NRPS_SCOPE];

export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

const ACCESS_TOKEN_SECONDS = 3600;
const MAX_ENTRIES = 10_000;

export interface TokenGrant {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  scope: string;
}

export class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: 'invalid_request' | 'invalid_client' | 'unsupported_grant_type' | 'invalid_scope',
    readonly description: string,
  ) {
    super(description);
  }
}

/** Keeps `map` small: drops expired entries, then the oldest while full. */
function prune<V extends { expiresAt: number }>(map: Map<string, V>, now: number): void {
  for (const [key, value] of map) if (value.expiresAt <= now) map.delete(key);
  while (map.size >= MAX_ENTRIES) {
    const oldest = map.keys().next();
    if (oldest.done) break;
    map.delete(oldest.value);
  }
}

export interface OAuthServer {
  /** The client-credentials grant of the LTI security framework (RFC 7523 client assertion). */
  grant(form: Record<string, string | undefined>): Promise<TokenGrant>;
  issue(scopes: readonly string[]): TokenGrant;
  /** The scopes of a live access token, or undefined. */
  scopesOf(accessToken: string): ReadonlySet<string> | undefined;
  /** Records a one-time id (jti, nonce) until it expires; false when already seen. */
  remember(id: string, expiresAtMs: number): boolean;
}

export function createOAuthServer(options: {
  clientId: string;
  tokenUrl: string;
  toolKeys: () => JWTVerifyGetKey;
  now: () => number;
}): OAuthServer {
  const tokens = new Map<string, { scopes: Set<string>; expiresAt: number }>();
  const seen = new Map<string, { expiresAt: number }>();

  function issue(scopes: readonly string[]): TokenGrant {
    prune(tokens, options.now());
    const accessToken = randomBytes(32).toString('base64url');
    tokens.set(accessToken, { scopes: new Set(scopes), expiresAt: options.now() + ACCESS_TOKEN_SECONDS * 1000 });
    return { access_token: accessToken, token_type: 'bearer', expires_in: ACCESS_TOKEN_SECONDS, scope: scopes.join(' ') };
  }

  function remember(id: string, expiresAtMs: number): boolean {
    prune(seen, options.now());
    if (seen.has(id)) return false;
    seen.set(id, { expiresAt: expiresAtMs });
    return true;
  }

  return {
    issue,
    remember,
    scopesOf(accessToken) {
      const entry = tokens.get(accessToken);
      if (!entry || entry.expiresAt <= options.now()) return undefined;
      return entry.scopes;
    },
    async grant(form) {
      if (form.grant_type !== 'client_credentials') {
        throw new OAuthError(400, 'unsupported_grant_type', 'grant_type must be client_credentials');
      }
      if (form.client_assertion_type !== CLIENT_ASSERTION_TYPE) {
        throw new OAuthError(400, 'invalid_request', `client_assertion_type must be ${CLIENT_ASSERTION_TYPE}`);
      }
      if (!form.client_assertion) throw new OAuthError(400, 'invalid_request', 'client_assertion is missing');
      if (!form.scope) throw new OAuthError(400, 'invalid_request', 'scope is missing');

      let payload;
      try {
        ({ payload } = await jwtVerify(form.client_assertion, options.toolKeys(), {
          issuer: options.clientId,
          subject: options.clientId,
          // Exact match, as Canvas does: a trailing slash is another audience.
          audience: options.tokenUrl,
          algorithms: ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'PS256'],
          requiredClaims: ['exp', 'jti'],
          currentDate: new Date(options.now()),
          clockTolerance: 5,
          maxTokenAge: '10m',
        }));
      } catch (error) {
        throw new OAuthError(401, 'invalid_client', `client assertion refused: ${messageOf(error)}`);
      }
      const exp = payload.exp ?? 0;
      if (!remember(`jti:${String(payload.jti)}`, exp * 1000)) {
        throw new OAuthError(401, 'invalid_client', 'client assertion refused: jti already used');
      }

      const requested = form.scope.split(/\s+/).filter(Boolean);
      const granted = requested.filter((scope) => SUPPORTED_SCOPES.includes(scope));
      if (granted.length === 0) throw new OAuthError(400, 'invalid_scope', 'none of the requested scopes is available');
      return issue(granted);
    },
  };
}
