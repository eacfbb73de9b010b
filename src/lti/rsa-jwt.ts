import { KeyObject, verify } from 'node:crypto';
import { errors as joseErrors, type CryptoKey, type FlattenedJWSInput, type JWTHeaderParameters, type JWTPayload } from 'jose';
import { propertyOf } from '../values.js';

/**
 * An id_token's RSA signature and registered claims, checked as jose's `jwtVerify` checks them and failing with
 * jose's errors, but with node:crypto's synchronous verification: jose verifies through WebCrypto, an asynchronous
 * job that costs about three times the CPU (docs/performance.md). The key still comes from jose's resolvers (key
 * sets, their cache and `kid` matching).
 */

export type RsaAlgorithm = 'RS256' | 'RS384' | 'RS512';
export type KeyResolver = (header: JWTHeaderParameters, token: FlattenedJWSInput) => Promise<CryptoKey | Uint8Array>;

export interface ExpectedClaims {
  issuer: string;
  audience: string;
  /** Claims that must be present (jose's `requiredClaims`); iss and aud always are. */
  required: readonly string[];
  clockToleranceSeconds: number;
  nowSeconds: number;
}

const HASH_BITS: Record<RsaAlgorithm, number> = { RS256: 256, RS384: 384, RS512: 512 };

export const isRsaAlgorithm = (alg: unknown): alg is RsaAlgorithm => alg === 'RS256' || alg === 'RS384' || alg === 'RS512';
const MIN_MODULUS_BITS = 2048;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const keyObjects = new WeakMap<CryptoKey, KeyObject>();

/**
 * Verifies `token`'s signature with the key `resolveKey` gives for its header, then its claims. `header` and
 * `payload` are the token's own, already decoded (jose's `decodeProtectedHeader` and `decodeJwt`).
 */
export async function verifyRsaJwt(token: string, header: JWTHeaderParameters, payload: JWTPayload, alg: RsaAlgorithm, resolveKey: KeyResolver, expected: ExpectedClaims): Promise<void> {
  const [protectedPart, payloadPart, signaturePart, ...rest] = token.split('.');
  if (protectedPart === undefined || payloadPart === undefined || signaturePart === undefined || rest.length > 0 || !BASE64URL.test(signaturePart)) {
    throw new joseErrors.JWSInvalid('Invalid Compact JWS');
  }
  // jose refuses a critical header parameter it does not know and an unencoded payload in a JWT; so does this.
  if (header.crit !== undefined) throw new joseErrors.JOSENotSupported('Extension Header Parameters are not supported');
  if (header.b64 !== undefined && header.b64 !== true) throw new joseErrors.JWTInvalid('JWTs MUST NOT use unencoded payload');
  const key = usableKey(await resolveKey(header, { protected: protectedPart, payload: payloadPart, signature: signaturePart }), alg);
  if (!verify(`sha${HASH_BITS[alg]}`, Buffer.from(`${protectedPart}.${payloadPart}`), key, Buffer.from(signaturePart, 'base64url'))) {
    throw new joseErrors.JWSSignatureVerificationFailed();
  }
  checkClaims(payload, expected);
}

/** The key as node:crypto uses it, when jose would verify `alg` with it: an RSA public key for PKCS#1 v1.5 with the algorithm's hash, of at least 2048 bits. */
function usableKey(key: CryptoKey | Uint8Array, alg: RsaAlgorithm): KeyObject {
  if (key instanceof Uint8Array) throw new TypeError(`a secret key cannot verify ${alg}`);
  const known = keyObjects.get(key);
  if (known) return known;
  const hash = propertyOf(propertyOf(key.algorithm, 'hash'), 'name');
  if (key.type !== 'public' || key.algorithm.name !== 'RSASSA-PKCS1-v1_5' || hash !== `SHA-${HASH_BITS[alg]}`) {
    throw new TypeError(`CryptoKey does not support this operation, its algorithm must be RSASSA-PKCS1-v1_5 with SHA-${HASH_BITS[alg]}`);
  }
  if (!key.usages.includes('verify')) throw new TypeError('CryptoKey does not support this operation, its usages must include verify.');
  const keyObject = KeyObject.from(key);
  if ((keyObject.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_MODULUS_BITS) throw new TypeError(`${alg} requires key modulusLength to be ${MIN_MODULUS_BITS} bits or larger`);
  keyObjects.set(key, keyObject);
  return keyObject;
}

/** jose's checks of a JWT Claims Set, in its order and with its errors, for these options. */
function checkClaims(payload: JWTPayload, expected: ExpectedClaims): void {
  for (const claim of new Set([...expected.required, 'aud', 'iss'].reverse())) {
    if (!Object.hasOwn(payload, claim)) throw new joseErrors.JWTClaimValidationFailed(`missing required "${claim}" claim`, payload, claim, 'missing');
  }
  if (payload.iss !== expected.issuer) throw new joseErrors.JWTClaimValidationFailed('unexpected "iss" claim value', payload, 'iss', 'check_failed');
  const audiences: unknown = payload.aud;
  const audienceNamed = typeof audiences === 'string' ? audiences === expected.audience : Array.isArray(audiences) && audiences.includes(expected.audience);
  if (!audienceNamed) throw new joseErrors.JWTClaimValidationFailed('unexpected "aud" claim value', payload, 'aud', 'check_failed');
  numericDate(payload, 'iat');
  const nbf = numericDate(payload, 'nbf');
  if (nbf !== undefined && nbf > expected.nowSeconds + expected.clockToleranceSeconds) {
    throw new joseErrors.JWTClaimValidationFailed('"nbf" claim timestamp check failed', payload, 'nbf', 'check_failed');
  }
  const exp = numericDate(payload, 'exp');
  if (exp !== undefined && exp <= expected.nowSeconds - expected.clockToleranceSeconds) {
    throw new joseErrors.JWTExpired('"exp" claim timestamp check failed', payload, 'exp', 'check_failed');
  }
}

function numericDate(payload: JWTPayload, claim: 'iat' | 'nbf' | 'exp'): number | undefined {
  const value = payload[claim];
  if (value === undefined) return undefined;
  if (typeof value !== 'number') throw new joseErrors.JWTClaimValidationFailed(`"${claim}" claim must be a number`, payload, claim, 'invalid');
  return value;
}
