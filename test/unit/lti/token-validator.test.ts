// Every check of the id_token validator, each on its own: a token that passes all of them but one is refused with
// that check's code and words, and a token that passes all of them is accepted with what the launch needs.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { generateKeyPairSync } from 'node:crypto';
import { errors as joseErrors, exportJWK, importPKCS8, importSPKI, SignJWT, UnsecuredJWT, type CryptoKey, type JWTPayload } from 'jose';
import type { LtijsPlatformAuthConfig } from 'ltijs';
import { CLAIM } from '../../../src/lti/claims.js';
import type { DeploymentStore } from '../../../src/lti/deployments.js';
import { LtiRefusal, type LtiRefusalCode, type RefusedRegistration } from '../../../src/lti/errors.js';
import type { LoginDescription, LoginStateStore } from '../../../src/lti/login-states.js';
import type { PlatformKeys } from '../../../src/lti/platform-keys.js';
import type { StorageProof } from '../../../src/lti/platform-storage.js';
import { createTokenValidator, type KnownPlatform } from '../../../src/lti/token-validator.js';
import { OutboundError } from '../../../src/net/guarded-http.js';

const ISS = 'https://lms.example.edu';
const CLIENT = 'client-1';
const DEPLOYMENT = 'deployment-1';
const STATE = 'state-1';
const NONCE = 'nonce-1';
const NOW = 1_800_000_000;
const SKEW = 10;
const MAX_AGE = 600;
const TOOL = new URL('https://tool.example.org');
const AUTH: LtijsPlatformAuthConfig = { method: 'JWK_SET', key: `${ISS}/jwks` };
const PLATFORM: KnownPlatform = { clientId: CLIENT, platformId: 'platform-1', active: true, authConfig: AUTH };

type Alg = 'RS256' | 'RS384' | 'RS512' | 'PS256' | 'HS256';
const keys = new Map<Alg, { privateKey: CryptoKey | Uint8Array; publicKey: CryptoKey | Uint8Array }>();
let otherKey: CryptoKey;

function baseClaims(): JWTPayload & Record<string, unknown> {
  return {
    iss: ISS,
    aud: CLIENT,
    sub: 'user-1',
    iat: NOW - 5,
    exp: NOW + 300,
    nonce: NONCE,
    name: 'Ada Lovelace',
    [CLAIM.messageType]: 'LtiResourceLinkRequest',
    [CLAIM.version]: '1.3.0',
    [CLAIM.deploymentId]: DEPLOYMENT,
    [CLAIM.targetLinkUri]: `${TOOL.origin}/lti/launch?exam=1`,
    [CLAIM.roles]: ['http://purl.imsglobal.org/vocab/lis/v2/membership#Learner'],
  };
}

/** The base claims with `changes` applied (a value of undefined removes the claim). */
function claimsWith(changes: Record<string, unknown> = {}): JWTPayload & Record<string, unknown> {
  const claims = baseClaims();
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) delete claims[name];
    else claims[name] = value;
  }
  return claims;
}

async function sign(changes: Record<string, unknown> = {}, options: { alg?: Alg; key?: CryptoKey } = {}): Promise<string> {
  const alg = options.alg ?? 'RS256';
  const key = options.key ?? keys.get(alg)!.privateKey;
  return new SignJWT(claimsWith(changes)).setProtectedHeader({ alg, kid: 'k1' }).sign(key);
}

interface Fixture {
  platforms?: Array<{ issuer: string; audience: string; platform: KnownPlatform }>;
  deployments?: string[];
  logins?: Record<string, LoginDescription>;
  consumeOutcome?: Awaited<ReturnType<LoginStateStore['consume']>>;
  resolverError?: unknown;
  now?: (() => number) | null;
}

interface Recorded {
  consumed: Array<{ state: string; nonce: string; claims: Record<string, unknown>; maxAgeSeconds: number }>;
  deploymentChecks: string[];
  authConfigs: LtijsPlatformAuthConfig[];
}

function login(overrides: Partial<LoginDescription> = {}): LoginDescription {
  return { issuer: ISS, clientId: CLIENT, framed: true, storageTarget: undefined, ageSeconds: 12, consumed: false, ...overrides };
}

function validatorFor(fixture: Fixture = {}) {
  const recorded: Recorded = { consumed: [], deploymentChecks: [], authConfigs: [] };
  const platforms = fixture.platforms ?? [{ issuer: ISS, audience: CLIENT, platform: PLATFORM }];
  const deployments = new Set(fixture.deployments ?? [`${ISS} ${CLIENT} ${DEPLOYMENT}`]);
  const logins = fixture.logins ?? {};
  const unused = () => Promise.reject(new Error('not used by the validator'));
  const loginStates: LoginStateStore = {
    bind: unused,
    claims: unused,
    purge: unused,
    hasNoLtijsState: () => false,
    describe: (state) => Promise.resolve(logins[state]),
    consume: (state, nonce, claims, maxAgeSeconds) => {
      recorded.consumed.push({ state, nonce, claims, maxAgeSeconds });
      return Promise.resolve(fixture.consumeOutcome ?? 'ok');
    },
  };
  const deploymentStore: DeploymentStore = {
    add: unused,
    list: unused,
    removeAll: unused,
    remove: unused,
    has: (issuer, clientId, deploymentId) => {
      recorded.deploymentChecks.push(`${issuer} ${clientId} ${deploymentId}`);
      return Promise.resolve(deployments.has(`${issuer} ${clientId} ${deploymentId}`));
    },
  };
  const platformKeys: PlatformKeys = {
    resolver: (authConfig) => {
      recorded.authConfigs.push(authConfig);
      return async (header) => {
        if (fixture.resolverError !== undefined) throw fixture.resolverError;
        const alg = header.alg as Alg;
        return keys.get(alg)?.publicKey ?? keys.get('RS256')!.publicKey;
      };
    },
  };
  const validate = createTokenValidator({
    findPlatform: (issuer, clientId) => Promise.resolve(platforms.find((p) => p.issuer === issuer && p.audience === clientId)?.platform),
    keys: platformKeys,
    loginStates,
    deployments: deploymentStore,
    publicUrl: TOOL,
    clockSkewSeconds: SKEW,
    loginMaxAgeSeconds: MAX_AGE,
    ...(fixture.now === null ? {} : { now: fixture.now ?? (() => NOW * 1000) }),
  });
  return { validate, recorded };
}

async function refusalOf(promise: Promise<unknown>): Promise<LtiRefusal> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof LtiRefusal, `an LtiRefusal, not ${String(error)}`);
    return error;
  }
  assert.fail('the token was accepted');
}

const COOKIE = { state: STATE, cookieIssuer: ISS };

// One RSA pair of the platform, imported for each algorithm, and one of someone else.
before(async () => {
  const pemPair = () => generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
  const platform = pemPair();
  for (const alg of ['RS256', 'RS384', 'RS512', 'PS256'] as const) {
    keys.set(alg, { privateKey: await importPKCS8(platform.privateKey, alg), publicKey: await importSPKI(platform.publicKey, alg, { extractable: true }) });
  }
  const secret = new TextEncoder().encode('a-shared-secret-that-is-long-enough-for-hs256!');
  keys.set('HS256', { privateKey: secret, publicKey: secret });
  otherKey = await importPKCS8(pemPair().privateKey, 'RS256');
});

describe('token validator: a token that passes every check', () => {
  it('is accepted with its payload, its claims, the client id and the platform id', async () => {
    const { validate, recorded } = validatorFor();
    const launch = await validate(await sign(), COOKIE);
    assert.deepEqual(launch.payload, baseClaims());
    assert.equal(launch.clientId, CLIENT);
    assert.equal(launch.platformId, 'platform-1');
    assert.equal(launch.claims.sub, 'user-1');
    assert.equal(launch.claims[CLAIM.deploymentId], DEPLOYMENT);
    assert.deepEqual(recorded.authConfigs, [AUTH], 'the platform key set of the registration is asked');
    assert.deepEqual(recorded.deploymentChecks, [`${ISS} ${CLIENT} ${DEPLOYMENT}`]);
    assert.equal(recorded.consumed.length, 1);
    const [consumed] = recorded.consumed;
    assert.equal(consumed!.state, STATE);
    assert.equal(consumed!.nonce, NONCE);
    assert.equal(consumed!.maxAgeSeconds, MAX_AGE);
    assert.equal(consumed!.claims.sub, 'user-1', 'the verified claims are kept with the login');
  });

  const accepted: Array<{ name: string; changes?: Record<string, unknown>; alg?: Alg; platforms?: Fixture['platforms'] }> = [
    { name: 'signed with RS384', alg: 'RS384' },
    { name: 'signed with RS512', alg: 'RS512' },
    { name: 'a deep-linking request', changes: { [CLAIM.messageType]: 'LtiDeepLinkingRequest' } },
    { name: 'no target_link_uri', changes: { [CLAIM.targetLinkUri]: undefined } },
    { name: 'target_link_uri on another path of the tool', changes: { [CLAIM.targetLinkUri]: `${TOOL.origin}/elsewhere` } },
    { name: 'aud as a list of one, without azp', changes: { aud: [CLIENT] } },
    { name: 'several audiences with azp naming the tool', changes: { aud: ['someone-else', CLIENT], azp: CLIENT } },
    { name: 'azp naming the tool with one audience', changes: { azp: CLIENT } },
    { name: 'expired, but within the clock skew', changes: { exp: NOW - SKEW + 1 } },
    { name: 'issued in the future, exactly at the clock skew', changes: { iat: NOW + SKEW } },
  ];
  for (const { name, changes, alg } of accepted) {
    it(`accepts ${name}`, async () => {
      const { validate } = validatorFor();
      const launch = await validate(await sign(changes, { alg }), COOKIE);
      assert.equal(launch.clientId, CLIENT);
    });
  }

  it('finds the platform by whichever audience is registered', async () => {
    const { validate, recorded } = validatorFor();
    const launch = await validate(await sign({ aud: ['someone-else', CLIENT], azp: CLIENT }), COOKIE);
    assert.equal(launch.platformId, 'platform-1');
    assert.deepEqual(recorded.authConfigs, [AUTH]);
  });

  it('reads the clock when no clock is given', async () => {
    const { validate } = validatorFor({ now: null });
    const now = Math.floor(Date.now() / 1000);
    const launch = await validate(await sign({ iat: now - 5, exp: now + 300 }), COOKIE);
    assert.equal(launch.clientId, CLIENT);
    const expired = await refusalOf(validate(await sign({ iat: now - 600, exp: now - 300 }), COOKIE));
    assert.equal(expired.code, 'token_expired');
  });
});

describe('token validator: the login behind the launch', () => {
  it('accepts the issuer read from the platform storage when the state cookie did not come back', async () => {
    const { validate } = validatorFor({ logins: { [STATE]: login({ storageTarget: '_parent' }) } });
    const proof: StorageProof = { state: STATE, nonce: NONCE };
    const launch = await validate(await sign(), { state: STATE, storageProof: proof });
    assert.equal(launch.clientId, CLIENT);
  });

  const cases: Array<{ name: string; context: { state?: string; cookieIssuer?: string; storageProof?: StorageProof }; logins?: Record<string, LoginDescription>; code: LtiRefusalCode; detail: string }> = [
    { name: 'the state cookie names another issuer', context: { state: STATE, cookieIssuer: 'https://other.example.edu' }, code: 'issuer_mismatch', detail: `login was for https://other.example.edu, token is from ${ISS}` },
    { name: 'no state cookie and no state', context: {}, code: 'nonce_invalid', detail: 'no state cookie, and no login was started with this state' },
    { name: 'no state cookie and an unknown state', context: { state: STATE }, code: 'nonce_invalid', detail: 'no state cookie, and no login was started with this state' },
    { name: 'no state cookie, a login older than allowed', context: { state: STATE }, logins: { [STATE]: login({ ageSeconds: MAX_AGE + 0.6 }) }, code: 'login_too_slow', detail: `no state cookie: the login started 601 s ago, longer than the ${MAX_AGE} s it may take` },
    { name: 'no state cookie, a login in a window of its own', context: { state: STATE }, logins: { [STATE]: login({ framed: false, ageSeconds: 12.4 }) }, code: 'cookies_refused_top_level', detail: 'no state cookie although the login (12 s ago) ran in a window of its own' },
    { name: 'no state cookie, a login exactly as old as allowed, in a frame', context: { state: STATE }, logins: { [STATE]: login({ ageSeconds: MAX_AGE }) }, code: 'missing_validation_cookie', detail: `no state cookie: the login (${MAX_AGE} s ago) ran inside a frame` },
    { name: 'no state cookie, a login of unknown context', context: { state: STATE }, logins: { [STATE]: login({ framed: undefined }) }, code: 'missing_validation_cookie', detail: 'no state cookie: the login (12 s ago) ran in an unknown context (no Sec-Fetch-Dest)' },
    { name: 'a storage proof without a state', context: { storageProof: { state: STATE, nonce: NONCE } }, logins: { [STATE]: login({ storageTarget: '_parent' }) }, code: 'nonce_invalid', detail: 'no state cookie, and no login was started with this state' },
    { name: 'a storage proof for an unknown state', context: { state: STATE, storageProof: { state: STATE, nonce: NONCE } }, code: 'nonce_invalid', detail: 'no state cookie, and no login was started with this state' },
    { name: 'a storage proof of another nonce', context: { state: STATE, storageProof: { state: STATE, nonce: 'other' } }, logins: { [STATE]: login({ storageTarget: '_parent' }) }, code: 'missing_validation_cookie', detail: 'no state cookie: the login (12 s ago) ran inside a frame' },
    { name: 'a storage proof for a login of another issuer', context: { state: STATE, storageProof: { state: STATE, nonce: NONCE } }, logins: { [STATE]: login({ storageTarget: '_parent', issuer: 'https://other.example.edu' }) }, code: 'issuer_mismatch', detail: `login was for https://other.example.edu, token is from ${ISS}` },
  ];
  for (const { name, context, logins, code, detail } of cases) {
    it(`refuses ${name}: ${code}`, async () => {
      const { validate, recorded } = validatorFor({ logins });
      const refusal = await refusalOf(validate(await sign(), context));
      assert.deepEqual({ code: refusal.code, detail: refusal.detail }, { code, detail });
      assert.equal(recorded.consumed.length, 0, 'no login is used up by a refused launch');
    });
  }
});

describe('token validator: the platform', () => {
  const cases: Array<{ name: string; changes?: Record<string, unknown>; platforms?: Fixture['platforms']; code: LtiRefusalCode; detail: string; registration?: RefusedRegistration }> = [
    { name: 'an unregistered client id', changes: { aud: 'client-9' }, code: 'unregistered_platform', detail: `no platform registered for issuer ${ISS} and client ids client-9`, registration: { issuer: ISS, clientId: 'client-9', deploymentId: DEPLOYMENT } },
    { name: 'an unregistered client id and a deployment id that is not text', changes: { aud: 'client-9', [CLAIM.deploymentId]: 7 }, code: 'unregistered_platform', detail: `no platform registered for issuer ${ISS} and client ids client-9`, registration: { issuer: ISS, clientId: 'client-9', deploymentId: undefined } },
    { name: 'several unregistered client ids', changes: { aud: ['client-8', 'client-9'], azp: 'client-8' }, code: 'unregistered_platform', detail: `no platform registered for issuer ${ISS} and client ids client-8, client-9` },
    { name: 'no aud at all', changes: { aud: undefined }, code: 'unregistered_platform', detail: `no platform registered for issuer ${ISS} and client ids ` },
    { name: 'an inactive platform', platforms: [{ issuer: ISS, audience: CLIENT, platform: { ...PLATFORM, active: false } }], code: 'inactive_platform', detail: `platform ${ISS} (client ${CLIENT}) is not activated` },
    { name: 'a token whose aud is not the client id of the registration found', platforms: [{ issuer: ISS, audience: CLIENT, platform: { ...PLATFORM, clientId: 'client-2' } }], code: 'audience_mismatch', detail: 'aud does not name this tool' },
  ];
  for (const { name, changes, platforms, code, detail, registration } of cases) {
    it(`refuses ${name}: ${code}`, async () => {
      const { validate, recorded } = validatorFor({ platforms });
      const refusal = await refusalOf(validate(await sign(changes), COOKIE));
      assert.deepEqual({ code: refusal.code, detail: refusal.detail, registration: refusal.registration }, { code, detail, registration });
      assert.equal(recorded.consumed.length, 0);
    });
  }
});

describe('token validator: the signature and the standard claims', () => {
  it('refuses what is not a JWT: invalid_token', async () => {
    const { validate } = validatorFor();
    const refusal = await refusalOf(validate('not-a-token', COOKIE));
    assert.deepEqual([refusal.code, refusal.detail], ['invalid_token', 'the id_token is not a readable JWT']);
  });

  it('refuses an unsigned token (alg none): bad_signature', async () => {
    const { validate } = validatorFor();
    const unsigned = new UnsecuredJWT(claimsWith()).encode();
    const refusal = await refusalOf(validate(unsigned, COOKIE));
    assert.deepEqual([refusal.code, refusal.detail], ['bad_signature', 'unsupported signing algorithm none']);
  });

  it('refuses a token whose header names no algorithm: bad_signature', async () => {
    const { validate } = validatorFor();
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const refusal = await refusalOf(validate(`${part({ typ: 'JWT' })}.${part(claimsWith())}.c2ln`, COOKIE));
    assert.deepEqual([refusal.code, refusal.detail], ['bad_signature', 'unsupported signing algorithm undefined']);
  });

  for (const alg of ['HS256', 'PS256'] as const) {
    it(`refuses a token signed with ${alg}, even with a key the platform holds: bad_signature`, async () => {
      const { validate } = validatorFor();
      const refusal = await refusalOf(validate(await sign({}, { alg }), COOKIE));
      assert.deepEqual([refusal.code, refusal.detail], ['bad_signature', `unsupported signing algorithm ${alg}`]);
    });
  }

  it('refuses a token signed with another key: bad_signature', async () => {
    const { validate } = validatorFor();
    const refusal = await refusalOf(validate(await sign({}, { key: otherKey }), COOKIE));
    assert.deepEqual([refusal.code, refusal.detail], ['bad_signature', 'signature does not verify']);
  });

  it('refuses a token whose HS256 signature uses the platform public key as a secret: bad_signature', async () => {
    const { validate } = validatorFor();
    const jwk = await exportJWK(keys.get('RS256')!.publicKey);
    const secret = new TextEncoder().encode(JSON.stringify(jwk));
    const forged = await new SignJWT(claimsWith()).setProtectedHeader({ alg: 'HS256' }).sign(secret);
    const refusal = await refusalOf(validate(forged, COOKIE));
    assert.equal(refusal.code, 'bad_signature');
  });

  const claims: Array<{ name: string; changes: Record<string, unknown>; code: LtiRefusalCode; detail: string }> = [
    { name: 'expired beyond the clock skew', changes: { exp: NOW - SKEW - 1 }, code: 'token_expired', detail: 'exp is in the past' },
    { name: 'not valid before a time beyond the clock skew', changes: { nbf: NOW + SKEW + 5 }, code: 'missing_claim', detail: 'nbf: check_failed' },
    { name: 'issued in the future beyond the clock skew', changes: { iat: NOW + SKEW + 1 }, code: 'token_from_future', detail: `iat is ${SKEW + 1} s in the future` },
    { name: 'without exp', changes: { exp: undefined }, code: 'missing_claim', detail: 'exp: missing' },
    { name: 'without iat', changes: { iat: undefined }, code: 'missing_claim', detail: 'iat: missing' },
    { name: 'without nonce', changes: { nonce: undefined }, code: 'missing_claim', detail: 'nonce: missing' },
    { name: 'without sub', changes: { sub: undefined }, code: 'missing_claim', detail: 'sub: missing' },
    { name: 'with an empty sub', changes: { sub: '' }, code: 'missing_claim', detail: 'sub: the launch has no user (sub)' },
    { name: 'without iss', changes: { iss: undefined }, code: 'issuer_mismatch', detail: `login was for ${ISS}, token is from undefined` },
    { name: 'several audiences and no azp', changes: { aud: [CLIENT, 'someone-else'] }, code: 'audience_mismatch', detail: 'several audiences and no azp' },
    { name: 'an azp naming another client', changes: { azp: 'someone-else' }, code: 'audience_mismatch', detail: 'azp someone-else is not this tool' },
    { name: 'an azp naming another client among several audiences', changes: { aud: [CLIENT, 'someone-else'], azp: 'someone-else' }, code: 'audience_mismatch', detail: 'azp someone-else is not this tool' },
  ];
  for (const { name, changes, code, detail } of claims) {
    it(`refuses a token ${name}: ${code}`, async () => {
      const { validate, recorded } = validatorFor();
      const refusal = await refusalOf(validate(await sign(changes), COOKIE));
      assert.deepEqual({ code: refusal.code, detail: refusal.detail }, { code, detail });
      assert.equal(recorded.consumed.length, 0);
    });
  }
});

describe('token validator: the platform key set', () => {
  const failures: Array<{ name: string; error: unknown; code: LtiRefusalCode; detail: string }> = [
    { name: 'a key set that does not answer in time', error: new joseErrors.JWKSTimeout(), code: 'key_unavailable', detail: 'the platform key set did not answer in time' },
    { name: 'no key matching the kid', error: new joseErrors.JWKSNoMatchingKey(), code: 'bad_signature', detail: 'no key of the platform matches the token kid' },
    { name: 'an invalid key set', error: new joseErrors.JWKSInvalid('bad'), code: 'key_unavailable', detail: 'the platform key set is invalid' },
    { name: 'several keys matching the kid', error: new joseErrors.JWKSMultipleMatchingKeys(), code: 'key_unavailable', detail: 'the platform key set is invalid' },
    { name: 'a key set answer that is not 200', error: new joseErrors.JOSEError('Expected 200 OK from the JSON Web Key Set HTTP response'), code: 'key_unavailable', detail: 'the platform key set could not be used: Expected 200 OK from the JSON Web Key Set HTTP response' },
    { name: 'another error of jose', error: new joseErrors.JOSENotSupported('unsupported key'), code: 'invalid_token', detail: 'ERR_JOSE_NOT_SUPPORTED' },
    { name: 'a refused outbound request', error: new OutboundError('address not allowed'), code: 'key_unavailable', detail: 'the platform key set could not be fetched: address not allowed' },
    { name: 'a failed fetch', error: new TypeError('fetch failed'), code: 'key_unavailable', detail: 'the platform key set could not be fetched: fetch failed' },
    { name: 'a refused connection (in the cause)', error: new Error('request failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:1') }), code: 'key_unavailable', detail: 'the platform key set could not be fetched: request failed' },
    { name: 'an unknown host', error: new Error('getaddrinfo ENOTFOUND lms.example.edu'), code: 'key_unavailable', detail: 'the platform key set could not be fetched: getaddrinfo ENOTFOUND lms.example.edu' },
    { name: 'a network error in capitals', error: new Error('Network unreachable'), code: 'key_unavailable', detail: 'the platform key set could not be fetched: Network unreachable' },
    { name: 'any other error', error: new Error('something else'), code: 'invalid_token', detail: 'something else' },
    { name: 'a thrown value that is no error', error: 'plain text', code: 'invalid_token', detail: 'unreadable token' },
    { name: 'a refusal of its own', error: new LtiRefusal('key_unavailable', 'as thrown'), code: 'key_unavailable', detail: 'as thrown' },
  ];
  for (const { name, error, code, detail } of failures) {
    it(`refuses when the key lookup fails with ${name}: ${code}`, async () => {
      const { validate } = validatorFor({ resolverError: error });
      const refusal = await refusalOf(validate(await sign(), COOKIE));
      assert.deepEqual({ code: refusal.code, detail: refusal.detail }, { code, detail });
    });
  }
});

describe('token validator: the LTI claims', () => {
  const cases: Array<{ name: string; changes: Record<string, unknown>; deployments?: string[]; code: LtiRefusalCode; detail: string; registration?: RefusedRegistration }> = [
    { name: 'another message type', changes: { [CLAIM.messageType]: 'LtiSubmissionReviewRequest' }, code: 'unsupported_message', detail: 'message type LtiSubmissionReviewRequest' },
    { name: 'no message type', changes: { [CLAIM.messageType]: undefined }, code: 'unsupported_message', detail: 'message type undefined' },
    { name: 'another LTI version', changes: { [CLAIM.version]: '1.1' }, code: 'missing_claim', detail: `${CLAIM.version}: Invalid input: expected "1.3.0"` },
    { name: 'no LTI version', changes: { [CLAIM.version]: undefined }, code: 'missing_claim', detail: `${CLAIM.version}: Invalid input: expected "1.3.0"` },
    { name: 'no deployment id', changes: { [CLAIM.deploymentId]: undefined }, code: 'missing_claim', detail: `${CLAIM.deploymentId}: Invalid input: expected string, received undefined` },
    { name: 'a resource link without its id', changes: { [CLAIM.resourceLink]: { title: 'Midterm' } }, code: 'missing_claim', detail: `${CLAIM.resourceLink}.id: Invalid input: expected string, received undefined` },
    { name: 'an unknown deployment', changes: {}, deployments: [], code: 'unknown_deployment', detail: `deployment ${DEPLOYMENT} of ${ISS} (client ${CLIENT}) is not registered`, registration: { issuer: ISS, clientId: CLIENT, deploymentId: DEPLOYMENT } },
    { name: 'a target_link_uri that is not a URL', changes: { [CLAIM.targetLinkUri]: 'not a url' }, code: 'wrong_target', detail: 'target_link_uri is not a URL' },
    { name: 'a target_link_uri of another site', changes: { [CLAIM.targetLinkUri]: 'https://evil.example/lti/launch' }, code: 'wrong_target', detail: 'target_link_uri points at https://evil.example' },
    { name: 'a target_link_uri of another port of the tool host', changes: { [CLAIM.targetLinkUri]: 'https://tool.example.org:8443/lti/launch' }, code: 'wrong_target', detail: 'target_link_uri points at https://tool.example.org:8443' },
    { name: 'a nonce that is not text', changes: { nonce: 42 }, code: 'nonce_invalid', detail: 'state or nonce missing' },
  ];
  for (const { name, changes, deployments, code, detail, registration } of cases) {
    it(`refuses ${name}: ${code}`, async () => {
      const { validate, recorded } = validatorFor({ deployments });
      const refusal = await refusalOf(validate(await sign(changes), COOKIE));
      assert.deepEqual({ code: refusal.code, detail: refusal.detail, registration: refusal.registration }, { code, detail, registration });
      assert.equal(recorded.consumed.length, 0);
    });
  }
});

describe('token validator: the nonce', () => {
  it('refuses a launch with the state cookie but no state: nonce_invalid', async () => {
    const { validate, recorded } = validatorFor();
    const refusal = await refusalOf(validate(await sign(), { cookieIssuer: ISS }));
    assert.deepEqual([refusal.code, refusal.detail], ['nonce_invalid', 'state or nonce missing']);
    assert.equal(recorded.consumed.length, 0);
  });

  const outcomes: Array<{ outcome: 'unknown' | 'replayed' | 'mismatch' | 'expired'; code: LtiRefusalCode; detail: string }> = [
    { outcome: 'expired', code: 'login_too_slow', detail: `the login request is older than ${MAX_AGE} s` },
    { outcome: 'unknown', code: 'nonce_invalid', detail: 'no login was started with this state' },
    { outcome: 'replayed', code: 'nonce_invalid', detail: 'this state and nonce were already used' },
    { outcome: 'mismatch', code: 'nonce_invalid', detail: 'the nonce is not the one issued with this state' },
  ];
  for (const { outcome, code, detail } of outcomes) {
    it(`refuses a login the store finds ${outcome}: ${code}`, async () => {
      const { validate, recorded } = validatorFor({ consumeOutcome: outcome });
      const refusal = await refusalOf(validate(await sign(), COOKIE));
      assert.deepEqual([refusal.code, refusal.detail], [code, detail]);
      assert.equal(recorded.consumed.length, 1);
    });
  }
});
