import { createRemoteJWKSet, importJWK, importSPKI, type JWTHeaderParameters, type FlattenedJWSInput, type CryptoKey } from 'jose';
import type { LtijsPlatformAuthConfig } from 'ltijs';

type KeyResolver = (header: JWTHeaderParameters, token: FlattenedJWSInput) => Promise<CryptoKey | Uint8Array>;

/**
 * Resolves the key that verifies a platform's id_token. Key sets are cached per URL (ltijs fetches the
 * JWKS on every launch, with no timeout); an unknown `kid` triggers one refetch, rate-limited by a cooldown.
 */
export interface PlatformKeys {
  resolver(authConfig: LtijsPlatformAuthConfig): KeyResolver;
}

export function createPlatformKeys(options: { timeoutMs?: number; cacheMaxAgeMs?: number; cooldownMs?: number; userAgent: string }): PlatformKeys {
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
