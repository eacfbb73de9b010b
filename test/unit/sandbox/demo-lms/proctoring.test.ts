import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { createProctoringAttempts } from '../../../../src/sandbox/demo-lms/proctoring.js';

const LTI = 'https://purl.imsglobal.org/spec/lti/claim/';
const AP = 'https://purl.imsglobal.org/spec/lti-ap/claim/';

async function setUp() {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'tool-key', alg: 'RS256' };
  const keys = createLocalJWKSet({ keys: [jwk] });
  const attempts = createProctoringAttempts({ issuer: 'https://lms.example', clientId: 'client-1', deploymentId: 'dep-1', toolKeys: () => keys, now: Date.now });
  const sign = (claims: JWTPayload, kid = 'tool-key') => new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid }).sign(privateKey);
  const claimsFor = (start: { attemptNumber: number; sessionData?: string }, nonce = 'n-1'): JWTPayload => {
    const now = Math.floor(Date.now() / 1000);
    return {
      iss: 'client-1', aud: 'https://lms.example', iat: now, exp: now + 300, nonce,
      [`${LTI}deployment_id`]: 'dep-1', [`${LTI}message_type`]: 'LtiStartAssessment', [`${LTI}version`]: '1.3.0',
      [`${LTI}resource_link`]: { id: 'exam-1' }, [`${AP}session_data`]: start.sessionData, [`${AP}attempt_number`]: start.attemptNumber,
      [`${AP}end_assessment_return`]: true,
    };
  };
  return { attempts, sign, claimsFor };
}

describe('demo LMS: LTI Proctoring Services attempts', () => {
  it('numbers attempts: the same while one runs, the next after it ended', async () => {
    const { attempts, sign, claimsFor } = await setUp();
    const first = attempts.start('u1', 'exam-1');
    assert.equal(attempts.start('u1', 'exam-1').attemptNumber, 1);
    const again = attempts.start('u1', 'exam-1');
    const verified = await attempts.verifyStart(await sign(claimsFor(again)));
    assert.ok(verified.ok, verified.ok ? '' : verified.reason);
    assert.equal(first.attemptNumber, 1);
    assert.deepEqual(attempts.end(verified.attempt.id), { message: 'end', attemptNumber: 1 });
    assert.equal(attempts.start('u1', 'exam-1').attemptNumber, 2);
  });

  const refusals: Array<[string, (claims: JWTPayload) => JWTPayload, RegExp]> = [
    ['another audience', (c) => ({ ...c, aud: 'https://other.example' }), /aud/],
    ['another issuer', (c) => ({ ...c, iss: 'client-2' }), /iss/],
    ['an expired message', (c) => ({ ...c, exp: Math.floor(Date.now() / 1000) - 60 }), /exp/],
    ['another deployment', (c) => ({ ...c, [`${LTI}deployment_id`]: 'dep-2' }), /deployment/],
    ['another message type', (c) => ({ ...c, [`${LTI}message_type`]: 'LtiResourceLinkRequest' }), /message_type/],
    ['another resource link', (c) => ({ ...c, [`${LTI}resource_link`]: { id: 'exam-2' } }), /resource_link/],
    ['another attempt number', (c) => ({ ...c, [`${AP}attempt_number`]: 7 }), /attempt_number/],
    ['session data of no start', (c) => ({ ...c, [`${AP}session_data`]: 'forged' }), /session_data/],
  ];
  for (const [name, change, reason] of refusals) {
    it(`refuses ${name}`, async () => {
      const { attempts, sign, claimsFor } = await setUp();
      const start = attempts.start('u1', 'exam-1');
      const verified = await attempts.verifyStart(await sign(change(claimsFor(start))));
      assert.equal(verified.ok, false);
      if (!verified.ok) assert.match(verified.reason, reason);
    });
  }

  it('refuses a replay of an accepted message', async () => {
    const { attempts, sign, claimsFor } = await setUp();
    const token = await sign(claimsFor(attempts.start('u1', 'exam-1')));
    assert.ok((await attempts.verifyStart(token)).ok);
    assert.equal((await attempts.verifyStart(token)).ok, false);
  });
});
