import { createRemoteJWKSet, customFetch, importJWK, importSPKI } from 'jose';
import type { LtijsPlatformAuthConfig } from 'ltijs';
import type { KeyResolver } from './rsa-jwt.js';

/**
 * Resolves the key that verifies a platform's id_token. Key sets are cached per URL (ltijs fetches the
 * JWKS on every launch, with no timeout); an unknown `kid` triggers one refetch, rate-limited by a cooldown.
 * A platform's key set URL is chosen by whoever registered it: `fetch` is the guarded client (address policy,
 * size cap, no redirects), and `timeoutMs` the one deadline of each fetch.
 */
export interface PlatformKeys {
  resolver(authConfig: LtijsPlatformAuthConfig): KeyResolver;
}

/** Largest key set read: a platform publishes a handful of keys (a few kB); anything near this is not a key set. */
export const MAX_KEY_SET_BYTES = 256 * 1024;

export function createPlatformKeys(options: { timeoutMs?: number; cacheMaxAgeMs?: number; cooldownMs?: number; userAgent: string; fetch?: typeof fetch }): PlatformKeys {
  const remoteSets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();
  return {
    resolver(authConfig) {
      switch (authConfig.method) {
        case 'JWK_SET': {
          let set = remoteSets.get(authConfig.key);
          if (!set) {
            set = createRemoteJWKSet(new URL(authConfig.key), {
              timeoutDuration: options.timeoutMs ?? 5000,
              cacheMaxAge: options.cacheMaxAgeMs ?? 10 * 60_000,
              cooldownDuration: options.cooldownMs ?? 30_000,
              headers: { 'User-Agent': options.userAgent },
              ...(options.fetch ? { [customFetch]: options.fetch } : {}),
            });
            remoteSets.set(authConfig.key, set);
          }
          return set;
        }
        case 'JWK_KEY': {
          const jwk: unknown = typeof authConfig.key === 'string' ? JSON.parse(authConfig.key) : authConfig.key;
          return async (header) => importJWK(jwk as Parameters<typeof importJWK>[0], header.alg);
        }
        case 'RSA_KEY':
          return async (header) => importSPKI(authConfig.key, header.alg ?? 'RS256');
        default:
          throw new Error('platform has no usable authConfig');
      }
    },
  };
}
