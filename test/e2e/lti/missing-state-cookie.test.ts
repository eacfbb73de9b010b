import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { parseAutoSubmitForm } from '../../../src/sandbox/demo-lms/index.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

/**
 * When the state cookie does not come back with the id_token, the page says what is really wrong: a frame
 * whose browser blocks third-party cookies (open a new window), a window of its own that refuses cookies
 * (a new window would loop: allow cookies), or a login that took too long (open it again).
 */
describe('a launch without its state cookie says why', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app.close();
  });

  /** Runs the OIDC login as a browser loading it the given way; returns the id_token form and the login's cookies. */
  async function login(destination: 'document' | 'iframe') {
    const agent = supertest.agent(app.baseUrl);
    const initiation = await app.tool.sandbox!.demoLms.initiateLogin({ user: 'student', flavor: 'moodle' });
    const params = destination === 'iframe' ? { ...initiation.params, lti_storage_check: 'done' } : initiation.params;
    const toLogin = await agent.post(new URL(initiation.url).pathname).set('Sec-Fetch-Dest', destination).type('form').send(params);
    assert.equal(toLogin.status, 302, toLogin.text.slice(0, 300));
    const stateCookie = ([] as string[]).concat(toLogin.headers['set-cookie'] ?? []).find((cookie) => cookie.startsWith('state'));
    const auth = await agent.get(new URL(toLogin.headers.location as string).pathname + new URL(toLogin.headers.location as string).search);
    const form = parseAutoSubmitForm(auth.text);
    assert.ok(form?.fields.id_token && form.fields.state);
    return { agent, form, stateCookie: stateCookie ?? '', nonce: new URL(toLogin.headers.location as string).searchParams.get('nonce') ?? '' };
  }

  /** The id_token post as a browser that did not keep the cookie sends it. */
  const postWithoutCookie = (form: { fields: Record<string, string> }) =>
    supertest(app.baseUrl).post('/lti/launch').type('form').send({ id_token: form.fields.id_token, state: form.fields.state });

  it('a framed login: the browser blocks cookies in the frame, so a new window helps', async () => {
    const { form } = await login('iframe');
    const response = await postWithoutCookie(form);
    assert.equal(response.status, 401);
    assert.match(response.text, /inside a frame and the browser blocks third-party cookies/);
    assert.match(response.text, /open it in a new window/);
  });

  it('a login in a window of its own: a new window would loop, cookies must be allowed', async () => {
    const { form } = await login('document');
    const response = await postWithoutCookie(form);
    assert.equal(response.status, 401);
    assert.match(response.text, /already ran in a window of its own/);
    assert.match(response.text, /allow cookies for it/);
    assert.doesNotMatch(response.text, /open it in a new window/);
  });

  it('a login that took longer than a login may take: open it again (with or without the cookie)', async () => {
    for (const keepCookie of [false, true]) {
      const { agent, form } = await login('document');
      await app.db.query("UPDATE lti_login_states SET created_at = now() - interval '11 minutes' WHERE state = $1", [form.fields.state]);
      const response = keepCookie
        ? await agent.post('/lti/launch').type('form').send({ id_token: form.fields.id_token, state: form.fields.state })
        : await postWithoutCookie(form);
      assert.equal(response.status, 401, `cookie kept: ${keepCookie}`);
      assert.match(response.text, /Signing you in took too long/, `cookie kept: ${keepCookie}`);
      assert.doesNotMatch(response.text, /new window/);
    }
  });

  it('the state cookie lives as long as a login may take (10 minutes), not 60 s', async () => {
    const { stateCookie } = await login('document');
    assert.match(stateCookie, /Max-Age=600(;|$)/);
  });

  it('the nonce comes from a secure generator (32 base64url characters), not Math.random', async () => {
    const nonces = new Set<string>();
    for (let i = 0; i < 3; i += 1) nonces.add((await login('document')).nonce);
    assert.equal(nonces.size, 3);
    for (const nonce of nonces) assert.match(nonce, /^[A-Za-z0-9_-]{32}$/);
  });
});
