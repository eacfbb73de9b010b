import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { CLAIM } from '../../../src/lti/claims.js';
import type { DeploymentStore } from '../../../src/lti/deployments.js';
import { LtiRefusal, type LtiRefusalCode } from '../../../src/lti/errors.js';
import type { LoginStateStore } from '../../../src/lti/login-states.js';
import { createPlatformKeys } from '../../../src/lti/platform-keys.js';
import { createTokenValidator, type KnownPlatform, type TokenValidator } from '../../../src/lti/token-validator.js';

const ISSUER = 'https://lms.example';
const CLIENT_ID = 'tool-client';
const DEPLOYMENT_ID = 'deployment-1';
const STATE = 'state-1';
const NONCE = 'nonce-1';
const KID = 'key-1';

/**
 * The id_token checks of the LTI 1.3 security framework, one module alone: a platform with a real RSA key,
 * a login store and deployments that accept everything, so each test changes one thing about the token and
 * expects exactly one refusal code and detail.
 */
describe('token validator', () => {
  let privateKey: CryptoKey;
  let publicPem: string;
  let validate: TokenValidator;

  before(async () => {
    const pair = await generateKeyPair('RS256', { extractable: true });
    privateKey = pair.privateKey;
    publicPem = await exportSPKI(pair.publicKey);
    const platform: KnownPlatform = { clientId: CLIENT_ID, platformId: 'platform-1', active: true, authConfig: { method: 'RSA_KEY', key: publicPem } };
    const loginStates: Pick<LoginStateStore, 'describe' | 'consume'> = {
      describe: async () => undefined,
      consume: async (state, nonce) => (state === STATE && nonce === NONCE ? 'ok' : 'mismatch'),
    };
    const deployments: Pick<DeploymentStore, 'has'> = { has: async (issuer, clientId, deploymentId) => issuer === ISSUER && clientId === CLIENT_ID && deploymentId === DEPLOYMENT_ID };
    validate = createTokenValidator({
      findPlatform: async (issuer, clientId) => (issuer === ISSUER && clientId === CLIENT_ID ? platform : undefined),
      keys: createPlatformKeys({ userAgent: 'test' }),
      loginStates: { ...unusedLoginStates(), ...loginStates },
      deployments: { ...unusedDeployments(), ...deployments },
      publicUrl: new URL('https://tool.example'),
      clockSkewSeconds: 5,
      loginMaxAgeSeconds: 600,
    });
  });

  function claims(): JWTPayload {
    const now = Math.floor(Date.now() / 1000);
    return {
      iss: ISSUER,
      aud: CLIENT_ID,
      sub: 'user-1',
      nonce: NONCE,
      iat: now,
      exp: now + 300,
      [CLAIM.messageType]: 'LtiResourceLinkRequest',
      [CLAIM.version]: '1.3.0',
      [CLAIM.deploymentId]: DEPLOYMENT_ID,
      [CLAIM.targetLinkUri]: 'https://tool.example/lti/launch',
      [CLAIM.resourceLink]: { id: 'link-1' },
    };
  }

  const sign = (payload: JWTPayload) => new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid: KID }).sign(privateKey);
  const without = (name: string): JWTPayload => Object.fromEntries(Object.entries(claims()).filter(([key]) => key !== name));
  const launch = (token: string) => validate(token, { state: STATE, cookieIssuer: ISSUER });

  async function refused(token: string, code: LtiRefusalCode, detail: string): Promise<void> {
    await assert.rejects(launch(token), (error: unknown) => {
      assert.ok(error instanceof LtiRefusal, `an LtiRefusal, not ${String(error)}`);
      assert.equal(error.code, code);
      assert.equal(error.detail, detail);
      return true;
    });
  }

  it('accepts a well-formed launch signed with the platform key', async () => {
    const launched = await launch(await sign(claims()));
    assert.equal(launched.clientId, CLIENT_ID);
    assert.equal(launched.platformId, 'platform-1');
    assert.equal(launched.claims[CLAIM.deploymentId], DEPLOYMENT_ID);
  });

  describe('message type', () => {
    it('refuses a message type the tool does not handle', async () => {
      await refused(await sign({ ...claims(), [CLAIM.messageType]: 'LtiSubmissionReviewRequest' }), 'unsupported_message', 'message type LtiSubmissionReviewRequest');
    });

    it('refuses a launch without a message type', async () => {
      await refused(await sign(without(CLAIM.messageType)), 'unsupported_message', 'message type undefined');
    });
  });

  describe('each required claim missing', () => {
    for (const name of ['exp', 'iat', 'nonce', 'sub']) {
      it(`refuses a token without ${name}`, async () => {
        await refused(await sign(without(name)), 'missing_claim', `${name}: missing`);
      });
    }

    it('refuses an empty sub', async () => {
      await refused(await sign({ ...claims(), sub: '' }), 'missing_claim', 'sub: the launch has no user (sub)');
    });

    it('refuses a token without the LTI version', async () => {
      await refused(await sign(without(CLAIM.version)), 'missing_claim', `${CLAIM.version}: Invalid input: expected "1.3.0"`);
    });

    it('refuses a token of another LTI version', async () => {
      await refused(await sign({ ...claims(), [CLAIM.version]: '1.1' }), 'missing_claim', `${CLAIM.version}: Invalid input: expected "1.3.0"`);
    });

    it('refuses a token without a deployment id', async () => {
      await refused(await sign(without(CLAIM.deploymentId)), 'missing_claim', `${CLAIM.deploymentId}: Invalid input: expected string, received undefined`);
    });

    it('refuses a token without an audience', async () => {
      await refused(await sign(without('aud')), 'unregistered_platform', `no platform registered for issuer ${ISSUER} and client ids `);
    });

    it('refuses a token without an issuer', async () => {
      await refused(await sign(without('iss')), 'issuer_mismatch', `login was for ${ISSUER}, token is from undefined`);
    });
  });

  describe('algorithm downgrades', () => {
    it('refuses HS256 keyed with the platform\'s public key', async () => {
      const token = await new SignJWT(claims()).setProtectedHeader({ alg: 'HS256', kid: KID }).sign(new TextEncoder().encode(publicPem));
      await refused(token, 'bad_signature', 'unsupported signing algorithm HS256');
    });

    it('refuses an unsigned token (alg none)', async () => {
      const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
      await refused(`${part({ alg: 'none', typ: 'JWT' })}.${part(claims())}.`, 'bad_signature', 'unsupported signing algorithm none');
    });

    it('refuses a token whose header names no algorithm', async () => {
      const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
      await refused(`${part({ typ: 'JWT' })}.${part(claims())}.c2ln`, 'bad_signature', 'unsupported signing algorithm undefined');
    });
  });

  describe('audiences', () => {
    it('refuses several audiences without azp', async () => {
      await refused(await sign({ ...claims(), aud: [CLIENT_ID, 'another-tool'] }), 'audience_mismatch', 'several audiences and no azp');
    });

    it('accepts several audiences with azp naming this tool', async () => {
      const launched = await launch(await sign({ ...claims(), aud: ['another-tool', CLIENT_ID], azp: CLIENT_ID }));
      assert.equal(launched.clientId, CLIENT_ID);
    });

    it('accepts one audience in a list without azp', async () => {
      const launched = await launch(await sign({ ...claims(), aud: [CLIENT_ID] }));
      assert.equal(launched.clientId, CLIENT_ID);
    });
  });
});

/** The parts of the stores the validator never calls: a call fails the test. */
function unusedLoginStates(): LoginStateStore {
  const unused = (name: string) => () => {
    throw new Error(`loginStates.${name} is not used by the validator`);
  };
  return { bind: unused('bind'), describe: unused('describe'), consume: unused('consume'), claims: unused('claims'), hasNoLtijsState: unused('hasNoLtijsState'), purge: unused('purge') };
}

function unusedDeployments(): DeploymentStore {
  const unused = (name: string) => () => {
    throw new Error(`deployments.${name} is not used by the validator`);
  };
  return { add: unused('add'), list: unused('list'), has: unused('has'), removeAll: unused('removeAll'), remove: unused('remove') };
}
