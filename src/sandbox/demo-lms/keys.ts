import type { KeyObject } from 'node:crypto';
import {
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  SignJWT,
  type CryptoKey,
  type JWK,
  type JWTHeaderParameters,
  type JWTPayload,
} from 'jose';
import { propertyOf } from '../../values.js';

export type SigningKey = CryptoKey | KeyObject | JWK | Uint8Array;

export interface PlatformKeys {
  kid: string;
  privateKey: CryptoKey | KeyObject | Uint8Array;
  publicJwk: JWK;
}

const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

/** The platform's RS256 signing key: the one given (it must be extractable), or a fresh 2048-bit pair. */
export async function platformKeys(given?: CryptoKey | KeyObject | JWK, kid?: string): Promise<PlatformKeys> {
  let privateKey: CryptoKey | KeyObject | Uint8Array;
  let jwk: JWK;
  if (!given) {
    const pair = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
    privateKey = pair.privateKey;
    jwk = await exportJWK(pair.publicKey);
  } else if (isJwk(given)) {
    privateKey = await importJWK({ ...given, alg: given.alg ?? 'RS256' }, 'RS256');
    jwk = given;
  } else {
    privateKey = given;
    jwk = await exportJWK(given);
  }
  const publicJwk: JWK = { ...jwk };
  for (const member of PRIVATE_JWK_MEMBERS) delete publicJwk[member];
  if (publicJwk.kty !== 'RSA') throw new Error('the demo LMS signs with RS256: give it an RSA key');
  const keyId = kid ?? jwk.kid ?? (await calculateJwkThumbprint(publicJwk));
  return {
    kid: keyId,
    privateKey,
    publicJwk: { kty: publicJwk.kty, n: publicJwk.n, e: publicJwk.e, kid: keyId, alg: 'RS256', use: 'sig' },
  };
}

function isJwk(key: CryptoKey | KeyObject | JWK): key is JWK {
  return typeof propertyOf(key, 'kty') === 'string';
}

export interface SignOptions {
  /** `kid` header; default the platform key's. */
  kid?: string;
  /** Key to sign with; default the platform key (a different key forges a bad signature). */
  key?: SigningKey;
  /** Header parameters merged over `{ alg: 'RS256', typ: 'JWT', kid }`. */
  header?: Partial<JWTHeaderParameters>;
}

/** Signs claims as they are: no iat/exp is added, so tests can sign expired or future tokens. */
export async function signJwt(keys: PlatformKeys, claims: JWTPayload, options: SignOptions = {}): Promise<string> {
  const header: JWTHeaderParameters = { alg: 'RS256', typ: 'JWT', kid: options.kid ?? keys.kid, ...options.header };
  let key = options.key ?? keys.privateKey;
  if (!(key instanceof Uint8Array) && isJwk(key)) key = await importJWK(key, header.alg);
  return new SignJWT(claims).setProtectedHeader(header).sign(key);
}
