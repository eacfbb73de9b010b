// Key rotation: with ENCRYPTION_KEY = "new,old" everything still decrypts; the rotation command re-encrypts
// ltijs's encrypted documents and the proctoring accounts with the new key, after which "new" alone suffices.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LtijsStore } from '../../../../src/lti/store/ltijs-store.js';
import { createAccountStore } from '../../../../src/proctoring/accounts.js';
import { reencryptWithNewestKey } from '../../../../src/cli/key-rotation.js';
import { createAppSecrets, EncryptionKeyError } from '../../../../src/db/app-secrets.js';
import { verifyEncryptionKeys } from '../../../../src/lti/encryption-check.js';
import { createSecretBox } from '../../../../src/secrets/secret-box.js';
import { migratedTestDatabase, type TestDatabase } from '../../../helpers/db.js';

const OLD = 'old-key-0123456789abcdefghijklmnopqrstuvwxyz';
const NEW = 'new-key-0123456789abcdefghijklmnopqrstuvwxyz';

describe('encryption key rotation', () => {
  let db: TestDatabase;
  before(async () => {
    db = await migratedTestDatabase();
  });
  after(async () => {
    await db.close();
  });

  const ltijsStore = async (key: string, olderKeys: string[] = []) => {
    const store = new LtijsStore(db, { olderKeys });
    await store.setup();
    const first = (found: false | Record<string, unknown>[]) => (found === false ? undefined : found[0]);
    return { get: async (kid: string) => first(await store.Get(key, 'privatekey', { kid })), first, store };
  };

  it('reads old documents during the rotation, re-encrypts all of them, then needs only the new key', async () => {
    const old = await ltijsStore(OLD);
    await old.store.Insert(OLD, 'privatekey', { key: 'PRIVATE KEY A' }, { kid: 'a' });
    await old.store.Insert(OLD, 'publickey', { key: 'PUBLIC KEY A' }, { kid: 'a' });
    await old.store.Insert(false, 'platform', { platformUrl: 'https://lms.example.edu', clientId: 'c', kid: 'a' });
    await createAccountStore(db, createSecretBox([OLD])).create({ id: 'eu', name: 'EU', region: 'EU', baseUrl: 'https://eu.example.com', apiKey: 'eu-api-key-000042' });
    await verifyEncryptionKeys(db, [OLD]);
    const [pseudonymKey] = await createAppSecrets(db, createSecretBox([OLD])).versions('pseudonyms');
    await assert.rejects(verifyEncryptionKeys(db, [NEW]), EncryptionKeyError, 'the new key alone is refused before the re-encryption');
    await verifyEncryptionKeys(db, [NEW, OLD]);

    // Before: the new key alone opens nothing, "new,old" opens everything (new writes use the new key).
    await assert.rejects((await ltijsStore(NEW)).get('a'), /none of the encryption keys/);
    const during = await ltijsStore(NEW, [OLD]);
    assert.deepEqual(await during.get('a'), { key: 'PRIVATE KEY A' });
    await during.store.Insert(NEW, 'privatekey', { key: 'PRIVATE KEY B' }, { kid: 'b' });
    const accountsDuring = createAccountStore(db, createSecretBox([NEW, OLD]));
    assert.deepEqual((await accountsDuring.target('eu'))?.credentials, { apiKey: 'eu-api-key-000042' });

    const result = await reencryptWithNewestKey(db, [NEW, OLD]);
    assert.deepEqual(result, { ltijsDocuments: 3, proctoringAccounts: 1, appSecrets: 2 }, 'the pseudonym key and the check value');

    const after = await ltijsStore(NEW);
    assert.deepEqual(await after.get('a'), { key: 'PRIVATE KEY A' });
    assert.deepEqual(await after.get('b'), { key: 'PRIVATE KEY B' });
    assert.deepEqual(after.first(await after.store.Get(NEW, 'publickey', { kid: 'a' })), { key: 'PUBLIC KEY A' });
    assert.deepEqual(after.first(await after.store.Get(false, 'platform', { clientId: 'c' }))?.kid, 'a', 'clear documents untouched');
    assert.deepEqual((await createAccountStore(db, createSecretBox([NEW])).target('eu'))?.credentials, { apiKey: 'eu-api-key-000042' });
    await assert.rejects((await ltijsStore(OLD)).get('a'), /none of the encryption keys/, 'the old key no longer opens anything');
    await verifyEncryptionKeys(db, [NEW]);
    assert.deepEqual((await createAppSecrets(db, createSecretBox([NEW])).versions('pseudonyms', true))[0], pseudonymKey, 'the pseudonym key keeps its value');
    await assert.rejects(verifyEncryptionKeys(db, [OLD]), /ENCRYPTION_KEY does not open the data of this database/, 'the old key alone is refused afterwards');

    assert.deepEqual(await reencryptWithNewestKey(db, [NEW]), { ltijsDocuments: 3, proctoringAccounts: 0, appSecrets: 0 }, 'idempotent');
  });
});
