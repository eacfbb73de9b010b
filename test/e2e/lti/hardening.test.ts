import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { launch } from '../../helpers/lti-flow.js';

describe('ltijs gaps closed by the adapter', () => {
  let app: TestApp;
  let jwksFetches = 0;
  before(async () => {
    app = await startTestApp();
    // Count the tool's fetches of the platform key set (ltijs alone fetches it on every launch).
    const handler = app.server.listeners('request')[0] as (req: { url?: string }, res: unknown) => void;
    app.server.removeAllListeners('request');
    app.server.on('request', (req: { url?: string }, res: unknown) => {
      if (req.url?.startsWith('/sandbox/lms/jwks')) jwksFetches += 1;
      handler(req, res);
    });
  });
  after(async () => {
    await app.close();
  });

  it('caches the platform key set across launches', async () => {
    for (let i = 0; i < 3; i += 1) {
      const { response } = await launch(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
      assert.equal(response.status, 302);
    }
    assert.equal(jwksFetches, 1);
  });

  it('does not reflect arbitrary origins with credentials (ltijs CORS is off)', async () => {
    const response = await supertest(app.baseUrl).get('/lti/keys').set('Origin', 'https://evil.example');
    assert.equal(response.status, 200);
    assert.notEqual(response.headers['access-control-allow-origin'], 'https://evil.example');
    assert.notEqual(response.headers['access-control-allow-credentials'], 'true');
    const preflight = await supertest(app.baseUrl).options('/lti/launch').set('Origin', 'https://evil.example').set('Access-Control-Request-Method', 'POST');
    assert.notEqual(preflight.headers['access-control-allow-origin'], 'https://evil.example');
  });

  it('refuses a login whose target_link_uri is not on this tool, without redirecting', async () => {
    const login = await app.tool.sandbox!.demoLms.initiateLogin({ user: 'student' });
    const response = await supertest(app.baseUrl)
      .post(new URL(login.url).pathname)
      .type('form')
      .send({ ...login.params, target_link_uri: 'https://evil.example/lti/launch' });
    assert.equal(response.status, 400);
    assert.equal(response.headers.location, undefined);
  });

  it('answers an LMS user with a page, never echoing what was posted', async () => {
    const response = await supertest(app.baseUrl).post('/lti/launch').type('form').send({ id_token: 'not.a.jwt<script>', state: 'x' });
    assert.equal(response.status, 401);
    assert.match(response.text, /The sign-in message from your LMS could not be read\./);
    assert.doesNotMatch(response.text, /not\.a\.jwt|<script>/);
    assert.match(response.headers['content-type'] as string, /text\/html/);
  });
});
