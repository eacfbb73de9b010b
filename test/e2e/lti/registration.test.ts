import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { createRegistrationLinks } from '../../../src/lti/registration-links.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { fakeLms } from '../../helpers/fake-lms.js';

describe('registration, Canvas configuration and health', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app.close();
  });

  it('healthz and readyz answer', async () => {
    const health = await supertest(app.baseUrl).get('/healthz');
    assert.equal(health.status, 200);
    const ready = await supertest(app.baseUrl).get('/readyz');
    assert.equal(ready.status, 200);
    assert.equal(ready.body.status, 'ready');
  });

  it('serves the JSON Canvas reads for a developer key', async () => {
    const response = await supertest(app.baseUrl).get('/lti/canvas.json');
    assert.equal(response.status, 200);
    assert.equal(response.body.oidc_initiation_url, `${app.baseUrl}/lti/login`);
    assert.equal(response.body.target_link_uri, `${app.baseUrl}/lti/launch`);
    assert.equal(response.body.public_jwk_url, `${app.baseUrl}/lti/keys`);
    const keys = await supertest(app.baseUrl).get('/lti/keys');
    assert.ok(Array.isArray(keys.body.keys) && keys.body.keys.length > 0);
  });

  it('refuses dynamic registration without an admin-issued link, and fetches nothing', async () => {
    const lms = await fakeLms({});
    try {
      const response = await supertest(app.baseUrl).get('/lti/register').query({ openid_configuration: `${lms.base}/.well-known/openid-configuration` });
      assert.equal(response.status, 403);
      assert.equal(lms.registrations.length, 0);
    } finally {
      await lms.close();
    }
  });

  it('registers through a link once, records the deployment id, and refuses the link again', async () => {
    const lms = await fakeLms({});
    try {
      const { token } = await createRegistrationLinks(app.db).issue(600);
      const response = await supertest(app.baseUrl)
        .get('/lti/register')
        .query({ link: token, openid_configuration: `${lms.base}/.well-known/openid-configuration`, registration_token: 'reg-token-1' });
      assert.equal(response.status, 200, response.text.slice(0, 400));
      assert.match(response.text, /activate/);
      assert.equal(lms.registrations.length, 1);
      assert.equal(lms.registrations[0]!.authorization, 'Bearer reg-token-1');
      const sent = lms.registrations[0]!.body;
      assert.equal(sent.initiate_login_uri, `${app.baseUrl}/lti/login`);
      assert.deepEqual(sent.redirect_uris, [`${app.baseUrl}/lti/launch`]);
      const platforms = await app.tool.lti.platforms.list();
      const registered = platforms.find((p) => p.issuer === lms.base);
      assert.ok(registered);
      assert.equal(registered.clientId, 'dyn-client-1');
      assert.deepEqual(registered.deploymentIds, ['7']);

      const again = await supertest(app.baseUrl).get('/lti/register').query({ link: token, openid_configuration: `${lms.base}/.well-known/openid-configuration` });
      assert.equal(again.status, 403);
      assert.equal(lms.registrations.length, 1);
    } finally {
      await lms.close();
    }
  });

  it('refuses a configuration whose issuer is on another host than the URL it came from', async () => {
    const lms = await fakeLms({ issuerHost: 'lms.attacker.example' });
    try {
      const { token } = await createRegistrationLinks(app.db).issue(600);
      const response = await supertest(app.baseUrl).get('/lti/register').query({ link: token, openid_configuration: `${lms.base}/.well-known/openid-configuration` });
      assert.equal(response.status, 400);
      assert.match(response.text, /registration refused/);
      assert.equal(lms.registrations.length, 0);
      assert.equal(await createRegistrationLinks(app.db).check(token), 'ok', 'a refused registration does not use up the link');
    } finally {
      await lms.close();
    }
  });
});
