import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { parseAutoSubmitForm } from '../../../src/sandbox/demo-lms/index.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

/**
 * The platform-storage login and launch over HTTP against the real app: the pages the tool answers, and
 * what its launch endpoint accepts from them. The browser half runs in the cross-site browser tests.
 */
describe('LTI platform storage: login and launch without the state cookie', () => {
  let app: TestApp;
  let authOrigin: string;
  before(async () => {
    app = await startTestApp();
    authOrigin = new URL(app.tool.sandbox!.demoLms.registration.authUrl).origin;
  });
  after(async () => {
    await app.close();
  });

  const attribute = (html: string, name: string) => new RegExp(`${name}="([^"]*)"`).exec(html)?.[1]?.replaceAll('&amp;', '&');

  /** A framed login whose LMS offers storage: the tool's storage page, its state and nonce, and the id_token form the LMS answers. */
  async function framedStorageLogin() {
    const initiation = await app.tool.sandbox!.demoLms.initiateLogin({ user: 'student', flavor: 'canvas', platformStorage: true });
    assert.equal(initiation.params.lti_storage_target, 'post_message_forwarding');
    const page = await supertest(app.baseUrl).post(new URL(initiation.url).pathname).set('Sec-Fetch-Dest', 'iframe').type('form').send(initiation.params);
    assert.equal(page.status, 200, page.text.slice(0, 300));
    const next = attribute(page.text, 'data-next');
    assert.ok(next);
    const authUrl = new URL(next);
    const state = authUrl.searchParams.get('state')!;
    const nonce = authUrl.searchParams.get('nonce')!;
    const auth = await supertest(authUrl.origin).get(authUrl.pathname + authUrl.search);
    const form = parseAutoSubmitForm(auth.text);
    assert.ok(form?.fields.id_token && form.fields.state === state);
    const stateCookie = ([] as string[]).concat(page.headers['set-cookie'] ?? []).find((cookie) => cookie.startsWith('state'));
    return { page, state, nonce, idToken: form.fields.id_token, stateCookie: stateCookie?.split(';')[0] };
  }

  const postIdToken = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
    supertest(app.baseUrl).post('/lti/launch').set(headers).type('form').send(fields);

  it("speaks the browser's language (the login carries no locale yet)", async () => {
    const initiation = await app.tool.sandbox!.demoLms.initiateLogin({ user: 'student', flavor: 'canvas', platformStorage: true });
    const page = await supertest(app.baseUrl).post(new URL(initiation.url).pathname).set('Sec-Fetch-Dest', 'iframe').set('Accept-Language', 'pt-BR,pt;q=0.9').type('form').send(initiation.params);
    assert.equal(page.status, 200);
    assert.match(page.text, /<html lang="pt-BR"/);
    assert.match(page.text, /Entrando pela página do seu curso…/);
    assert.match(page.text, /A página do seu curso não respondeu a tempo/);
    assert.doesNotMatch(page.text, /Signing you in|Continue</);
  });

  it('a framed login offered storage answers a page that stores state and nonce, then goes on to the platform', async () => {
    const { page, state, nonce } = await framedStorageLogin();
    assert.equal(page.headers['cache-control'], 'no-store');
    assert.equal(attribute(page.text, 'data-mode'), 'put');
    assert.equal(attribute(page.text, 'data-target'), 'post_message_forwarding');
    assert.equal(attribute(page.text, 'data-platform-origin'), authOrigin);
    assert.equal(attribute(page.text, 'data-state-key'), `state_${state}`);
    assert.equal(attribute(page.text, 'data-nonce-key'), `nonce_${nonce}`);
    assert.match(page.text, /<script src="\/static\/js\/lti-storage.js"><\/script>/);
    assert.doesNotMatch(page.text, /<script>/, 'no inline script');
    // The fallback form is the login again, on the cookie path, without the storage target.
    assert.match(page.text, /name="lti_storage_check" value="cookie"/);
    assert.doesNotMatch(page.text, /name="lti_storage_target"/);
    const row = await app.db.query<{ storage_target: string; framed: boolean }>('SELECT storage_target, framed FROM lti_login_states WHERE state = $1', [state]);
    assert.deepEqual(row.rows[0], { storage_target: 'post_message_forwarding', framed: true });
  });

  it('the fallback login and a login at the top level take the cookie path', async () => {
    const initiation = await app.tool.sandbox!.demoLms.initiateLogin({ user: 'student', flavor: 'canvas', platformStorage: true });
    const fallback = { ...initiation.params, lti_storage_check: 'cookie' };
    delete (fallback as Record<string, string | undefined>).lti_storage_target;
    const check = await supertest(app.baseUrl).post('/lti/login').set('Sec-Fetch-Dest', 'iframe').type('form').send(fallback);
    assert.equal(check.status, 200);
    assert.match(check.text, /data-cookie-check/);
    const topLevel = await supertest(app.baseUrl).post('/lti/login').set('Sec-Fetch-Dest', 'document').type('form').send(initiation.params);
    assert.equal(topLevel.status, 302);
  });

  it('the id_token without its cookie is answered by a page that reads the login back; the login is not used up', async () => {
    const { state, nonce, idToken } = await framedStorageLogin();
    const page = await postIdToken({ id_token: idToken, state });
    assert.equal(page.status, 200, page.text.slice(0, 300));
    assert.equal(page.headers['cache-control'], 'no-store');
    assert.equal(attribute(page.text, 'data-mode'), 'get');
    assert.equal(attribute(page.text, 'data-platform-origin'), authOrigin);
    assert.equal(attribute(page.text, 'data-state-key'), `state_${state}`);
    assert.equal(attribute(page.text, 'data-nonce-key'), `nonce_${nonce}`);
    assert.match(page.text, /name="lti_storage" value="unavailable"/);
    const row = await app.db.query<{ consumed: boolean }>('SELECT consumed_at IS NOT NULL AS consumed FROM lti_login_states WHERE state = $1', [state]);
    assert.equal(row.rows[0]!.consumed, false);
  });

  it('what the page read launches once, only from the tool itself and only for this login', async () => {
    const { state, nonce, idToken } = await framedStorageLogin();
    const proof = { id_token: idToken, state, lti_storage: 'verified', lti_storage_state: state, lti_storage_nonce: nonce };
    // A form on another site cannot skip the check in the tool's page.
    const crossSite = await postIdToken(proof, { 'Sec-Fetch-Site': 'cross-site', Origin: 'https://evil.example' });
    assert.equal(crossSite.status, 401);
    assert.match(crossSite.text, /did not keep the cookie/);
    const wrongNonce = await postIdToken({ ...proof, lti_storage_nonce: 'another' }, { 'Sec-Fetch-Site': 'same-origin' });
    assert.equal(wrongNonce.status, 401);
    const wrongState = await postIdToken({ ...proof, lti_storage_state: 'another' }, { 'Sec-Fetch-Site': 'same-origin' });
    assert.equal(wrongState.status, 401);

    const launched = await postIdToken(proof, { 'Sec-Fetch-Site': 'same-origin' });
    assert.ok(launched.status === 302 || launched.status === 200, `${launched.status}: ${launched.text.slice(0, 300)}`);
    assert.doesNotMatch(launched.text, /could not be accepted/);
    const replayed = await postIdToken(proof, { 'Sec-Fetch-Site': 'same-origin' });
    assert.equal(replayed.status, 401, 'state and nonce are single-use');
  });

  it('when the platform did not answer, the launch is refused as one without its cookie (no second storage page)', async () => {
    const { state, idToken } = await framedStorageLogin();
    const refused = await postIdToken({ id_token: idToken, state, lti_storage: 'unavailable' }, { 'Sec-Fetch-Site': 'same-origin' });
    assert.equal(refused.status, 401);
    assert.match(refused.text, /open it in a new window/);
  });

  it('with the state cookie back, the launch needs no storage page', async () => {
    const { state, idToken, stateCookie } = await framedStorageLogin();
    assert.ok(stateCookie);
    const launched = await postIdToken({ id_token: idToken, state }, { Cookie: stateCookie });
    assert.ok(launched.status === 302 || launched.status === 200);
    assert.doesNotMatch(launched.text, /data-mode="get"/);
    assert.doesNotMatch(launched.text, /could not be accepted/);
  });

  it('a login that offered no storage is refused without its cookie, as before', async () => {
    const initiation = await app.tool.sandbox!.demoLms.initiateLogin({ user: 'student', flavor: 'canvas' });
    assert.equal(initiation.params.lti_storage_target, undefined);
    const agent = supertest.agent(app.baseUrl);
    const login = await agent.post('/lti/login').set('Sec-Fetch-Dest', 'iframe').type('form').send({ ...initiation.params, lti_storage_check: 'done' });
    assert.equal(login.status, 302);
    const location = new URL(login.headers.location as string);
    const form = parseAutoSubmitForm((await supertest(location.origin).get(location.pathname + location.search)).text);
    const refused = await postIdToken({ id_token: form!.fields.id_token!, state: form!.fields.state!, lti_storage: 'verified', lti_storage_state: form!.fields.state!, lti_storage_nonce: location.searchParams.get('nonce')! }, { 'Sec-Fetch-Site': 'same-origin' });
    assert.equal(refused.status, 401);
  });
});
