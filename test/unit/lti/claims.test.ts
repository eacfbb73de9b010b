import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { launchClaimsSchema } from '../../../src/lti/claims.js';

describe('launch claims', () => {
  it('a null name reads as absent, a wrong type too, a name stays', () => {
    const claims = {
      iss: 'https://lms.example',
      sub: 'user',
      aud: 'client',
      'https://purl.imsglobal.org/spec/lti/claim/message_type': 'LtiResourceLinkRequest',
      'https://purl.imsglobal.org/spec/lti/claim/version': '1.3.0',
      'https://purl.imsglobal.org/spec/lti/claim/deployment_id': 'dep',
    };
    assert.equal(launchClaimsSchema.parse({ ...claims, name: null }).name, undefined);
    assert.equal(launchClaimsSchema.parse({ ...claims, name: 42 }).name, undefined);
    assert.equal(launchClaimsSchema.parse({ ...claims, name: 'Ada' }).name, 'Ada');
    assert.equal(launchClaimsSchema.parse(claims).name, undefined);
  });
});
