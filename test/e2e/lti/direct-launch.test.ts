import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt, generateKeyPair, SignJWT } from 'jose';
import supertest from 'supertest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { authorize, followSessionContinue, launch, type Authorized } from '../../helpers/lti-flow.js';
import { waitingRequestContexts } from '../../../src/lti/provider.js';
import type { LoginInput } from '../../../src/sandbox/demo-lms/index.js';

/**
 * The tool answers login initiations and the id_token POST of a resource-link launch itself; ltijs's own routes
 * still answer everything else, e.g. a request that also carries an Authorization header (it could name a
 * session). These tests launch the same way down both paths and compare what each stores, signs and answers.
 */
describe('logins and resource-link launches answered by the tool, as ltijs would', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app.close();
  });

  type Path = 'tool' | 'ltijs';
  const PATHS: readonly Path[] = ['tool', 'ltijs'];

  /** The id_token POST down one path: an Authorization header that names no session sends it to ltijs's route. */
  function post(auth: Authorized, idToken: string, path: Path): supertest.Test {
    const request = auth.agent.post(new URL(auth.redirectUri).pathname).type('form');
    if (path === 'ltijs') request.set('Authorization', 'Basic bm90LWEtc2Vzc2lvbg==');
    return request.send({ id_token: idToken, state: auth.state });
  }

  /** The state cookies a response clears, without their (signed, empty) values. */
  const cleared = (response: supertest.Response) =>
    ([] as string[])
      .concat((response.headers['set-cookie'] as string[] | string | undefined) ?? [])
      .filter((cookie) => cookie.startsWith('state'))
      .map((cookie) => cookie.replace(/^state[^=]*=[^;]*/, 'state=…'));

  async function sessionDocuments(): Promise<Record<string, unknown>> {
    const rows = await app.db.query<{ collection: string; doc: Record<string, unknown> }>(
      `SELECT collection, doc FROM ltijs_documents WHERE collection IN ('idtoken', 'contexttoken') ORDER BY collection`,
    );
    return Object.fromEntries(rows.rows.map((row) => [row.collection, row.doc]));
  }

  /** The demo student has seen the demo exam's privacy notice (a first launch in a window shows it, with a session). */
  const noticeSeen = () => launch(app, { user: 'student', flavor: 'moodle', presentation: 'window' });

  async function launchDown(path: Path, input: LoginInput) {
    await app.db.query(`DELETE FROM ltijs_documents WHERE collection IN ('idtoken', 'contexttoken')`);
    const auth = await authorize(app, input);
    const posted = await post(auth, auth.idToken, path);
    const page = await followSessionContinue(auth.agent, posted);
    const { iat, ...ltik } = decodeJwt(app.sessionToken(auth.state));
    return { auth, posted, page, ltik, iat, documents: await sessionDocuments() };
  }

  it('the same session documents and session token, and the session serves the next page, on both paths', async () => {
    const input: LoginInput = { user: 'instructor', flavor: 'canvas', presentation: 'iframe' };
    const throughLtijs = await launchDown('ltijs', input);
    const direct = await launchDown('tool', input);
    // ltijs's own helmet still sets this on the responses of its routes: proof of which path answered.
    assert.equal(throughLtijs.posted.headers['cross-origin-embedder-policy'], 'require-corp');
    assert.equal(direct.posted.headers['cross-origin-embedder-policy'], undefined);

    for (const launched of [throughLtijs, direct]) {
      assert.equal(launched.posted.status, 200, launched.posted.text.slice(0, 300));
      assert.equal(launched.page.status, 200, `the page the launch continues to: ${launched.page.text.slice(0, 300)}`);
      assert.equal(launched.ltik.s, launched.auth.state);
      assert.equal(typeof launched.iat, 'number');
      assert.deepEqual(Object.keys(launched.documents), ['contexttoken', 'idtoken']);
    }
    assert.deepEqual(direct.documents, throughLtijs.documents);
    assert.deepEqual({ ...direct.ltik, s: undefined }, { ...throughLtijs.ltik, s: undefined });
    // The state cookie is cleared the same way (name, path and attributes; the signed empty value differs).
    assert.deepEqual(cleared(direct.posted), cleared(throughLtijs.posted));
    assert.equal(cleared(direct.posted).length, 1);
  });

  it('a login initiation is answered alike on both paths: the same redirect to the platform and state cookie', async () => {
    const answers = [];
    for (const path of PATHS) {
      const login = await app.tool.sandbox!.demoLms.initiateLogin({ user: 'student', flavor: 'canvas', presentation: 'window' });
      const request = supertest(app.baseUrl).post(new URL(login.url).pathname).type('form');
      if (path === 'ltijs') request.set('Authorization', 'Basic bm90LWEtc2Vzc2lvbg==');
      const response = await request.send(login.params);
      assert.equal(response.status, 302, `${path}: ${response.text.slice(0, 300)}`);
      const location = new URL(response.headers.location as string);
      const query = Object.fromEntries(location.searchParams);
      const cookies = ([] as string[]).concat((response.headers['set-cookie'] as string[] | string | undefined) ?? []);
      const stateCookie = cookies.find((cookie) => cookie.startsWith(`state${query.state}=s%3A`));
      assert.ok(stateCookie, `${path}: a signed state cookie for the state ${query.state}: ${cookies.join(' | ')}`);
      assert.match(query.state!, /^[0-9a-f]{50}$/);
      assert.match(query.nonce!, /^[A-Za-z0-9_-]{32}$/);
      answers.push({
        embedderPolicy: response.headers['cross-origin-embedder-policy'],
        platform: location.origin + location.pathname,
        query: { ...query, state: '…', nonce: '…', lti_message_hint: query.lti_message_hint ? '…' : undefined },
        cookie: stateCookie.replace(/^[^;]*/, 'state=…').replace(/Expires=[^;]*/, 'Expires=…'),
      });
    }
    const [direct, throughLtijs] = answers;
    assert.equal(direct!.embedderPolicy, undefined);
    assert.equal(throughLtijs!.embedderPolicy, 'require-corp');
    assert.deepEqual({ ...direct, embedderPolicy: undefined }, { ...throughLtijs, embedderPolicy: undefined });
  });

  it("a student redirected to the proctoring service stores no session on the tool's path; ltijs's path stores it as ltijs does", async () => {
    await noticeSeen();
    for (const path of PATHS) {
      const launched = await launchDown(path, { user: 'student', flavor: 'moodle', presentation: 'window' });
      assert.equal(launched.posted.status, 302, `${path}: ${launched.posted.text.slice(0, 300)}`);
      assert.deepEqual(Object.keys(launched.documents), path === 'tool' ? [] : ['contexttoken', 'idtoken'], path);
    }
  });

  const now = () => Math.floor(Date.now() / 1000);
  const refusals: ReadonlyArray<{ name: string; forge(auth: Authorized): Promise<string>; expected: RegExp }> = [
    {
      name: 'a bad signature',
      async forge(auth) {
        const { privateKey } = await generateKeyPair('RS256');
        const kid = (app.tool.sandbox!.demoLms.jwks().keys[0]!.kid ?? '') as string;
        return new SignJWT({ ...auth.claims }).setProtectedHeader({ alg: 'RS256', kid }).sign(privateKey);
      },
      expected: /could not be verified/,
    },
    { name: 'an expired token', forge: (auth) => app.tool.sandbox!.demoLms.signIdToken({ ...auth.claims, iat: now() - 3600, exp: now() - 1800 }), expected: /has expired/ },
    { name: 'a nonce the tool never issued', forge: (auth) => app.tool.sandbox!.demoLms.signIdToken({ ...auth.claims, nonce: 'never-issued' }), expected: /already used or was not requested/ },
  ];
  for (const refusal of refusals) {
    it(`${refusal.name} is refused alike on both paths`, async () => {
      const answers = [];
      for (const path of PATHS) {
        const auth = await authorize(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
        const response = await post(auth, await refusal.forge(auth), path);
        assert.match(response.text, refusal.expected, path);
        answers.push(refusalOf(response));
      }
      assert.deepEqual(answers[0], answers[1]);
      assert.equal(answers[0]![0], 401);
      assert.equal((answers[0]![2] as string[]).length, 1, 'the state cookie of the refused login is cleared');
    });
  }

  /** What a refusal page tells the person, without its incident id, and the state cookie it clears. */
  const refusalOf = (response: supertest.Response) => [response.status, /<p class="lead">([^<]*)</.exec(response.text)?.[1], cleared(response)];

  it('a replayed id_token is refused alike on both paths, and the first launch stands', async () => {
    await noticeSeen();
    const answers = [];
    for (const path of PATHS) {
      const auth = await authorize(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
      assert.equal((await post(auth, auth.idToken, path)).status, 302, path);
      answers.push(refusalOf(await post(auth, auth.idToken, path)));
    }
    assert.deepEqual(answers[0], answers[1]);
    assert.equal(answers[0]![0], 401);
  });

  it('without the state cookie (another browser) both paths refuse', async () => {
    const answers = [];
    for (const path of PATHS) {
      const auth = await authorize(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
      const response = await supertest(app.baseUrl)
        .post(new URL(auth.redirectUri).pathname)
        .type('form')
        .set(path === 'ltijs' ? { Authorization: 'Basic bm90LWEtc2Vzc2lvbg==' } : {})
        .send({ id_token: auth.idToken, state: auth.state });
      answers.push(refusalOf(response));
    }
    assert.deepEqual(answers[0], answers[1]);
    assert.equal(answers[0]![0], 401);
  });

  it("concurrent logins and launches down ltijs's routes each keep their own request's context, and none is left behind", async () => {
    const count = 8;
    await noticeSeen();
    // A target link URI with a query string sends the login to ltijs's route (ltijs keeps that query).
    const logins = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        authorize(app, { user: 'student', flavor: 'moodle', presentation: i % 2 ? 'iframe' : 'window' }, undefined, (params) => {
          params.target_link_uri = `${params.target_link_uri}?round=${i}`;
        }),
      ),
    );
    const bound = await app.db.query<{ state: string; ltijs_state: boolean | null }>(
      `SELECT state, ltijs_state FROM lti_login_states WHERE state = ANY($1::text[])`,
      [logins.map((auth) => auth.state)],
    );
    assert.equal(bound.rows.length, count);
    assert.ok(bound.rows.every((row) => row.ltijs_state === true), "each login was bound with its own request's context (ltijs keeps a state document)");

    // Every other launch carries a nonce the tool never issued: each answer must be its own token's.
    const answers = await Promise.all(
      logins.map(async (auth, i) => {
        const idToken = i % 2 ? await app.tool.sandbox!.demoLms.signIdToken({ ...auth.claims, nonce: `never-issued-${i}` }) : auth.idToken;
        return post(auth, idToken, 'ltijs');
      }),
    );
    answers.forEach((response, i) => {
      if (i % 2) {
        assert.equal(response.status, 401, `launch ${i}`);
        assert.match(response.text, /already used or was not requested/, `launch ${i}`);
      } else {
        assert.equal(response.status, 302, `launch ${i}: ${response.text.slice(0, 300)}`);
      }
    });
    assert.deepEqual(waitingRequestContexts(), { launches: 0, logins: 0 });

    // A request ltijs answers before any callback (a login from an unregistered platform) leaves nothing either.
    const unregistered = await supertest(app.baseUrl)
      .post('/lti/login')
      .type('form')
      .send({ iss: 'https://unknown.example', client_id: 'x', login_hint: 'u', target_link_uri: `${app.baseUrl}/lti/launch?x=1` });
    assert.equal(unregistered.status, 400);
    // Nor does an id_token posted where ltijs never validates one (its key set route).
    const elsewhere = await supertest(app.baseUrl).post('/lti/keys').type('form').send({ id_token: logins[0]!.idToken, state: logins[0]!.state });
    assert.ok(elsewhere.status >= 200, String(elsewhere.status));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(waitingRequestContexts(), { launches: 0, logins: 0 });
  });
});
