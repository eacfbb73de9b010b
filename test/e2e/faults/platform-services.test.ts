// The platform services the tool calls at launch and later (key set, token endpoint, Names and Roles) are at
// URLs whoever registered the platform chose: every fetch goes through the guarded client. A key set at a
// refused address, one too large and one that never answers each end the launch with the refusal page, the
// cause in the log under the page's incident id, and the process serving the next launch.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { errors as joseErrors, jwtVerify } from 'jose';
import supertest from 'supertest';
import { fetchAllMembers, NamesRolesError } from '../../../src/lti/names-roles.js';
import { createPlatformKeys, MAX_KEY_SET_BYTES } from '../../../src/lti/platform-keys.js';
import { createGuardedHttp, guardedFetch, OutboundError } from '../../../src/net/guarded-http.js';
import { capturedLog, startTestApp, type TestApp } from '../../helpers/app.js';
import { startStub } from '../../helpers/hosted.js';
import { incidentOf, launchAs } from '../../helpers/launches.js';
import { authorize, postIdToken } from '../../helpers/lti-flow.js';

describe('platform services through the guarded client', () => {
  let app: TestApp;
  let log: ReturnType<typeof capturedLog>;
  let stub: Awaited<ReturnType<typeof startStub>>;
  const rejections: unknown[] = [];
  const record = (reason: unknown) => rejections.push(reason);

  before(async () => {
    process.on('unhandledRejection', record);
    process.on('uncaughtException', record);
    log = capturedLog();
    app = await startTestApp({}, { logger: log.logger });
    const keys = JSON.stringify(app.tool.sandbox!.demoLms.jwks());
    stub = await startStub((req, res) => {
      if (req.url === '/jwks/huge') {
        // The demo LMS's real keys, followed by far more than any key set needs.
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(`${keys.slice(0, -1)}, "padding": "${'x'.repeat(MAX_KEY_SET_BYTES * 4)}"}`);
      } else if (req.url === '/jwks/silent') {
        // never answers
      } else if (req.url === '/jwks/redirect') {
        res.writeHead(302, { Location: app.tool.sandbox!.demoLms.registration.jwksUrl }).end();
      } else {
        res.writeHead(404).end();
      }
    });
  });
  after(async () => {
    process.off('unhandledRejection', record);
    process.off('uncaughtException', record);
    await stub?.close();
    await app.close();
  });

  /**
   * A launch from another issuer registered with the demo LMS's signing key, its key set at `jwksUrl`. One
   * issuer for every case: registering it again only changes its key set URL (the first registration makes the
   * tool's key pair for it, which takes seconds).
   */
  async function launchWithKeySet(jwksUrl: string) {
    const lms = app.tool.sandbox!.demoLms;
    const issuer = 'https://keyset-faults.lms.example';
    await app.tool.lti.platforms.register({ issuer, clientId: lms.registration.clientId, authUrl: lms.registration.authUrl, tokenUrl: lms.registration.tokenUrl, key: { jwksUrl }, deploymentIds: ['1'] });
    const auth = await authorize(app, { user: 'student', presentation: 'window' }, undefined, (params) => {
      params.iss = issuer;
    });
    auth.claims.iss = issuer;
    return postIdToken(auth, await lms.signIdToken(auth.claims));
  }

  const cases = [
    { name: 'a key set at a private address', url: () => 'https://10.20.30.40/jwks', cause: /10\.20\.30\.40 refused \(private\)/ },
    { name: 'a key set at the cloud metadata address', url: () => 'https://169.254.169.254/latest/meta-data/jwks', cause: /169\.254\.169\.254 refused \(linkLocal\)/ },
    { name: 'an oversized key set', url: () => `${stub.url}/jwks/huge`, cause: new RegExp(`larger than ${MAX_KEY_SET_BYTES} bytes`) },
    { name: 'a key set answering with a redirect', url: () => `${stub.url}/jwks/redirect`, cause: /Expected 200 OK/ },
    { name: 'a key set that never answers', url: () => `${stub.url}/jwks/silent`, cause: /did not answer in time/ },
  ];
  for (const { name, url, cause } of cases) {
    it(`${name}: the launch is refused with a clear page, the cause in the log`, { timeout: 120_000 }, async () => {
      const response = await launchWithKeySet(url());
      assert.equal(response.status, 401, response.text.slice(0, 300));
      assert.match(response.text, /signing keys could not be fetched/);
      const incident = incidentOf(response.text);
      assert.ok(incident, 'the page shows an incident id');
      assert.doesNotMatch(response.text, /10\.20\.30\.40|169\.254|larger than|127\.0\.0\.1:\d+\/jwks/, 'the cause stays in the log');
      const logged = log.entries().filter((entry) => entry.incidentId === incident);
      assert.equal(logged.length, 1);
      assert.equal(logged[0]!.code, 'key_unavailable');
      assert.match(String(logged[0]!.detail), cause);
      assert.deepEqual(rejections.map(String), []);
      assert.equal((await supertest(app.baseUrl).get('/healthz')).status, 200);
      const next = await launchAs(app, { user: 'student', presentation: 'window' });
      assert.equal(next.response.status, 302, 'the next launch works');
    });
  }

  it('in production a key set on loopback is refused before any connection', async () => {
    let connections = 0;
    const local = await startStub((_req, res) => {
      connections += 1;
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(app.tool.sandbox!.demoLms.jwks()));
    });
    const http = createGuardedHttp({ policy: { allowLoopback: false }, maxBytes: MAX_KEY_SET_BYTES });
    try {
      const token = (await authorize(app, { user: 'student', presentation: 'window' })).idToken;
      for (const jwksUrl of [`${local.url}/jwks`, local.url.replace('http:', 'https:'), `https://localhost:${new URL(local.url).port}/jwks`]) {
        const keys = createPlatformKeys({ userAgent: 'test', fetch: guardedFetch(http, { maxBytes: MAX_KEY_SET_BYTES }) });
        await assert.rejects(jwtVerify(token, keys.resolver({ method: 'JWK_SET', key: jwksUrl })), (error: unknown) => {
          assert.ok(error instanceof OutboundError, `${jwksUrl}: ${String(error)}`);
          assert.match(error.message, /plain http refused|loopback/);
          return true;
        });
      }
      assert.equal(connections, 0);
      // The same key set is fetched where loopback is allowed (development), so the refusal is the policy's.
      const development = createGuardedHttp({ policy: { allowLoopback: true }, maxBytes: MAX_KEY_SET_BYTES });
      const keys = createPlatformKeys({ userAgent: 'test', fetch: guardedFetch(development, { maxBytes: MAX_KEY_SET_BYTES }) });
      await jwtVerify(token, keys.resolver({ method: 'JWK_SET', key: `${local.url}/jwks` }), { currentDate: new Date() }).catch((error: unknown) => {
        // The token's audience and issuer are not checked here, only that the key resolves and verifies.
        if (!(error instanceof joseErrors.JWTClaimValidationFailed)) throw error;
      });
      assert.equal(connections, 1);
      await development.close();
    } finally {
      await http.close();
      await local.close();
    }
  });

  it('Names and Roles pages: refused on loopback in production, cut off past the cap', async () => {
    const big = await startStub((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ members: Array.from({ length: 500 }, (_, n) => ({ user_id: String(n), name: 'x'.repeat(40) })) }));
    });
    const production = createGuardedHttp({ policy: { allowLoopback: false }, maxBytes: 1_000_000 });
    const development = createGuardedHttp({ policy: { allowLoopback: true }, maxBytes: 1_000_000 });
    const members = (http: typeof production, maxBytes: number) =>
      fetchAllMembers({ url: `${big.url}/nrps`, authorization: async () => 'Bearer t', userAgent: 'test', signal: AbortSignal.timeout(5000), fetch: guardedFetch(http, { maxBytes }) });
    try {
      await assert.rejects(members(production, 1_000_000), (error: unknown) => error instanceof NamesRolesError && /plain http refused/.test(error.message));
      await assert.rejects(members(development, 4096), (error: unknown) => error instanceof NamesRolesError && /larger than 4096 bytes/.test(error.message));
      assert.equal((await members(development, 1_000_000)).length, 500, 'the same page under the cap is read whole');
    } finally {
      await production.close();
      await development.close();
      await big.close();
    }
  });
});
