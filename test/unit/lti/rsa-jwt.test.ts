// verifyRsaJwt against jose's jwtVerify, token by token: each accepts the same tokens and refuses the others with
// the same kind of error (class, claim and reason), so that a launch's refusal reads as it did with jose.
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign as signBytes, type KeyObject } from 'node:crypto';
import { describe, it } from 'node:test';
import { decodeJwt, decodeProtectedHeader, errors as joseErrors, importSPKI, jwtVerify, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { isRsaAlgorithm, verifyRsaJwt, type RsaAlgorithm } from '../../../src/lti/rsa-jwt.js';

const ISSUER = 'https://lms.example.edu';
const AUDIENCE = 'client-1';
const NOW = 1_800_000_000;
const SKEW = 5;
const REQUIRED = ['exp', 'iat', 'nonce', 'sub'] as const;

const pair = (modulusLength: number) => generateKeyPairSync('rsa', { modulusLength });
const platformKeys = pair(2048);
const otherKeys = pair(2048);
const shortKeys = pair(1024);
const spki = (key: KeyObject) => key.export({ type: 'spki', format: 'pem' }).toString();

const claims = (changes: Record<string, unknown> = {}): JWTPayload => {
  const base: Record<string, unknown> = { iss: ISSUER, aud: AUDIENCE, sub: 'user-1', nonce: 'n-1', iat: NOW - 10, exp: NOW + 300, ...changes };
  return Object.fromEntries(Object.entries(base).filter(([, value]) => value !== undefined));
};

async function sign(payload: JWTPayload, options: { alg?: RsaAlgorithm; key?: KeyObject } = {}): Promise<string> {
  return new SignJWT(payload).setProtectedHeader({ alg: options.alg ?? 'RS256', kid: 'k1' }).sign(options.key ?? platformKeys.privateKey);
}

/** What a verification ended in: accepted, or the error's class, claim and reason. */
async function outcome(verification: () => Promise<unknown>): Promise<string> {
  try {
    await verification();
    return 'accepted';
  } catch (error) {
    if (error instanceof joseErrors.JWTClaimValidationFailed || error instanceof joseErrors.JWTExpired) return `${error.name} ${error.claim} ${error.reason}`;
    if (error instanceof TypeError) return 'TypeError';
    if (error instanceof joseErrors.JOSEError) return error.name;
    throw error;
  }
}

async function both(token: string, key: CryptoKey | Uint8Array): Promise<{ ours: string; jose: string }> {
  const resolve = async () => key;
  const header = decodeProtectedHeader(token);
  const alg = header.alg;
  const ours = await outcome(async () => {
    if (!isRsaAlgorithm(alg)) throw new joseErrors.JOSEAlgNotAllowed();
    await verifyRsaJwt(token, { ...header, alg }, decodeJwt(token), alg, resolve, { issuer: ISSUER, audience: AUDIENCE, required: REQUIRED, clockToleranceSeconds: SKEW, nowSeconds: NOW });
  });
  const jose = await outcome(() =>
    jwtVerify(token, resolve, { issuer: ISSUER, audience: AUDIENCE, algorithms: ['RS256', 'RS384', 'RS512'], clockTolerance: SKEW, currentDate: new Date(NOW * 1000), requiredClaims: [...REQUIRED] }),
  );
  return { ours, jose };
}

/** A token signed by node:crypto, for what jose will not sign (a short key, a critical header parameter). */
function signRaw(header: Record<string, unknown>, payload: JWTPayload, key: KeyObject): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${encode({ alg: 'RS256', kid: 'k1', ...header })}.${encode(payload)}`;
  return `${input}.${signBytes('sha256', Buffer.from(input), key).toString('base64url')}`;
}

const importFor = (alg: RsaAlgorithm, key: KeyObject = platformKeys.publicKey) => importSPKI(spki(key), alg);

describe('verifyRsaJwt agrees with jose', () => {
  const cases: Array<{ name: string; token: () => Promise<string>; key?: () => Promise<CryptoKey | Uint8Array>; expected: string }> = [
    { name: 'a valid RS256 token', token: () => sign(claims()), expected: 'accepted' },
    { name: 'a valid RS384 token', token: () => sign(claims(), { alg: 'RS384' }), key: () => importFor('RS384'), expected: 'accepted' },
    { name: 'a valid RS512 token', token: () => sign(claims(), { alg: 'RS512' }), key: () => importFor('RS512'), expected: 'accepted' },
    { name: 'several audiences, this one among them', token: () => sign(claims({ aud: ['other', AUDIENCE] })), expected: 'accepted' },
    { name: 'expired within the clock skew', token: () => sign(claims({ exp: NOW - SKEW + 1 })), expected: 'accepted' },
    { name: 'signed with another key', token: () => sign(claims(), { key: otherKeys.privateKey }), expected: 'JWSSignatureVerificationFailed' },
    {
      name: 'a payload changed after signing',
      token: async () => {
        const [header, , signature] = (await sign(claims())).split('.');
        return `${header}.${Buffer.from(JSON.stringify(claims({ sub: 'admin' }))).toString('base64url')}.${signature}`;
      },
      expected: 'JWSSignatureVerificationFailed',
    },
    { name: 'an RS512 token and a key made for RS256', token: () => sign(claims(), { alg: 'RS512' }), expected: 'TypeError' },
    { name: 'a key of 1024 bits', token: async () => signRaw({}, claims(), shortKeys.privateKey), key: () => importFor('RS256', shortKeys.publicKey), expected: 'TypeError' },
    { name: 'a secret key', token: () => sign(claims()), key: async () => new Uint8Array(32), expected: 'TypeError' },
    { name: 'expired beyond the clock skew', token: () => sign(claims({ exp: NOW - SKEW })), expected: 'JWTExpired exp check_failed' },
    { name: 'not valid before a time beyond the clock skew', token: () => sign(claims({ nbf: NOW + SKEW + 1 })), expected: 'JWTClaimValidationFailed nbf check_failed' },
    { name: 'without exp', token: () => sign(claims({ exp: undefined })), expected: 'JWTClaimValidationFailed exp missing' },
    { name: 'without iat or exp (the first jose names)', token: () => sign(claims({ iat: undefined, exp: undefined })), expected: 'JWTClaimValidationFailed iat missing' },
    { name: 'without nonce', token: () => sign(claims({ nonce: undefined })), expected: 'JWTClaimValidationFailed nonce missing' },
    { name: 'without sub and iss', token: () => sign(claims({ sub: undefined, iss: undefined })), expected: 'JWTClaimValidationFailed iss missing' },
    { name: 'another issuer', token: () => sign(claims({ iss: 'https://other.example.edu' })), expected: 'JWTClaimValidationFailed iss check_failed' },
    { name: 'another audience', token: () => sign(claims({ aud: 'client-2' })), expected: 'JWTClaimValidationFailed aud check_failed' },
    { name: 'an iat that is not a number', token: () => sign(claims({ iat: 'yesterday' })), expected: 'JWTClaimValidationFailed iat invalid' },
    { name: 'an exp that is not a number', token: () => sign(claims({ exp: '2030-01-01' })), expected: 'JWTClaimValidationFailed exp invalid' },
    { name: 'a critical header parameter', token: async () => signRaw({ crit: ['urn:example:unknown'], 'urn:example:unknown': 1 }, claims(), platformKeys.privateKey), expected: 'refused' },
    { name: 'the same token without it (the case above fails for its header alone)', token: async () => signRaw({}, claims(), platformKeys.privateKey), expected: 'accepted' },
  ];
  for (const { name, token, key, expected } of cases) {
    it(`${name}: ${expected}`, async () => {
      const { ours, jose } = await both(await token(), await (key ?? (() => importFor('RS256')))());
      if (expected === 'refused') {
        assert.notEqual(ours, 'accepted');
        assert.notEqual(jose, 'accepted');
        return;
      }
      assert.equal(jose, expected, 'jose');
      assert.equal(ours, expected, 'verifyRsaJwt');
    });
  }

  it('refuses a signature that is not base64url, as jose does', async () => {
    const [header, payload, signature] = (await sign(claims())).split('.');
    const { ours, jose } = await both(`${header}.${payload}.${signature}=`, await importFor('RS256'));
    assert.notEqual(jose, 'accepted');
    assert.notEqual(ours, 'accepted');
  });
});
