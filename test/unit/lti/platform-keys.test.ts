import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { errors as joseErrors, exportJWK, generateKeyPair, jwtVerify, SignJWT, type JWK } from 'jose';
import { createPlatformKeys } from '../../../src/lti/platform-keys.js';

/**
 * The platform key set (JWKS) is cached instead of fetched on every launch (ltijs), fetched again when a
 * token names a `kid` the cache does not know (key rotation), and every fetch has a timeout.
 */
describe('platform keys', () => {
  let server: Server;
  let jwksUrl: string;
  let served: JWK[] = [];
  let fetches = 0;
  let userAgents: string[] = [];
  const signers: Record<string, CryptoKey> = {};

  async function addKey(kid: string): Promise<void> {
    const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
    signers[kid] = privateKey;
    served.push({ ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' });
  }
  const token = (kid: string) =>
    new SignJWT({ sub: 'u' }).setProtectedHeader({ alg: 'RS256', kid }).setIssuedAt().setExpirationTime('5m').sign(signers[kid]!);

  before(async () => {
    server = createServer((req, res) => {
      fetches += 1;
      userAgents.push(String(req.headers['user-agent']));
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: served }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('fetches the key set once and serves later launches from the cache', async () => {
    served = [];
    fetches = 0;
    userAgents = [];
    await addKey('k1');
    const keys = createPlatformKeys({ userAgent: 'proctor-lti-test', cooldownMs: 0 });
    for (let i = 0; i < 5; i += 1) await jwtVerify(await token('k1'), keys.resolver({ method: 'JWK_SET', key: jwksUrl }));
    assert.equal(fetches, 1);
    assert.deepEqual(userAgents, ['proctor-lti-test'], 'the configured User-Agent is sent (Canvas requires one)');
  });

  it('fetches again for an unknown kid (the platform rotated its key)', async () => {
    served = [];
    fetches = 0;
    await addKey('old');
    const keys = createPlatformKeys({ userAgent: 'proctor-lti-test', cooldownMs: 0 });
    const resolver = keys.resolver({ method: 'JWK_SET', key: jwksUrl });
    await jwtVerify(await token('old'), resolver);
    assert.equal(fetches, 1);
    await addKey('new');
    await jwtVerify(await token('new'), keys.resolver({ method: 'JWK_SET', key: jwksUrl }));
    assert.equal(fetches, 2, 'one refetch for the new kid');
    await jwtVerify(await token('old'), resolver);
    await jwtVerify(await token('new'), resolver);
    assert.equal(fetches, 2, 'both keys now come from the cache');
  });

  it('gives up on a key set that does not answer in time', async () => {
    const silent = createServer(() => {
      // never answers
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      served = [];
      await addKey('k');
      const keys = createPlatformKeys({ userAgent: 'proctor-lti-test', timeoutMs: 300 });
      const started = Date.now();
      await assert.rejects(
        jwtVerify(await token('k'), keys.resolver({ method: 'JWK_SET', key: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/jwks` })),
        joseErrors.JWKSTimeout,
      );
      assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
