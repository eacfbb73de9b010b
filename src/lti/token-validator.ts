import { decodeJwt, decodeProtectedHeader, errors as joseErrors, type JWTPayload, type ProtectedHeaderParameters } from 'jose';
import type { LtijsPlatformAuthConfig } from 'ltijs';
import { CLAIM, claimsToKeep, LAUNCH_MESSAGE_TYPES, launchClaimsSchema, type LaunchClaims } from './claims.js';
import { isProctoringMessageType, readProctoringClaims } from './proctoring-claims.js';
import type { DeploymentStore } from './deployments.js';
import { LtiRefusal } from './errors.js';
import type { LoginStateStore } from './login-states.js';
import { OutboundError } from '../net/guarded-http.js';
import type { PlatformKeys } from './platform-keys.js';
import { isRsaAlgorithm, verifyRsaJwt } from './rsa-jwt.js';
import { storageProofMatches, type StorageProof } from './platform-storage.js';

export interface KnownPlatform {
  clientId: string;
  platformId: string;
  active: boolean;
  authConfig: LtijsPlatformAuthConfig;
}

export interface TokenValidatorDeps {
  findPlatform(issuer: string, clientId: string): Promise<KnownPlatform | undefined>;
  keys: PlatformKeys;
  loginStates: LoginStateStore;
  deployments: DeploymentStore;
  publicUrl: URL;
  clockSkewSeconds: number;
  /** How long after the login request the id_token may arrive. */
  loginMaxAgeSeconds: number;
  now?: () => number;
}

export interface ValidatedLaunch {
  /** The whole verified payload, as ltijs expects it back (plus clientId and platformId). */
  payload: JWTPayload & Record<string, unknown>;
  claims: LaunchClaims;
  clientId: string;
  platformId: string;
}

function decode(idToken: string): { payload: JWTPayload; header: ProtectedHeaderParameters } {
  try {
    return { payload: decodeJwt(idToken), header: decodeProtectedHeader(idToken) };
  } catch {
    throw new LtiRefusal('invalid_token', 'the id_token is not a readable JWT');
  }
}

function checkAuthorizedParty(payload: JWTPayload, clientId: string) {
  const azp = payload.azp;
  const multipleAudiences = Array.isArray(payload.aud) && payload.aud.length > 1;
  if (multipleAudiences && azp === undefined) throw new LtiRefusal('audience_mismatch', 'several audiences and no azp');
  if (azp !== undefined && azp !== clientId) throw new LtiRefusal('audience_mismatch', `azp ${String(azp)} is not this tool`);
}

function readClaims(payload: JWTPayload): LaunchClaims {
  const messageType = payload[CLAIM.messageType];
  if (!LAUNCH_MESSAGE_TYPES.some((known) => known === messageType)) {
    throw new LtiRefusal('unsupported_message', `message type ${String(messageType)}`);
  }
  const parsed = launchClaimsSchema.safeParse(payload);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new LtiRefusal('missing_claim', `${first?.path.join('.') ?? 'claims'}: ${first?.message ?? 'invalid'}`);
  }
  if (isProctoringMessageType(messageType)) {
    // LTI Proctoring Services 1.0: the assessment is the resource link, and the message's own claims must read.
    if (!parsed.data[CLAIM.resourceLink]) throw new LtiRefusal('missing_claim', `${CLAIM.resourceLink}: missing in ${messageType}`);
    const proctoring = readProctoringClaims(messageType, payload);
    if (!proctoring.ok) throw new LtiRefusal('missing_claim', `${proctoring.claim}: ${proctoring.problem}`);
  }
  return parsed.data;
}

/**
 * Every check of the LTI 1.3 security framework on an id_token, as small named steps run in order,
 * each refusing with its own code. It replaces ltijs's validation, which skips several of them
 * (nonce never stored, deployment not checked, iat in the future accepted, JWKS fetched on every launch).
 */
export function createTokenValidator(deps: TokenValidatorDeps) {
  const nowSeconds = () => Math.floor((deps.now?.() ?? Date.now()) / 1000);

  async function checkIssuerMatchesLogin(payload: JWTPayload, state: string | undefined, cookieIssuer: string | undefined, storageProof: StorageProof | undefined) {
    const loginIssuer = cookieIssuer ?? (await issuerFromPlatformStorage(payload, state, storageProof));
    if (!loginIssuer) throw await missingCookieRefusal(state);
    if (payload.iss !== loginIssuer) throw new LtiRefusal('issuer_mismatch', `login was for ${loginIssuer}, token is from ${String(payload.iss)}`);
  }

  /**
   * No state cookie, but the launch page read this login's state and nonce back from the platform's storage
   * (platform-storage.ts): the login's own row names the issuer, as the cookie would have. The nonce is
   * still checked against that row and used up by consumeNonce.
   */
  async function issuerFromPlatformStorage(payload: JWTPayload, state: string | undefined, proof: StorageProof | undefined): Promise<string | undefined> {
    if (!proof || !state) return undefined;
    const login = await deps.loginStates.describe(state);
    return login && storageProofMatches(login, proof, { state, nonce: payload.nonce }) ? login.issuer : undefined;
  }

  /** The state cookie did not come back: say why, from how the login behind this state ran. */
  async function missingCookieRefusal(state: string | undefined): Promise<LtiRefusal> {
    const login = state ? await deps.loginStates.describe(state) : undefined;
    if (!login) return new LtiRefusal('nonce_invalid', 'no state cookie, and no login was started with this state');
    const age = Math.round(login.ageSeconds);
    if (login.ageSeconds > deps.loginMaxAgeSeconds) {
      return new LtiRefusal('login_too_slow', `no state cookie: the login started ${age} s ago, longer than the ${deps.loginMaxAgeSeconds} s it may take`);
    }
    if (login.framed === false) {
      return new LtiRefusal('cookies_refused_top_level', `no state cookie although the login (${age} s ago) ran in a window of its own`);
    }
    const where = login.framed ? 'inside a frame' : 'in an unknown context (no Sec-Fetch-Dest)';
    return new LtiRefusal('missing_validation_cookie', `no state cookie: the login (${age} s ago) ran ${where}`);
  }

  async function findPlatform(payload: JWTPayload): Promise<{ platform: KnownPlatform; issuer: string }> {
    const issuer = payload.iss;
    if (!issuer) throw new LtiRefusal('invalid_token', 'the id_token has no iss');
    const audiences = Array.isArray(payload.aud) ? payload.aud : payload.aud ? [payload.aud] : [];
    for (const audience of audiences) {
      const platform = await deps.findPlatform(issuer, audience);
      if (platform) {
        if (!platform.active) throw new LtiRefusal('inactive_platform', `platform ${issuer} (client ${audience}) is not activated`);
        return { platform, issuer };
      }
    }
    const deploymentId = payload[CLAIM.deploymentId];
    throw new LtiRefusal('unregistered_platform', `no platform registered for issuer ${issuer} and client ids ${audiences.join(', ')}`, audiences.length === 1 ? { issuer, clientId: audiences[0]!, deploymentId: typeof deploymentId === 'string' ? deploymentId : undefined } : undefined);
  }

  /** The payload, once the token's signature and registered claims have been checked (`verifyRsaJwt`, as jose's `jwtVerify`). */
  async function verifySignature(idToken: string, header: ProtectedHeaderParameters, unverified: JWTPayload, platform: KnownPlatform, issuer: string) {
    const alg = header.alg;
    if (!isRsaAlgorithm(alg)) throw new LtiRefusal('bad_signature', `unsupported signing algorithm ${String(alg)}`);
    try {
      await verifyRsaJwt(idToken, { ...header, alg }, unverified, alg, deps.keys.resolver(platform.authConfig), {
        issuer,
        audience: platform.clientId,
        required: ['exp', 'iat', 'nonce', 'sub'],
        clockToleranceSeconds: deps.clockSkewSeconds,
        nowSeconds: nowSeconds(),
      });
      return unverified;
    } catch (error) {
      throw refusalFromJose(error);
    }
  }

  function checkIssuedAt(payload: JWTPayload) {
    if (typeof payload.iat !== 'number') throw new LtiRefusal('invalid_token', 'the id_token has no iat');
    if (payload.iat > nowSeconds() + deps.clockSkewSeconds) {
      throw new LtiRefusal('token_from_future', `iat is ${payload.iat - nowSeconds()} s in the future`);
    }
  }

  async function checkDeployment(claims: LaunchClaims, clientId: string) {
    const deploymentId = claims[CLAIM.deploymentId];
    if (!(await deps.deployments.has(claims.iss, clientId, deploymentId))) {
      throw new LtiRefusal('unknown_deployment', `deployment ${deploymentId} of ${claims.iss} (client ${clientId}) is not registered`, { issuer: claims.iss, clientId, deploymentId });
    }
  }

  function checkTargetLinkUri(claims: LaunchClaims) {
    const target = claims[CLAIM.targetLinkUri];
    if (target === undefined) return;
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      throw new LtiRefusal('wrong_target', 'target_link_uri is not a URL');
    }
    if (url.origin !== deps.publicUrl.origin) throw new LtiRefusal('wrong_target', `target_link_uri points at ${url.origin}`);
  }

  async function consumeNonce(state: string | undefined, payload: JWTPayload) {
    const nonce = payload.nonce;
    if (!state || typeof nonce !== 'string') throw new LtiRefusal('nonce_invalid', 'state or nonce missing');
    const outcome = await deps.loginStates.consume(state, nonce, claimsToKeep(payload), deps.loginMaxAgeSeconds);
    if (outcome === 'expired') throw new LtiRefusal('login_too_slow', `the login request is older than ${deps.loginMaxAgeSeconds} s`);
    if (outcome !== 'ok') {
      const detail = {
        unknown: 'no login was started with this state',
        replayed: 'this state and nonce were already used',
        mismatch: 'the nonce is not the one issued with this state',
        expired: 'the login request is too old',
      }[outcome];
      throw new LtiRefusal('nonce_invalid', detail);
    }
  }

  return async function validate(idToken: string, context: { state?: string; cookieIssuer?: string; storageProof?: StorageProof }): Promise<ValidatedLaunch> {
    const { payload: unverified, header } = decode(idToken);
    await checkIssuerMatchesLogin(unverified, context.state, context.cookieIssuer, context.storageProof);
    const { platform, issuer } = await findPlatform(unverified);
    const payload = await verifySignature(idToken, header, unverified, platform, issuer);
    checkIssuedAt(payload);
    checkAuthorizedParty(payload, platform.clientId);
    const claims = readClaims(payload);
    await checkDeployment(claims, platform.clientId);
    checkTargetLinkUri(claims);
    await consumeNonce(context.state, payload);
    return { payload: payload as ValidatedLaunch['payload'], claims, clientId: platform.clientId, platformId: platform.platformId };
  };
}

export type TokenValidator = ReturnType<typeof createTokenValidator>;

function refusalFromJose(error: unknown): LtiRefusal {
  if (error instanceof LtiRefusal) return error;
  if (error instanceof joseErrors.JWTExpired) return new LtiRefusal('token_expired', 'exp is in the past');
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return new LtiRefusal('audience_mismatch', 'aud does not name this tool');
    if (error.claim === 'iss') return new LtiRefusal('issuer_mismatch', 'iss does not match the platform');
    if (error.claim === 'iat' && error.reason === 'check_failed') return new LtiRefusal('token_from_future', 'iat is in the future');
    return new LtiRefusal('missing_claim', `${error.claim}: ${error.reason}`);
  }
  if (error instanceof joseErrors.JWKSTimeout) return new LtiRefusal('key_unavailable', 'the platform key set did not answer in time');
  if (error instanceof joseErrors.JWKSNoMatchingKey) return new LtiRefusal('bad_signature', 'no key of the platform matches the token kid');
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return new LtiRefusal('bad_signature', 'signature does not verify');
  if (error instanceof joseErrors.JWKSInvalid || error instanceof joseErrors.JWKSMultipleMatchingKeys) {
    return new LtiRefusal('key_unavailable', 'the platform key set is invalid');
  }
  // jose's own words for a key set answer that is not 200 or not JSON.
  if (error instanceof joseErrors.JOSEError && /JSON Web Key Set/.test(error.message)) {
    return new LtiRefusal('key_unavailable', `the platform key set could not be used: ${error.message}`);
  }
  if (error instanceof joseErrors.JOSEError) return new LtiRefusal('invalid_token', error.code);
  if (error instanceof OutboundError) return new LtiRefusal('key_unavailable', `the platform key set could not be fetched: ${error.message}`);
  if (error instanceof Error && /fetch|ECONN|ENOTFOUND|network/i.test(`${error.message} ${String(error.cause)}`)) {
    return new LtiRefusal('key_unavailable', `the platform key set could not be fetched: ${error.message}`);
  }
  return new LtiRefusal('invalid_token', error instanceof Error ? error.message : 'unreadable token');
}
