import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { presetEndpoints } from '../../../src/lti/platform-presets.js';

describe('static registration presets', () => {
  it("Learn: the developer portal's endpoints, the key set of the application", () => {
    assert.deepEqual(presetEndpoints('learn', { clientId: 'fe3ebd13-39a4-42c4-8b83-194f08e77f8a' }), {
      issuer: 'https://blackboard.com',
      authUrl: 'https://developer.blackboard.com/api/v1/gateway/oidcauth',
      tokenUrl: 'https://developer.blackboard.com/api/v1/gateway/oauth2/jwttoken',
      jwksUrl: 'https://developer.blackboard.com/api/v1/management/applications/fe3ebd13-39a4-42c4-8b83-194f08e77f8a/jwks.json',
    });
    assert.equal(presetEndpoints('learn', {}).jwksUrl, undefined, 'no key set without the client id');
  });

  it("Open edX: the LMS's own endpoints of one LTI configuration", () => {
    assert.deepEqual(presetEndpoints('openedx', { lmsUrl: 'https://courses.example.edu/', configId: '6c3b0e44-1f1e-4a2b-9c1d-0d3c8a1b2c3d' }), {
      issuer: 'https://courses.example.edu',
      authUrl: 'https://courses.example.edu/api/lti_consumer/v1/launch/',
      tokenUrl: 'https://courses.example.edu/api/lti_consumer/v1/token/6c3b0e44-1f1e-4a2b-9c1d-0d3c8a1b2c3d',
      jwksUrl: 'https://courses.example.edu/api/lti_consumer/v1/public_keysets/6c3b0e44-1f1e-4a2b-9c1d-0d3c8a1b2c3d',
    });
    assert.deepEqual(presetEndpoints('openedx', {}), {}, 'nothing without the LMS address');
  });
});
