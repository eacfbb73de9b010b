import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { startTestApp, type TestApp } from '../../helpers/app.js';

describe('behind https, cookies work inside an LMS frame', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ PUBLIC_URL: 'https://proctor.example.edu' });
  });
  after(async () => {
    await app.close();
  });

  it('the login state cookie is SameSite=None; Secure; HttpOnly; Partitioned', async () => {
    const demoLms = app.tool.sandbox!.demoLms;
    const login = await demoLms.initiateLogin({ user: 'student' });
    const response = await supertest(app.baseUrl)
      .post('/lti/login')
      .type('form')
      .send({ ...login.params, target_link_uri: 'https://proctor.example.edu/lti/launch' });
    assert.equal(response.status, 302, response.text.slice(0, 300));
    const cookies = ([] as string[]).concat(response.headers['set-cookie'] ?? []);
    const state = cookies.find((cookie) => cookie.startsWith('state'));
    assert.ok(state, 'a state cookie is set');
    assert.match(state, /SameSite=None/i);
    assert.match(state, /;\s*Secure/i);
    assert.match(state, /HttpOnly/i);
    // CHIPS: kept inside the LMS's frame, keyed to the LMS's site, even where third-party cookies are blocked.
    assert.match(state, /;\s*Partitioned/i);
  });
});
