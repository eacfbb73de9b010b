import assert from 'node:assert/strict';
import { createHmac, generateKeyPairSync } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createDeploymentStore } from '../../../src/lti/deployments.js';
import { importSecretKeysOnce, ltijsJsonwebtoken } from '../../../src/lti/ltijs-boundary.js';
import { createLoginStateStore, pendingLoginsSql } from '../../../src/lti/login-states.js';
import { migratedTestDatabase, type TestDatabase } from '../../helpers/db.js';

describe('launch hot path', () => {
  describe("ltijs's JWT key imported once", () => {
    before(() => importSecretKeysOnce());

    it('signs the session token with the same HMAC as jsonwebtoken does with the string secret', () => {
      const jwt = ltijsJsonwebtoken();
      const token = String(jwt.sign({ s: 'state', clientId: 'client' }, 'the-ltijs-encryption-key-0123456789', { noTimestamp: true }));
      const [header, payload, signature] = token.split('.');
      assert.deepEqual(JSON.parse(Buffer.from(header!, 'base64url').toString()), { alg: 'HS256', typ: 'JWT' });
      const expected = createHmac('sha256', 'the-ltijs-encryption-key-0123456789').update(`${header}.${payload}`).digest('base64url');
      assert.equal(signature, expected);
      assert.deepEqual(jwt.verify(token, 'the-ltijs-encryption-key-0123456789'), { s: 'state', clientId: 'client' });
      assert.throws(() => jwt.verify(token, 'another-key-of-the-same-length-012345'), /invalid signature/);
    });

    it('leaves PEM keys alone: RS256 with PEM text still signs and verifies, and an HMAC secret cannot verify RS256', () => {
      const jwt = ltijsJsonwebtoken();
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      const token = String(jwt.sign({ sub: 'x' }, pem, { algorithm: 'RS256', noTimestamp: true }));
      assert.deepEqual(jwt.verify(token, publicKey.export({ type: 'spki', format: 'pem' }).toString()), { sub: 'x' });
      assert.throws(() => jwt.verify(token, 'the-ltijs-encryption-key-0123456789'), /invalid algorithm/);
    });
  });

  describe('stores', () => {
    let db: TestDatabase;
    before(async () => {
      db = await migratedTestDatabase();
    });
    beforeEach(async () => {
      await db.query('DELETE FROM lti_deployments');
      await db.query('DELETE FROM lti_login_states');
    });
    after(() => db.close());

    it('counts the logins waiting for their launch on an index of those alone, not on every recent login', async () => {
      await db.query(
        `INSERT INTO lti_login_states (state, nonce, issuer, consumed_at)
         SELECT 'launched-' || g, 'nonce', 'https://lms.example', now() FROM generate_series(1, 3000) AS g`,
      );
      await db.query(`INSERT INTO lti_login_states (state, nonce, issuer) VALUES ('pending-1', 'nonce', 'https://lms.example'), ('pending-2', 'nonce', 'https://lms.example')`);
      await db.query('ANALYZE lti_login_states');
      const count = `SELECT count(*)::int AS n FROM (${pendingLoginsSql('600', '50000')}) AS pending`;
      const plan = await db.transaction(async (tx) => {
        await tx.query('SET LOCAL enable_seqscan = off');
        const rows = (await tx.query<Record<string, string>>(`EXPLAIN ${count}`)).rows;
        return rows.map((row) => Object.values(row).join(' ')).join('\n');
      });
      assert.match(plan, /lti_login_states_pending/, plan);
      assert.deepEqual((await db.query<{ n: number }>(count)).rows, [{ n: 2 }]);
    });

    it('remembers a known deployment for a few seconds; removing it through the store applies at once', async () => {
      const deployments = createDeploymentStore(db);
      await deployments.add('https://lms.example', 'client', 'dep-1');
      assert.equal(await deployments.has('https://lms.example', 'client', 'dep-1'), true);
      // Removed behind the store's back (another replica): still known within the few seconds…
      await db.query('DELETE FROM lti_deployments');
      assert.equal(await deployments.has('https://lms.example', 'client', 'dep-1'), true);
      // …and a store that remembers nothing sees it gone.
      assert.equal(await createDeploymentStore(db, { knownSeconds: 0 }).has('https://lms.example', 'client', 'dep-1'), false);
      await deployments.add('https://lms.example', 'client', 'dep-1');
      assert.equal(await deployments.remove('https://lms.example', 'client', 'dep-1'), true);
      assert.equal(await deployments.has('https://lms.example', 'client', 'dep-1'), false);
      await deployments.add('https://lms.example', 'client', 'dep-2');
      assert.equal(await deployments.has('https://lms.example', 'client', 'dep-2'), true);
      await deployments.removeAll('https://lms.example', 'client');
      assert.equal(await deployments.has('https://lms.example', 'client', 'dep-2'), false);
    });

    it('never remembers an unknown deployment: one added elsewhere is accepted at once', async () => {
      const deployments = createDeploymentStore(db);
      assert.equal(await deployments.has('https://lms.example', 'client', 'dep-3'), false);
      await db.query("INSERT INTO lti_deployments (issuer, client_id, deployment_id) VALUES ('https://lms.example', 'client', 'dep-3')");
      assert.equal(await deployments.has('https://lms.example', 'client', 'dep-3'), true);
    });

    it('reads the claims of a launch it just consumed without a query, and only within their age', async () => {
      const states = createLoginStateStore(db);
      assert.equal(await states.bind({ state: 'state-1', nonce: 'nonce-1', issuer: 'https://lms.example', clientId: 'client' }), 'ok');
      const claims = { iss: 'https://lms.example', sub: 'user-1', roles: ['Learner'] };
      assert.equal(await states.consume('state-1', 'nonce-1', claims, 600), 'ok');
      // The same claims as stored, as a copy.
      const read = await states.claims('state-1', 14_400);
      assert.deepEqual(read, claims);
      assert.notEqual(read, claims);
      // Gone from the database (purged elsewhere): this process still answers from what it consumed…
      await db.query('DELETE FROM lti_login_states');
      assert.deepEqual(await states.claims('state-1', 14_400), claims);
      // …another process (a replica) asks the database…
      assert.equal(await createLoginStateStore(db).claims('state-1', 14_400), undefined);
      // …and a launch older than the asked age is not answered from memory.
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(await states.claims('state-1', 0.01), undefined);
    });

    it('keeps no request body alive with the claims it remembers', async () => {
      setFlagsFromString('--expose-gc');
      const collectGarbage = runInNewContext('gc') as () => void;
      const states = createLoginStateStore(db);
      const launches = 40;
      const heapAfterCollection = () => {
        collectGarbage();
        return process.memoryUsage().heapUsed;
      };
      const before = heapAfterCollection();
      for (let i = 0; i < launches; i++) {
        // As a form parser cuts it out of a posted body: a substring of a 1 MB string.
        const body = `id_token=${String(i).repeat(500_000)}&state=state-body-${i}-0123456789`;
        const state = body.slice(body.indexOf('&state=') + 7);
        await states.bind({ state, nonce: `nonce-${i}`, issuer: 'https://lms.example' });
        assert.equal(await states.consume(state, `nonce-${i}`, { sub: `user-${i}` }, 600), 'ok');
      }
      const grown = heapAfterCollection() - before;
      // Kept with their bodies, the states would hold 40 MB; the claims themselves are a few kilobytes.
      assert.ok(grown < 8_000_000, `the heap grew by ${grown} bytes`);
      assert.deepEqual(await states.claims(`state-body-7-0123456789`, 14_400), { sub: 'user-7' });
    });

    it('remembers nothing for a launch it refused', async () => {
      const states = createLoginStateStore(db);
      await states.bind({ state: 'state-2', nonce: 'nonce-2', issuer: 'https://lms.example' });
      assert.equal(await states.consume('state-2', 'wrong-nonce', { sub: 'x' }, 600), 'mismatch');
      assert.equal(await states.claims('state-2', 14_400), undefined);
    });
  });
});
