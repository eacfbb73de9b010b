// Dynamic registration from an LMS whose openid-configuration or registration answer carries control
// characters (terminal escapes, C1 controls, bidi overrides, NUL, line breaks): refused with a clear page
// naming the field, and nothing stored. Through the real registration route, with a stand-in LMS on loopback.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { createRegistrationLinks } from '../../../src/lti/registration-links.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { fakeLms } from '../../helpers/fake-lms.js';

const PLATFORM_CONFIGURATION = 'https://purl.imsglobal.org/spec/lti-platform-configuration';
const TOOL_CONFIGURATION = 'https://purl.imsglobal.org/spec/lti-tool-configuration';

describe('dynamic registration with control characters', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app.close();
  });

  const cases: Array<{ field: string; configuration?: (base: string) => Record<string, unknown>; registered?: () => Record<string, unknown>; postsRegistration: boolean }> = [
    { field: 'issuer', configuration: (base) => ({ issuer: `${base}/\u001b[2J` }), postsRegistration: false },
    { field: 'token_endpoint', configuration: (base) => ({ token_endpoint: `${base}/token\u202e` }), postsRegistration: false },
    { field: 'jwks_uri', configuration: (base) => ({ jwks_uri: `${base}/jw\nks` }), postsRegistration: false },
    { field: 'authorization_endpoint', configuration: (base) => ({ authorization_endpoint: `${base}/auth\u0000` }), postsRegistration: false },
    { field: 'registration_endpoint', configuration: (base) => ({ registration_endpoint: `${base}/register\t` }), postsRegistration: false },
    { field: 'product_family_code', configuration: () => ({ [PLATFORM_CONFIGURATION]: { product_family_code: 'moodle\u009b31m', version: '1' } }), postsRegistration: false },
    { field: 'version', configuration: () => ({ [PLATFORM_CONFIGURATION]: { product_family_code: 'moodle', version: '4.5\u2066' } }), postsRegistration: false },
    { field: 'client_id', registered: () => ({ client_id: 'dyn\u001b]8;;https://evil.example\u0007client' }), postsRegistration: true },
    { field: 'deployment_id', registered: () => ({ [TOOL_CONFIGURATION]: { deployment_id: '7\r\nX-Injected: 1' } }), postsRegistration: true },
  ];

  for (const { field, configuration, registered, postsRegistration } of cases) {
    it(`control characters in ${field}: refused with a clear page, nothing stored`, async () => {
      const lms = await fakeLms({ configuration, registered });
      try {
        const platformsBefore = await app.tool.lti.platforms.list();
        const { token } = await createRegistrationLinks(app.db).issue(600);
        const response = await supertest(app.baseUrl)
          .get('/lti/register')
          .query({ link: token, openid_configuration: `${lms.base}/.well-known/openid-configuration`, registration_token: 'reg-token-1' });
        assert.equal(response.status, 400, response.text.slice(0, 400));
        assert.match(response.text, new RegExp(`control characters in ${field}`));
        assert.match(response.text, /registration refused/);
        // eslint-disable-next-line no-control-regex
        assert.doesNotMatch(response.text, /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/, 'the page shows none of them');
        assert.equal(lms.registrations.length, postsRegistration ? 1 : 0, postsRegistration ? 'the registration answer is checked' : 'nothing is sent to an LMS whose configuration is refused');
        assert.deepEqual(await app.tool.lti.platforms.list(), platformsBefore, 'no platform stored');
        const stored = await app.db.query<{ n: number }>("SELECT count(*) AS n FROM ltijs_documents WHERE collection = 'platform' AND doc::text LIKE $1", [`%${lms.base}%`]);
        assert.equal(stored.rows[0]!.n, 0, 'no platform document stored');
      } finally {
        await lms.close();
      }
    });
  }
});
