// Drives the real ltijs 5.9.9 Provider on our store: every database call ltijs makes goes through it.
// ltijs is a process-wide singleton, which the app's tests patch for their adapter: this file sets it up once, in a
// process of its own.
// Test process: own
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { importPKCS8, SignJWT } from 'jose';
import ltijs, { type LtijsPlatform } from 'ltijs';
import request from 'supertest';
import type { LtijsDocument } from '../../../src/lti/store/ltijs-store.js';
import { LtijsStore } from '../../../src/lti/store/ltijs-store.js';
import { migratedTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { waitFor } from '../../helpers/wait.js';
import '../../helpers/shared-rsa-keys.mjs';

const lti = ltijs.Provider;
const ENCRYPTION_KEY = 'provider-test-encryption-key';
const ISSUER = 'https://lms.example.edu';
const DEPLOYMENT = 'deployment-1';
const LEARNER = 'http://purl.imsglobal.org/vocab/lis/v2/membership#Learner';

const jwkSetPlatform = {
  url: ISSUER,
  name: 'Example LMS (JWK set)',
  clientId: 'tool-jwks',
  authenticationEndpoint: `${ISSUER}/api/lti/authorize_redirect`,
  accesstokenEndpoint: `${ISSUER}/login/oauth2/token`,
  authorizationServer: `${ISSUER}/oauth2/audience`,
  authConfig: { method: 'JWK_SET' as const, key: `${ISSUER}/api/lti/security/jwks` },
};

// The test plays the LMS: it signs id_tokens with this key, registered as the platform's RSA_KEY.
const platformKeys = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});
const rsaPlatform = {
  url: ISSUER,
  name: 'Example LMS (RSA key)',
  clientId: 'tool-rsa',
  authenticationEndpoint: `${ISSUER}/auth`,
  accesstokenEndpoint: `${ISSUER}/token`,
  authConfig: { method: 'RSA_KEY' as const, key: platformKeys.publicKey },
};

/** Platform methods ltijs has beyond what the adapter's declaration lists (src/lti/ltijs.d.ts). */
interface PlatformSetters {
  platformName(name: string): Promise<string>;
  platformAccessTokenEndpoint(url: string): Promise<string>;
  platformAuthorizationServer(server: string): Promise<string>;
  platformAuthConfig(method: string, key: string): Promise<unknown>;
  platformAccessToken(scopes: string): Promise<{ access_token: string; token_type: string }>;
}
interface ProviderExtras {
  updatePlatformById(kid: string, update: { name?: string }): Promise<unknown>;
}

interface Jwks {
  keys: Array<{ kid: string; kty: string; n: string; e: string; alg: string; use: string }>;
}

describe('ltijs Provider on LtijsStore', () => {
  let db: TestDatabase;
  let jwksPlatform: LtijsPlatform;
  let rsaKid: string;

  async function raw(collection: string, where = 'true', params: unknown[] = []): Promise<LtijsDocument[]> {
    const { rows } = await db.query<{ doc: LtijsDocument }>(
      `SELECT doc FROM ltijs_documents WHERE collection = $1 AND ${where} ORDER BY id`,
      [collection, ...params],
    );
    return rows.map((row) => row.doc);
  }

  async function platformKids(): Promise<string[]> {
    return (await raw('platform')).map((row) => String(row.kid)).sort();
  }

  let ownPlatforms = 0;
  /** Registers a copy of `template` under an issuer and client id that no other test uses. */
  async function registerOwnPlatform<T extends typeof jwkSetPlatform | typeof rsaPlatform>(
    template: T,
  ): Promise<{ config: T; platform: LtijsPlatform }> {
    ownPlatforms += 1;
    const config = { ...template, url: `https://lms-${ownPlatforms}.example.edu`, clientId: `${template.clientId}-${ownPlatforms}` };
    return { config, platform: await lti.registerPlatform(config) };
  }

  async function keysetKids(): Promise<string[]> {
    const res = await request(lti.app).get('/keys').expect(200);
    return (res.body as Jwks).keys.map((key) => key.kid).sort();
  }

  /** The LMS side of a launch: login redirect, then the signed id_token POST; returns the ltik redirect. */
  async function launch(
    agent: ReturnType<typeof request.agent>,
    options: { sub: string; nonce?: string; targetQuery?: string; expectStatus?: number },
  ): Promise<{ location: string; nonce: string; body: unknown }> {
    const login = await agent
      .get('/login')
      .query({
        iss: ISSUER,
        client_id: rsaPlatform.clientId,
        login_hint: options.sub,
        target_link_uri: `https://tool.example/${options.targetQuery ?? ''}`,
        lti_deployment_id: DEPLOYMENT,
      })
      .expect(302);
    const redirect = new URL(login.headers.location ?? '');
    assert.equal(redirect.origin + redirect.pathname, rsaPlatform.authenticationEndpoint);
    const state = redirect.searchParams.get('state') ?? '';
    const nonce = options.nonce ?? redirect.searchParams.get('nonce') ?? '';
    const idToken = await new SignJWT({
      nonce,
      'https://purl.imsglobal.org/spec/lti/claim/message_type': 'LtiResourceLinkRequest',
      'https://purl.imsglobal.org/spec/lti/claim/version': '1.3.0',
      'https://purl.imsglobal.org/spec/lti/claim/deployment_id': DEPLOYMENT,
      'https://purl.imsglobal.org/spec/lti/claim/target_link_uri': 'https://tool.example/',
      'https://purl.imsglobal.org/spec/lti/claim/resource_link': { id: 'resource-link-1', title: 'Final exam' },
      'https://purl.imsglobal.org/spec/lti/claim/context': { id: 'course-1', title: 'Course' },
      'https://purl.imsglobal.org/spec/lti/claim/roles': [LEARNER],
      name: 'Student Name',
    })
      .setProtectedHeader({ alg: 'RS256', kid: 'lms-key-1', typ: 'JWT' })
      .setIssuer(ISSUER)
      .setAudience(rsaPlatform.clientId)
      .setSubject(options.sub)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(await importPKCS8(platformKeys.privateKey, 'RS256'));
    const res = await agent.post('/').type('form').send({ id_token: idToken, state });
    assert.equal(res.status, options.expectStatus ?? 302, JSON.stringify(res.body));
    return { location: res.headers.location ?? '', nonce, body: res.body };
  }

  before(async () => {
    db = await migratedTestDatabase();
    lti.setup(ENCRYPTION_KEY, { plugin: new LtijsStore(db) }, { cors: false });
    lti.onConnect(async (token, req, res) => {
      const idToken = token as { user: string; platformContext: { contextId: string; roles: string[] } };
      if (typeof req.query.moveTo === 'string') return lti.redirect(res, req.query.moveTo, { newResource: true });
      res.json({ user: idToken.user, roles: idToken.platformContext.roles, query: req.query });
    });
    await lti.deploy({ serverless: true, silent: true });
    jwksPlatform = await lti.registerPlatform(jwkSetPlatform);
    rsaKid = await (await lti.registerPlatform(rsaPlatform)).platformKid();
  });

  after(async () => {
    await lti.close({ silent: true });
    await db.close();
  });

  describe('registerPlatform and getPlatform', () => {
    it('stores and returns every platform field, authorizationServer included', async () => {
      const found = await lti.getPlatform(ISSUER, jwkSetPlatform.clientId);
      assert.ok(found);
      assert.equal(await found.platformKid(), await jwksPlatform.platformKid());
      assert.equal(await found.platformName(), jwkSetPlatform.name);
      assert.equal(await found.platformAuthEndpoint(), jwkSetPlatform.authenticationEndpoint);
      assert.equal(await found.platformAccessTokenEndpoint(), jwkSetPlatform.accesstokenEndpoint);
      assert.equal(await found.platformAuthorizationServer(), jwkSetPlatform.authorizationServer);
      assert.deepEqual(await found.platformAuthConfig(), jwkSetPlatform.authConfig);
      const json = await found.platformJSON();
      assert.equal(json.authorizationServer, jwkSetPlatform.authorizationServer);
      assert.match(String(json.publicKey), /^-----BEGIN PUBLIC KEY-----/);
      const [row] = await raw('platform', `doc->>'clientId' = $2`, [jwkSetPlatform.clientId]);
      assert.equal(row?.authorizationServer, jwkSetPlatform.authorizationServer);
    });

    it('stores an RSA_KEY platform with its PEM key', async () => {
      const found = await lti.getPlatform(ISSUER, rsaPlatform.clientId);
      assert.ok(found);
      assert.deepEqual(await found.platformAuthConfig(), rsaPlatform.authConfig);
      // Without an authorizationServer ltijs falls back to the token endpoint.
      assert.equal(await found.platformAuthorizationServer(), rsaPlatform.accesstokenEndpoint);
    });

    it('gets every platform of an issuer by url alone, and false for an unknown one', async () => {
      const all = await lti.getPlatform(ISSUER);
      assert.ok(all);
      assert.deepEqual(
        (await Promise.all(all.map((platform) => platform.platformClientId()))).sort(),
        [jwkSetPlatform.clientId, rsaPlatform.clientId],
      );
      assert.equal(await lti.getPlatform('https://unknown.example'), false);
      assert.equal(await lti.getPlatform(ISSUER, 'unknown-client'), false);
      const everyPlatform = await lti.getAllPlatforms();
      assert.deepEqual((await Promise.all(everyPlatform.map((platform) => platform.platformKid()))).sort(), await platformKids());
    });

    it('keeps the tool’s key pairs encrypted at rest', async () => {
      const kid = await jwksPlatform.platformKid();
      for (const collection of ['publickey', 'privatekey']) {
        const rows = await raw(collection, `doc->>'kid' = $2`, [kid]);
        assert.equal(rows.length, 1, collection);
        assert.deepEqual(Object.keys(rows[0] ?? {}).sort(), ['clientId', 'data', 'iv', 'kid', 'platformUrl']);
        assert.doesNotMatch(JSON.stringify(rows), /BEGIN|PRIVATE|PUBLIC KEY/);
      }
    });

    it('updates a registered platform in place when registered again', async () => {
      const { config, platform } = await registerOwnPlatform(jwkSetPlatform);
      const kid = await platform.platformKid();
      const platformsBefore = await platformKids();
      const updated = await lti.registerPlatform({ ...config, name: 'Renamed LMS' });
      assert.equal(await updated.platformKid(), kid);
      const found = await lti.getPlatform(config.url, config.clientId);
      assert.ok(found);
      assert.equal(await found.platformName(), 'Renamed LMS');
      assert.equal(await found.platformAuthorizationServer(), config.authorizationServer);
      assert.deepEqual(await platformKids(), platformsBefore);
    });
  });

  describe('keyset route', () => {
    it('serves the public key of every registered platform as a JWK', async () => {
      const res = await request(lti.app).get('/keys').expect(200);
      const { keys } = res.body as Jwks;
      const kids = keys.map((key) => key.kid).sort();
      assert.deepEqual(kids, await platformKids());
      assert.ok(kids.includes(await jwksPlatform.platformKid()) && kids.includes(rsaKid));
      for (const key of keys) {
        assert.equal(key.kty, 'RSA');
        assert.equal(key.alg, 'RS256');
        assert.equal(key.use, 'sig');
        assert.ok(key.n.length > 600, 'a 4096-bit modulus');
      }
    });
  });

  describe('platform activation', () => {
    it('is active without a status row, and stores changes', async () => {
      const { config, platform } = await registerOwnPlatform(rsaPlatform);
      const kid = await platform.platformKid();
      const status = () => raw('platformStatus', `doc->>'id' = $2`, [kid]);
      assert.equal(await platform.platformActive(), true);
      assert.deepEqual(await status(), []);
      assert.equal(await platform.platformActive(false), false);
      assert.deepEqual(await status(), [{ id: kid, active: false }]);
      const again = await lti.getPlatform(config.url, config.clientId);
      assert.ok(again);
      assert.equal(await again.platformActive(), false);

      const login = await request(lti.app)
        .get('/login')
        .query({ iss: config.url, client_id: config.clientId, login_hint: 'u', target_link_uri: 'https://tool.example/' });
      assert.equal(login.status, 401);
      assert.match(JSON.stringify(login.body), /PLATFORM_NOT_ACTIVATED/);

      assert.equal(await again.platformActive(true), true);
      assert.deepEqual(await status(), [{ id: kid, active: true }]);
      assert.equal(await platform.platformActive(), true);
    });
  });

  describe('launch', () => {
    it('stores state, nonce, idtoken and contexttoken and reads them back for the ltik request', async () => {
      const agent = request.agent(lti.app);
      const { location, nonce } = await launch(agent, { sub: 'student-1', targetQuery: '?exam=42' });
      const target = new URL(location, 'http://tool.test');
      assert.equal(target.searchParams.get('exam'), '42', 'query saved with the state');
      assert.ok(target.searchParams.get('ltik'));

      assert.equal((await raw('nonce', `doc->>'nonce' = $2`, [nonce])).length, 1);
      const [idToken] = await raw('idtoken', `doc->>'user' = $2`, ['student-1']);
      assert.equal(idToken?.iss, ISSUER);
      assert.equal(idToken?.clientId, rsaPlatform.clientId);
      assert.equal(idToken?.deploymentId, DEPLOYMENT);
      assert.equal(idToken?.platformId, rsaKid);
      assert.deepEqual(idToken?.userInfo, { name: 'Student Name' });
      assert.equal((await raw('contexttoken', `doc->>'user' = $2`, ['student-1'])).length, 1);

      const res = await agent.get(target.pathname + target.search).expect(200);
      assert.deepEqual(res.body, { user: 'student-1', roles: [LEARNER], query: Object.fromEntries(target.searchParams) });

      // ltijs deletes the used state without awaiting it.
      await waitFor('the used state deleted', async () => (await raw('state')).length === 0, { timeoutMs: 5000 });
    });

    it('refuses a replayed nonce', async () => {
      const first = await launch(request.agent(lti.app), { sub: 'student-2' });
      assert.ok(first.location.includes('ltik='));
      const replay = request.agent(lti.app);
      const refused = await launch(replay, { sub: 'student-2', nonce: first.nonce, expectStatus: 401 });
      assert.match(JSON.stringify(refused.body), /NONCE_ALREADY_RECEIVED/);
    });

    it('lets 20 concurrent launches by one user all succeed, leaving one idtoken and one contexttoken', async () => {
      const sub = 'student-double-click';
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, async () => {
          const agent = request.agent(lti.app);
          const { location } = await launch(agent, { sub });
          const res = await agent.get(location);
          assert.equal(res.status, 200, JSON.stringify(res.body));
          assert.equal((res.body as { user: string }).user, sub);
        }),
      );
      assert.deepEqual(
        results.filter((result) => result.status === 'rejected'),
        [],
      );
      assert.equal((await raw('idtoken', `doc->>'user' = $2`, [sub])).length, 1);
      assert.equal((await raw('contexttoken', `doc->>'user' = $2`, [sub])).length, 1);
    });
  });

  describe('platform updates and access tokens', () => {
    it('stores changes made through the Platform setters and updatePlatformById', async () => {
      const own = await registerOwnPlatform(rsaPlatform);
      const { config } = own;
      const platform = own.platform as unknown as PlatformSetters;
      await platform.platformName('Renamed RSA LMS');
      await platform.platformAuthorizationServer(`${config.url}/audience`);
      await platform.platformAuthConfig('RSA_KEY', platformKeys.publicKey);
      await (lti as unknown as ProviderExtras).updatePlatformById(await own.platform.platformKid(), { name: 'Renamed again' });
      const found = await lti.getPlatform(config.url, config.clientId);
      assert.ok(found);
      assert.equal(await found.platformName(), 'Renamed again');
      // updatePlatformById passes authorizationServer: undefined when not given: the stored one stays.
      assert.equal(await found.platformAuthorizationServer(), `${config.url}/audience`);
      assert.deepEqual(await found.platformAuthConfig(), config.authConfig);
    });

    it('fetches an access token once, stores it encrypted and serves it from the store until it expires', async () => {
      let requests = 0;
      const tokenServer = createServer((_req, res) => {
        requests += 1;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ access_token: `secret-token-${requests}`, token_type: 'bearer', expires_in: 3600 }));
      });
      await new Promise<void>((resolve) => tokenServer.listen(0, '127.0.0.1', resolve));
      const platform = (await lti.getPlatform(ISSUER, rsaPlatform.clientId)) as unknown as PlatformSetters;
      try {
        const { port } = tokenServer.address() as AddressInfo;
        await platform.platformAccessTokenEndpoint(`http://127.0.0.1:${port}/token`);
        const scopes = 'https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly';
        const first = await platform.platformAccessToken(scopes);
        assert.equal(first.access_token, 'secret-token-1');
        assert.equal(first.token_type, 'Bearer');
        const rows = await raw('accesstoken', `doc->>'clientId' = $2`, [rsaPlatform.clientId]);
        assert.equal(rows.length, 1);
        assert.equal(rows[0]?.scopes, scopes);
        assert.doesNotMatch(JSON.stringify(rows), /secret-token/);
        const second = await platform.platformAccessToken(scopes);
        assert.equal(second.access_token, 'secret-token-1');
        assert.equal(requests, 1);
      } finally {
        await platform.platformAccessTokenEndpoint(rsaPlatform.accesstokenEndpoint);
        await new Promise((resolve) => tokenServer.close(resolve));
      }
    });

    it('moves the launch to a new resource path (lti.redirect with newResource)', async () => {
      const sub = 'student-redirect';
      const agent = request.agent(lti.app);
      const { location } = await launch(agent, { sub });
      const target = new URL(location, 'http://tool.test');
      target.searchParams.set('moveTo', '/exam-hub');
      await agent.get(target.pathname + target.search).expect(302);
      const [context] = await raw('contexttoken', `doc->>'user' = $2`, [sub]);
      assert.equal(context?.path, '/exam-hub');
    });
  });

  describe('deletePlatform', () => {
    it('removes the platform, its status and both keys, and drops it from the keyset', async () => {
      const { config, platform } = await registerOwnPlatform(jwkSetPlatform);
      const kid = await platform.platformKid();
      await platform.platformActive(true);
      const keysetBefore = await keysetKids();
      assert.ok(keysetBefore.includes(kid));
      assert.equal(await lti.deletePlatform(config.url, config.clientId), true);
      assert.equal(await lti.getPlatform(config.url, config.clientId), false);
      for (const collection of ['platform', 'publickey', 'privatekey']) {
        assert.deepEqual(await raw(collection, `doc->>'kid' = $2`, [kid]), [], collection);
      }
      assert.deepEqual(await raw('platformStatus', `doc->>'id' = $2`, [kid]), []);
      assert.deepEqual(await keysetKids(), keysetBefore.filter((other) => other !== kid));
      assert.ok(await lti.getPlatform(ISSUER, jwkSetPlatform.clientId), 'the other platforms stay');
      assert.ok(await lti.getPlatform(ISSUER, rsaPlatform.clientId), 'the other platforms stay');
    });
  });
});
