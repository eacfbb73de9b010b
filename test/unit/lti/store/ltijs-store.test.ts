import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Database } from '../../../../src/db/types.js';
import { LTIJS_TTL_SECONDS, LtijsStore, type HeldReplace, type LtijsDocument } from '../../../../src/lti/store/ltijs-store.js';
import { migratedTestDatabase, openSecondHandle, openTestDatabase, type TestDatabase } from '../../../helpers/db.js';

const KEY = 'store-test-encryption-key';

interface RawRow {
  doc: LtijsDocument;
  expires_in: number | null;
}

describe('LtijsStore', () => {
  let db: TestDatabase;
  let store: LtijsStore;

  async function raw(collection: string): Promise<RawRow[]> {
    const { rows } = await db.query<RawRow>(
      `SELECT doc, extract(epoch FROM expires_at - created_at)::int AS expires_in
       FROM ltijs_documents WHERE collection = $1 ORDER BY id`,
      [collection],
    );
    return rows;
  }

  before(async () => {
    db = await migratedTestDatabase();
    store = new LtijsStore(db);
    await store.setup();
  });
  beforeEach(() => db.query('DELETE FROM ltijs_documents'));
  after(() => db.close());

  describe('lifecycle', () => {
    it('refuses calls before setup and after Close, as ltijs’s own store does', async () => {
      const fresh = new LtijsStore(db);
      await assert.rejects(fresh.Get(false, 'platform', {}), /PROVIDER_NOT_DEPLOYED/);
      assert.equal(await fresh.setup(), true);
      assert.equal(await fresh.Get(false, 'platform', {}), false);
      assert.equal(await fresh.Close(), true);
      await assert.rejects(fresh.Insert(false, 'nonce', { nonce: 'n' }), /PROVIDER_NOT_DEPLOYED/);
      // Close leaves the shared database open.
      await db.ping();
    });

    it('fails setup clearly when the migration has not run', async () => {
      const empty = await openTestDatabase();
      try {
        await assert.rejects(new LtijsStore(empty).setup(), /0001_ltijs_store/);
      } finally {
        await empty.close();
      }
    });

    it('checks parameters and collection names', async () => {
      await assert.rejects(store.Get(false, '', {}), /MISSING_COLLECTION/);
      await assert.rejects(store.Get(false, 'platforms', {}), /UNKNOWN_COLLECTION/);
      await assert.rejects(store.Insert(KEY, 'accesstoken', { token: {} }), /MISSING_PARAMS/);
      await assert.rejects(store.Replace(KEY, 'publickey', { kid: 'k' }, { key: 'x' }), /MISSING_PARAMS/);
    });
  });

  describe('without encryption', () => {
    it('inserts and gets documents, false when nothing matches', async () => {
      assert.equal(await store.Get(false, 'platform', { platformUrl: 'https://lms.example' }), false);
      const platform = {
        platformName: 'LMS',
        platformUrl: 'https://lms.example',
        clientId: 'client-1',
        authEndpoint: 'https://lms.example/auth',
        accesstokenEndpoint: 'https://lms.example/token',
        authorizationServer: 'https://lms.example/oauth2',
        kid: 'kid-1',
        authConfig: { method: 'JWK_SET', key: 'https://lms.example/jwks' },
        somethingLtijsMayAddLater: { nested: [1, 2] },
      };
      assert.equal(await store.Insert(false, 'platform', platform), true);
      assert.deepEqual(await store.Get(false, 'platform', { platformUrl: 'https://lms.example' }), [platform]);
      assert.deepEqual(await store.Get(false, 'platform', { platformUrl: 'https://lms.example', clientId: 'x' }), false);
    });

    it('gets every document of the collection without a query, oldest first', async () => {
      await store.Insert(false, 'platformStatus', { id: 'a', active: true });
      await store.Insert(false, 'platformStatus', { id: 'b', active: false });
      await store.Insert(false, 'nonce', { nonce: 'other collection' });
      const all = await store.Get(false, 'platformStatus');
      assert.deepEqual(all, [
        { id: 'a', active: true },
        { id: 'b', active: false },
      ]);
    });

    it('matches undefined and null query values only against missing or null fields, as Mongo does', async () => {
      await store.Insert(false, 'publickey', { kid: 'k1', key: 'PEM1' });
      await store.Insert(false, 'publickey', { kid: 'k2', key: 'PEM2' });
      await store.Insert(false, 'nonce', { nonce: null });
      assert.equal(await store.Get(false, 'publickey', { kid: undefined }), false);
      // ltijs's registerPlatform cleans up with { kid: undefined } when key generation failed: no key may go.
      await store.Delete('publickey', { kid: undefined });
      assert.equal((await raw('publickey')).length, 2);
      const found = (await store.Get(false, 'nonce', { nonce: undefined })) || [];
      assert.equal(found.length, 1);
      assert.equal(found[0]?.nonce, null);
    });

    it('compares object values for equality, not containment', async () => {
      await store.Insert(false, 'platform', { kid: 'k', platformUrl: 'u', authConfig: { method: 'RSA_KEY', key: 'K' } });
      assert.equal(await store.Get(false, 'platform', { authConfig: { method: 'RSA_KEY' } }), false);
      assert.equal(
        (await store.Get(false, 'platform', { authConfig: { key: 'K', method: 'RSA_KEY' } }) || []).length,
        1,
      );
    });

    it('adds createdAt (a Date) to documents of expiring collections', async () => {
      const before = Date.now();
      await store.Insert(false, 'state', { state: 's1', query: { a: '1' } });
      const [state] = (await store.Get(false, 'state', { state: 's1' })) || [];
      assert.ok(state?.createdAt instanceof Date);
      assert.ok(Math.abs(state.createdAt.getTime() - before) < 60_000);
      assert.deepEqual(state.query, { a: '1' });
      await store.Insert(false, 'platformStatus', { id: 'p', active: true });
      assert.deepEqual(await store.Get(false, 'platformStatus', { id: 'p' }), [{ id: 'p', active: true }]);
    });

    it('replaces the matching document, or inserts one', async () => {
      const query = { iss: 'https://lms.example', clientId: 'c', deploymentId: 'd', user: 'u1' };
      await store.Replace(false, 'idtoken', query, { ...query, userInfo: { name: 'First' } });
      await store.Replace(false, 'idtoken', query, { ...query, userInfo: { name: 'Second' }, platformId: 'k' });
      const rows = await raw('idtoken');
      assert.equal(rows.length, 1);
      assert.deepEqual(rows[0]?.doc, { ...query, userInfo: { name: 'Second' }, platformId: 'k' });
    });

    it('keeps the query’s fields in a replaced document so the next Replace finds it', async () => {
      const query = { platformUrl: 'https://lms.example', clientId: 'c', scopes: 'a b' };
      await store.Replace(false, 'accesstoken', query, { token: { access_token: 't1' } });
      await store.Replace(false, 'accesstoken', query, { token: { access_token: 't2' } });
      const found = (await store.Get(false, 'accesstoken', query)) || [];
      assert.equal(found.length, 1);
      assert.deepEqual(found[0]?.token, { access_token: 't2' });
    });

    it('modifies only the given fields of the first match, ignoring undefined values', async () => {
      await store.Insert(false, 'platform', {
        platformUrl: 'https://lms.example',
        clientId: 'c',
        kid: 'k',
        platformName: 'Old',
        authorizationServer: 'https://lms.example/as',
      });
      await store.Modify(false, 'platform', { kid: 'k' }, { platformName: 'New', authorizationServer: undefined });
      assert.deepEqual(await store.Get(false, 'platform', { kid: 'k' }), [
        {
          platformUrl: 'https://lms.example',
          clientId: 'c',
          kid: 'k',
          platformName: 'New',
          authorizationServer: 'https://lms.example/as',
        },
      ]);
      await store.Modify(false, 'platform', { kid: 'nobody' }, { platformName: 'X' });
      assert.equal((await raw('platform')).length, 1);
    });

    it('deletes every match, and only matches', async () => {
      await store.Insert(false, 'nonce', { nonce: 'a' });
      await store.Insert(false, 'nonce', { nonce: 'a' });
      await store.Insert(false, 'nonce', { nonce: 'b' });
      assert.equal(await store.Delete('nonce', { nonce: 'a' }), true);
      assert.deepEqual(
        (await raw('nonce')).map((row) => row.doc),
        [{ nonce: 'b' }],
      );
    });

    it('enforces the unique keys of ltijs’s Mongo schemas', async () => {
      await store.Insert(false, 'state', { state: 'same' });
      await assert.rejects(store.Insert(false, 'state', { state: 'same' }));
      await store.Insert(false, 'platformStatus', { id: 'p' });
      await assert.rejects(store.Insert(false, 'platformStatus', { id: 'p' }));
    });
  });

  describe('with ENCRYPTIONKEY', () => {
    it('stores the index fields plus iv and data, nothing else in clear, and decrypts on Get', async () => {
      const secret = '-----BEGIN RSA PRIVATE KEY-----\nMIIsecret\n-----END RSA PRIVATE KEY-----';
      const index = { kid: 'kid-9', platformUrl: 'https://lms.example', clientId: 'c' };
      await store.Replace(KEY, 'privatekey', { platformUrl: 'https://lms.example', clientId: 'c' }, { key: secret, kid: 'kid-9' }, index);
      const [row] = await raw('privatekey');
      assert.deepEqual(Object.keys(row?.doc ?? {}).sort(), ['clientId', 'data', 'iv', 'kid', 'platformUrl']);
      assert.match(String(row?.doc.iv), /^[0-9a-f]{32}$/);
      const stored = JSON.stringify(row?.doc);
      assert.doesNotMatch(stored, /BEGIN RSA|MIIsecret/);
      assert.deepEqual(await store.Get(KEY, 'privatekey', { kid: 'kid-9' }), [{ key: secret, kid: 'kid-9' }]);
      // Without the key, ltijs gets the stored form.
      assert.deepEqual(await store.Get(false, 'privatekey', { kid: 'kid-9' }), [row?.doc]);
      await assert.rejects(store.Get('a-wrong-key', 'privatekey', { kid: 'kid-9' }));
    });

    it('inserts encrypted and decrypts with the same algorithm as ltijs (AES-256-CBC, hex)', async () => {
      await store.Insert(KEY, 'publickey', { key: 'PUBLIC PEM', kid: 'k1' }, { kid: 'k1' });
      const [row] = await raw('publickey');
      assert.ok(row);
      const plain = await store.Decrypt(String(row.doc.data), String(row.doc.iv), KEY);
      assert.deepEqual(JSON.parse(plain), { key: 'PUBLIC PEM', kid: 'k1' });
      const roundTrip = await store.Encrypt('{"x":1}', KEY);
      assert.equal(await store.Decrypt(roundTrip.data, roundTrip.iv, KEY), '{"x":1}');
    });

    it('gives decrypted documents of expiring collections createdAt in milliseconds', async () => {
      const query = { platformUrl: 'https://lms.example', clientId: 'c', scopes: 's' };
      await store.Replace(KEY, 'accesstoken', query, { token: { access_token: 'secret-token', expires_in: 3600 } }, query);
      assert.doesNotMatch(JSON.stringify((await raw('accesstoken'))[0]?.doc), /secret-token/);
      const [token] = (await store.Get(KEY, 'accesstoken', query)) || [];
      assert.equal(typeof token?.createdAt, 'number');
      // ltijs's cache check: (Date.now() - createdAt) / 1000 > token.expires_in
      assert.ok((Date.now() - Number(token?.createdAt)) / 1000 < 60);
      assert.deepEqual(token?.token, { access_token: 'secret-token', expires_in: 3600 });
    });

    it('modifies encrypted documents by decrypting, changing and re-encrypting them', async () => {
      await store.Insert(KEY, 'publickey', { key: 'PEM', kid: 'k2', extra: 'kept' }, { kid: 'k2' });
      const before = (await raw('publickey'))[0]?.doc;
      await store.Modify(KEY, 'publickey', { kid: 'k2' }, { key: 'NEW PEM', note: 'added' });
      const after = (await raw('publickey'))[0]?.doc;
      assert.notEqual(after?.data, before?.data);
      assert.equal(after?.kid, 'k2');
      assert.deepEqual(await store.Get(KEY, 'publickey', { kid: 'k2' }), [
        { key: 'NEW PEM', kid: 'k2', extra: 'kept', note: 'added' },
      ]);
      await store.Modify(KEY, 'publickey', { kid: 'none' }, { key: 'X' });
      assert.equal((await raw('publickey')).length, 1);
    });

    it('lets ltijs change index fields of encrypted rows with an unencrypted Modify', async () => {
      // updatePlatformById: Modify(false, 'publickey', { kid }, { platformUrl, clientId }) on an encrypted row.
      await store.Insert(KEY, 'publickey', { key: 'PEM', kid: 'k3' }, { kid: 'k3', platformUrl: 'old', clientId: 'c' });
      await store.Modify(false, 'publickey', { kid: 'k3' }, { platformUrl: 'new' });
      assert.deepEqual(await store.Get(KEY, 'publickey', { platformUrl: 'new' }), [{ key: 'PEM', kid: 'k3' }]);
    });
  });

  describe('expiry', () => {
    it('sets the lifetimes of ltijs’s Mongo TTL indexes', async () => {
      await store.Insert(false, 'nonce', { nonce: 'n' });
      await store.Insert(false, 'state', { state: 's' });
      await store.Replace(false, 'idtoken', { user: 'u' }, { user: 'u' });
      await store.Replace(false, 'contexttoken', { contextId: 'c', user: 'u' }, { contextId: 'c', user: 'u' });
      await store.Replace(KEY, 'accesstoken', { scopes: 's' }, { token: {} }, { scopes: 's' });
      await store.Insert(false, 'platform', { platformUrl: 'u', clientId: 'c', kid: 'k' });
      await store.Insert(false, 'platformStatus', { id: 'k', active: true });
      await store.Insert(KEY, 'publickey', { key: 'K' }, { kid: 'k' });
      await store.Insert(KEY, 'privatekey', { key: 'K' }, { kid: 'k' });
      const expected = {
        nonce: 10,
        state: 600,
        idtoken: 86400,
        contexttoken: 86400,
        accesstoken: 3600,
        platform: null,
        platformStatus: null,
        publickey: null,
        privatekey: null,
      };
      assert.deepEqual(
        { nonce: LTIJS_TTL_SECONDS.nonce, state: LTIJS_TTL_SECONDS.state, idtoken: LTIJS_TTL_SECONDS.idtoken },
        { nonce: 10, state: 600, idtoken: 86400 },
      );
      for (const [collection, seconds] of Object.entries(expected)) {
        assert.deepEqual(
          (await raw(collection)).map((row) => row.expires_in),
          [seconds],
          collection,
        );
      }
    });

    it('hides expired documents and purges them', async () => {
      await store.Insert(false, 'nonce', { nonce: 'old' });
      await store.Insert(false, 'nonce', { nonce: 'fresh' });
      await store.Insert(false, 'platform', { platformUrl: 'u', clientId: 'c', kid: 'k' });
      await db.query(
        `UPDATE ltijs_documents SET expires_at = now() - interval '1 second' WHERE doc->>'nonce' = 'old'`,
      );
      assert.equal(await store.Get(false, 'nonce', { nonce: 'old' }), false);
      assert.equal((await store.Get(false, 'nonce') || []).length, 1);
      await store.Modify(false, 'nonce', { nonce: 'old' }, { touched: true });
      assert.equal(await store.purgeExpired(), 1);
      assert.deepEqual(
        (await raw('nonce')).map((row) => row.doc),
        [{ nonce: 'fresh' }],
      );
      assert.equal((await raw('platform')).length, 1);
      assert.equal(await store.purgeExpired(), 0);
    });

    it('renews an expired document that is replaced', async () => {
      const query = { contextId: 'ctx', user: 'u' };
      await store.Replace(false, 'contexttoken', query, { ...query, path: '/one' });
      await db.query(`UPDATE ltijs_documents SET expires_at = now() - interval '1 second'`);
      assert.equal(await store.Get(false, 'contexttoken', query), false);
      await store.Replace(false, 'contexttoken', query, { ...query, path: '/two' });
      const found = (await store.Get(false, 'contexttoken', query)) || [];
      assert.equal(found.length, 1);
      assert.equal(found[0]?.path, '/two');
      assert.equal((await raw('contexttoken')).length, 1);
    });

    it('takes other lifetimes from options', async () => {
      const custom = new LtijsStore(db, { ttlSeconds: { nonce: 120 } });
      await custom.setup();
      await custom.Insert(false, 'nonce', { nonce: 'long' });
      assert.deepEqual(
        (await raw('nonce')).map((row) => row.expires_in),
        [120],
      );
    });
  });

  describe('concurrent Replace', () => {
    let second: Database;
    let secondStore: LtijsStore;

    before(async () => {
      // On PostgreSQL a second pool, as a second replica has; on PGlite the same database.
      second = await openSecondHandle(db);
      secondStore = new LtijsStore(second);
      await secondStore.setup();
    });
    after(() => second.close());

    it('50 concurrent Replace of one idtoken all succeed and leave exactly one row', async () => {
      const query = { iss: 'https://lms.example', clientId: 'client', deploymentId: 'dep', user: 'student-1' };
      const results = await Promise.allSettled(
        Array.from({ length: 50 }, (_, i) =>
          (i % 2 ? secondStore : store).Replace(false, 'idtoken', query, {
            ...query,
            userInfo: { name: `launch ${i}` },
            platformId: 'kid',
          }),
        ),
      );
      assert.deepEqual(
        results.filter((r) => r.status === 'rejected'),
        [],
      );
      const rows = await raw('idtoken');
      assert.equal(rows.length, 1);
      const found = (await store.Get(false, 'idtoken', query)) || [];
      assert.equal(found.length, 1);
      assert.match(String((found[0]?.userInfo as { name: string }).name), /^launch \d+$/);
    });

    it('50 concurrent Replace of one contexttoken all succeed and leave exactly one row', async () => {
      const query = { contextId: encodeURIComponent('https://lms.example' + 'client' + 'dep' + 'course_link_hash'), user: 'student-1' };
      const results = await Promise.allSettled(
        Array.from({ length: 50 }, (_, i) =>
          (i % 2 ? secondStore : store).Replace(false, 'contexttoken', query, {
            ...query,
            roles: ['http://purl.imsglobal.org/vocab/lis/v2/membership#Learner'],
            path: `/launch/${i}`,
          }),
        ),
      );
      assert.deepEqual(
        results.filter((r) => r.status === 'rejected'),
        [],
      );
      assert.equal((await raw('contexttoken')).length, 1);
    });

    it('keeps concurrent replaces of different users apart', async () => {
      await Promise.all(
        Array.from({ length: 40 }, (_, i) => {
          const query = { contextId: 'ctx', user: `user-${i % 8}` };
          return (i % 2 ? secondStore : store).Replace(false, 'contexttoken', query, { ...query, n: i });
        }),
      );
      const users = (await raw('contexttoken')).map((row) => row.doc.user).sort();
      assert.deepEqual(
        users,
        Array.from({ length: 8 }, (_, i) => `user-${i}`),
      );
    });

    it('replaces a token row written before rows carried their query key, leaving one row', async () => {
      const query = { iss: 'i', clientId: 'c', deploymentId: 'd', user: 'legacy' };
      await db.query(`INSERT INTO ltijs_documents (collection, doc) VALUES ('idtoken', $1::text::jsonb)`, [JSON.stringify({ ...query, n: 0 })]);
      await store.Replace(false, 'idtoken', query, { ...query, n: 1 });
      await secondStore.Replace(false, 'idtoken', query, { ...query, n: 2 });
      const rows = await raw('idtoken');
      assert.deepEqual(
        rows.map((row) => row.doc.n),
        [2],
      );
    });

    it('readers never miss the document while it is being replaced', async () => {
      const query = { iss: 'i', clientId: 'c', deploymentId: 'd', user: 'reader' };
      await store.Replace(false, 'idtoken', query, { ...query, n: -1 });
      const writes = Array.from({ length: 30 }, (_, i) => store.Replace(false, 'idtoken', query, { ...query, n: i }));
      const reads = Array.from({ length: 30 }, () => secondStore.Get(false, 'idtoken', query));
      await Promise.all(writes);
      for (const found of await Promise.all(reads)) {
        assert.ok(found && found.length === 1, 'a read saw no idtoken');
      }
    });
  });

  describe('held replaces and known absences', () => {
    it('prepares idtoken and contexttoken replaces without writing, then writes them in one statement, replacing older rows', async () => {
      const idQuery = { iss: 'i', clientId: 'c', deploymentId: 'd', user: 'u' };
      const contextQuery = { contextId: 'ctx', user: 'u' };
      await store.Replace(false, 'idtoken', idQuery, { ...idQuery, n: 0 });
      const replaces: HeldReplace[] = [store.heldReplace('idtoken', idQuery, { n: 1 }), store.heldReplace('contexttoken', contextQuery, { n: 1 })];
      assert.deepEqual((await raw('idtoken')).map((row) => row.doc.n), [0], 'nothing written while held');
      assert.equal((await raw('contexttoken')).length, 0);

      await store.writeHeldReplaces(replaces);
      assert.deepEqual((await raw('idtoken')).map((row) => [row.doc.n, row.expires_in]), [[1, LTIJS_TTL_SECONDS.idtoken]]);
      assert.deepEqual((await raw('contexttoken')).map((row) => [row.doc.n, row.expires_in]), [[1, LTIJS_TTL_SECONDS.contexttoken]]);
      const found = ((await store.Get(false, 'contexttoken', contextQuery)) || [])[0];
      assert.deepEqual([found?.n, found?.contextId, found?.user], [1, 'ctx', 'u'], "the query's fields are kept in the document, as Replace keeps them");

      // A Replace of the same query afterwards (ltijs's own launch route) finds and replaces the held row.
      await store.Replace(false, 'idtoken', idQuery, { ...idQuery, n: 2 });
      assert.deepEqual((await raw('idtoken')).map((row) => row.doc.n), [2]);
    });

    it('answers a query known to match nothing without reading, and reads every other one', async () => {
      const knowing = new LtijsStore(db, { knownAbsent: (collection, query) => collection === 'state' && query?.state === 'none-stored' });
      await knowing.setup();
      await store.Insert(false, 'state', { state: 'none-stored', query: { a: '1' } });
      await store.Insert(false, 'state', { state: 'stored', query: { a: '2' } });
      assert.equal(await knowing.Get(false, 'state', { state: 'none-stored' }), false);
      assert.equal(((await knowing.Get(false, 'state', { state: 'stored' })) || []).length, 1);
    });
  });

  describe('cached reads (cacheSeconds)', () => {
    const platform = { platformUrl: 'https://lms.example', clientId: 'client', kid: 'kid-1', name: 'LMS' };
    let cached: LtijsStore;

    beforeEach(async () => {
      cached = new LtijsStore(db, { cacheSeconds: 60 });
      await cached.setup();
    });

    it('reuses a read of a platform until this store writes the collection', async () => {
      await cached.Insert(false, 'platform', platform);
      assert.equal(((await cached.Get(false, 'platform', { platformUrl: platform.platformUrl, clientId: 'client' })) || [])[0]?.name, 'LMS');
      // Changed behind the store's back (another replica): the cached read stands until it expires…
      await db.query(`UPDATE ltijs_documents SET doc = doc || '{"name":"Renamed"}' WHERE collection = 'platform'`);
      assert.equal(((await cached.Get(false, 'platform', { platformUrl: platform.platformUrl, clientId: 'client' })) || [])[0]?.name, 'LMS');
      // …and an uncached store sees the change at once.
      assert.equal(((await store.Get(false, 'platform', { platformUrl: platform.platformUrl, clientId: 'client' })) || [])[0]?.name, 'Renamed');
      // A write through the store empties the collection's reads.
      await cached.Modify(false, 'platform', { kid: 'kid-1' }, { name: 'Modified' });
      assert.equal(((await cached.Get(false, 'platform', { platformUrl: platform.platformUrl, clientId: 'client' })) || [])[0]?.name, 'Modified');
      await cached.Delete('platform', { kid: 'kid-1' });
      assert.equal(await cached.Get(false, 'platform', { platformUrl: platform.platformUrl, clientId: 'client' }), false);
      await cached.Replace(false, 'platform', { kid: 'kid-1' }, platform);
      assert.equal(((await cached.Get(false, 'platform', { kid: 'kid-1' })) || []).length, 1);
    });

    it('hands out copies: a caller changing a document does not change the next read', async () => {
      await cached.Insert(false, 'platformStatus', { id: 'kid-1', active: true });
      const first = (await cached.Get(false, 'platformStatus', { id: 'kid-1' })) || [];
      first[0]!.active = false;
      assert.equal(((await cached.Get(false, 'platformStatus', { id: 'kid-1' })) || [])[0]?.active, true);
    });

    it('reads again after cacheSeconds', async () => {
      const short = new LtijsStore(db, { cacheSeconds: 0.05 });
      await short.setup();
      await short.Insert(false, 'platform', platform);
      await short.Get(false, 'platform', { kid: 'kid-1' });
      await db.query(`UPDATE ltijs_documents SET doc = doc || '{"name":"Renamed"}' WHERE collection = 'platform'`);
      await new Promise((resolve) => setTimeout(resolve, 80));
      assert.equal(((await short.Get(false, 'platform', { kid: 'kid-1' })) || [])[0]?.name, 'Renamed');
    });

    it('never caches the collections each launch writes (tokens, nonces, states)', async () => {
      const query = { iss: 'i', clientId: 'c', deploymentId: 'd', user: 'u' };
      await cached.Insert(false, 'idtoken', { ...query, n: 1 });
      await cached.Get(false, 'idtoken', query);
      await db.query(`UPDATE ltijs_documents SET doc = doc || '{"n":2}' WHERE collection = 'idtoken'`);
      assert.equal(((await cached.Get(false, 'idtoken', query)) || [])[0]?.n, 2);
    });
  });
});
