import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt, generateKeyPair, SignJWT } from 'jose';
import { startTestApp, TEST_ENCRYPTION_KEY, type TestApp } from '../../helpers/app.js';
import { authorize, launch, postIdToken } from '../../helpers/lti-flow.js';
import { loadCatalog, message } from '../../helpers/catalogs.js';
import type { LtiRefusalCode } from '../../../src/lti/errors.js';
import { metricsRegistry } from '../../../src/metrics.js';

/**
 * The 1EdTech security checks on the id_token, one test per bad case: each is refused with a clear page
 * and the proctoring service is never called.
 */
describe('forged, replayed and unknown launches are refused', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app.close();
  });

  const upstreamCalls = () => app.tool.sandbox?.emulator.received.length ?? 0;
  const now = () => Math.floor(Date.now() / 1000);
  const refusalCounts = async (): Promise<Record<string, number>> => {
    const series = (await metricsRegistry.getSingleMetric('proctor_lti_refused_launches_total')?.get())?.values ?? [];
    return Object.fromEntries(series.map((value) => [String(value.labels.reason), value.value]));
  };

  const english = loadCatalog('en', 'common');
  const escaped = (text: string) => text.replace(/&/g, '&amp;').replace(/'/g, '&#39;').replace(/"/g, '&#34;');

  /** One refusal: this status, this code counted (and no other), this code's message on the page, no upstream call. */
  async function refusedWith(mutate: (claims: Record<string, unknown>) => Record<string, unknown>, code: LtiRefusalCode, sign?: (claims: Record<string, unknown>) => Promise<string>) {
    const auth = await authorize(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
    const claims = mutate({ ...auth.claims });
    const token = sign ? await sign(claims) : await app.tool.sandbox!.demoLms.signIdToken(claims);
    const calls = upstreamCalls();
    const before = await refusalCounts();
    const response = await postIdToken(auth, token);
    assert.equal(response.status, 401, response.text.slice(0, 300));
    const after = await refusalCounts();
    const counted = Object.keys(after).filter((reason) => after[reason] !== (before[reason] ?? 0));
    assert.deepEqual(counted, [code], 'refused for exactly this reason');
    assert.equal(after[code]! - (before[code] ?? 0), 1);
    assert.ok(response.text.includes(escaped(message(english, `refusal.message.${code}`))), `the page says why: ${code}`);
    assert.match(response.text, /incident id/);
    assert.equal(upstreamCalls(), calls, 'no upstream call');
    return response;
  }

  it('an issuer other than the one the login was for', async () => {
    await refusedWith((c) => ({ ...c, iss: 'https://unknown-lms.example' }), 'issuer_mismatch');
  });

  it('several audiences and no azp', async () => {
    await refusedWith((c) => {
      const { azp: _azp, ...rest } = c;
      return { ...rest, aud: [String(c.aud), 'another-tool-client'] };
    }, 'audience_mismatch');
  });

  it('an azp that is not this tool\'s client id', async () => {
    await refusedWith((c) => ({ ...c, aud: [String(c.aud), 'another-tool-client'], azp: 'another-tool-client' }), 'audience_mismatch');
  });

  it('a bad signature', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const kid = (app.tool.sandbox!.demoLms.jwks().keys[0]!.kid ?? '') as string;
    await refusedWith((c) => c, 'bad_signature', (claims) => new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid }).sign(privateKey));
  });

  it('an algorithm downgrade to none', async () => {
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    await refusedWith((c) => c, 'bad_signature', async (claims) => `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`);
  });

  it('an algorithm downgrade to HS256 keyed with the platform\'s public key', async () => {
    const jwk = app.tool.sandbox!.demoLms.jwks().keys[0]!;
    const secret = new TextEncoder().encode(JSON.stringify(jwk));
    await refusedWith((c) => c, 'bad_signature', (claims) => new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: String(jwk.kid ?? '') }).sign(secret));
  });

  it('a platform deactivated between the login and the launch', async () => {
    const auth = await authorize(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
    const [issuer, clientId] = [String(auth.claims.iss), String(auth.claims.aud)];
    const token = await app.tool.sandbox!.demoLms.signIdToken({ ...auth.claims });
    await app.tool.lti.platforms.setActive(issuer, clientId, false);
    try {
      const calls = upstreamCalls();
      const response = await postIdToken(auth, token);
      assert.equal(response.status, 401);
      assert.match(response.text, /This LMS registration has not been activated yet\./);
      assert.equal(upstreamCalls(), calls, 'no upstream call');
    } finally {
      await app.tool.lti.platforms.setActive(issuer, clientId, true);
    }
  });

  it('an expired token', async () => {
    await refusedWith((c) => ({ ...c, iat: now() - 3600, exp: now() - 1800 }), 'token_expired');
  });

  it('a token issued in the future', async () => {
    await refusedWith((c) => ({ ...c, iat: now() + 600, exp: now() + 1200 }), 'token_from_future');
  });

  it('a nonce the tool never issued', async () => {
    await refusedWith((c) => ({ ...c, nonce: 'not-a-nonce-we-issued' }), 'nonce_invalid');
  });

  it('an unknown deployment_id', async () => {
    await refusedWith((c) => ({ ...c, 'https://purl.imsglobal.org/spec/lti/claim/deployment_id': 'deployment-nobody-registered' }), 'unknown_deployment');
  });

  it('a target_link_uri on another host', async () => {
    await refusedWith((c) => ({ ...c, 'https://purl.imsglobal.org/spec/lti/claim/target_link_uri': 'https://evil.example/lti/launch' }), 'wrong_target');
  });

  it('a replayed nonce (the same id_token posted twice, with the state cookie the browser had)', async () => {
    const { default: supertest } = await import('supertest');
    // The student has seen the exam's privacy notice: the launch goes straight to the session.
    await launch(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
    const auth = await authorize(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
    const first = await postIdToken(auth, auth.idToken);
    assert.equal(first.status, 302);
    // ltijs clears the state cookie after the first launch; an attacker replaying a captured post also has the
    // cookie, so the replay carries it: only the consumed nonce can refuse it.
    const cookies = String((first as unknown as { req: { getHeader(name: string): unknown } }).req.getHeader('cookie') ?? '');
    assert.match(cookies, new RegExp(`state${auth.state}=`), 'the first post carried the state cookie');
    const calls = upstreamCalls();
    const replay = await supertest(app.baseUrl).post(new URL(auth.redirectUri).pathname).set('Cookie', cookies).type('form').send({ id_token: auth.idToken, state: auth.state });
    assert.equal(replay.status, 401);
    assert.match(replay.text, /already used or was not requested/);
    assert.doesNotMatch(replay.text, new RegExp(auth.idToken.slice(0, 40)), 'the token is never echoed');
    assert.equal(upstreamCalls(), calls);
  });

  it('a login initiation from an issuer that is not registered', async () => {
    const { default: supertest } = await import('supertest');
    const login = await app.tool.sandbox!.demoLms.initiateLogin({ user: 'student' });
    const response = await supertest(app.baseUrl).post(new URL(login.url).pathname).type('form').send({ ...login.params, iss: 'https://unknown-lms.example' });
    assert.equal(response.status, 400);
    assert.equal(response.headers.location, undefined, 'no redirect to any authorization endpoint');
    assert.match(response.text, /not registered/);
  });

  it('a token for a client id the tool does not know', async () => {
    await refusedWith((c) => ({ ...c, aud: 'client-nobody-registered', azp: 'client-nobody-registered' }), 'unregistered_platform');
  });

  it('a launch without the state cookie (browser refused cookies) gets the cookie page', async () => {
    const auth = await authorize(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
    const { default: supertest } = await import('supertest');
    const response = await supertest(app.baseUrl).post('/lti/launch').type('form').send({ id_token: auth.idToken, state: auth.state });
    assert.equal(response.status, 401);
    assert.match(response.text, /new window/);
  });

  it('a framed login first checks that cookies work, then continues', async () => {
    const { default: supertest } = await import('supertest');
    const login = await app.tool.sandbox!.demoLms.initiateLogin({ user: 'student' });
    const framed = await supertest(app.baseUrl).post(new URL(login.url).pathname).set('Sec-Fetch-Dest', 'iframe').type('form').send(login.params);
    assert.equal(framed.status, 200);
    assert.match(framed.text, /name="lti_storage_check" value="done"/);
    assert.match(framed.text, /Open in a new window/);
  });

  it('an expired LTI session (ltik) is refused', async () => {
    const { default: supertest } = await import('supertest');
    const old = await new SignJWT({ s: 'x', clientId: 'y' }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt(now() - 10 * 86_400).sign(new TextEncoder().encode('k'));
    const response = await supertest(app.baseUrl).post('/lti/launch').type('form').send({ ltik: old });
    assert.equal(response.status, 401);
    assert.match(response.text, /session .*has ended/i);
  });

  it('a genuine LTI session older than LTI_SESSION_MAX_AGE_SECONDS is refused, a fresh one works', async () => {
    // A course-level launch (the exam list): a session kept for the page's buttons.
    const { auth, ltik } = await launch(app, { user: 'student', flavor: 'moodle', kind: 'course', presentation: 'window' });
    const fresh = await auth.agent.post('/lti/launch').type('form').send({ ltik });
    assert.equal(fresh.status, 200, 'the fresh session is accepted');
    assert.match(fresh.text, /action="\/lti\/course\/exams\//);
    // The same session, signed with the tool's key as ltijs signs it, but issued before the maximum age.
    const claims = decodeJwt(ltik);
    const aged = await new SignJWT({ ...claims, iat: now() - app.config.lti.sessionMaxAgeSeconds - 60 })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .sign(new TextEncoder().encode(TEST_ENCRYPTION_KEY));
    const calls = upstreamCalls();
    const response = await auth.agent.post('/lti/launch').type('form').send({ ltik: aged });
    assert.equal(response.status, 401);
    assert.match(response.text, /session .*has ended/i);
    assert.equal(upstreamCalls(), calls);
  });
});
