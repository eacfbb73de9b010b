// Installation secrets sealed with ENCRYPTION_KEY, the start-up check of the key, and the rotation of each secret
// on its own: the hosted-link key (old links valid until they expire or are retired) and the pseudonym key
// (no existing id changes).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHostedLinks } from '../../../src/hosted/links.js';
import { returnLink, verifyReturnLink } from '../../../src/launches/return-links.js';
import { deriveExamTag, deriveSectionId, deriveUserId } from '../../../src/lti/identifiers.js';
import { LtijsStore } from '../../../src/lti/store/ltijs-store.js';
import { createAppSecrets, EncryptionKeyError } from '../../../src/db/app-secrets.js';
import { verifyEncryptionKeys } from '../../../src/lti/encryption-check.js';
import { loadPseudonymKeys, rotatePseudonymKey } from '../../../src/lti/pseudonym-keys.js';
import { createSecretBox } from '../../../src/secrets/secret-box.js';
import { migratedTestDatabase, openSecondHandle, type TestDatabase } from '../../helpers/db.js';

const KEY = 'app-secrets-key-0123456789abcdefghijklmnopqrstuvwxyz';
const OTHER = 'another-key-0123456789abcdefghijklmnopqrstuvwxyz';
const MOODLE = 'https://moodle.example.edu';
const CANVAS = 'https://canvas.example.edu';

describe('installation secrets', () => {
  let db: TestDatabase;
  before(async () => {
    db = await migratedTestDatabase();
  });
  after(async () => {
    await db?.close();
  });

  it('keeps the secrets of an earlier version, sealed: no secret is readable from the database alone', async () => {
    const earlier = await migratedTestDatabase();
    try {
      // What a version before the sealed secrets left behind (the migration renamed its table).
      await earlier.query("INSERT INTO app_secrets_unsealed (name, value) VALUES ('pseudonyms', 'plain-pseudonym-key-of-an-earlier-version')");
      await verifyEncryptionKeys(earlier, [KEY]);
      const secrets = createAppSecrets(earlier, createSecretBox([KEY]));
      assert.deepEqual(await secrets.versions('pseudonyms'), [{ version: 1, value: 'plain-pseudonym-key-of-an-earlier-version' }], 'the same key: no id changes');
      const hostedLinkKey = (await secrets.versions('hosted-links'))[0]!.value;
      assert.equal((await earlier.query('SELECT * FROM app_secrets_unsealed')).rows.length, 0, 'the plain-text copy is gone');
      const stored = await earlier.query<{ sealed: string }>('SELECT sealed FROM app_secrets');
      for (const { sealed } of stored.rows) {
        assert.match(sealed, /^v1\./);
        assert.ok(!sealed.includes('plain-pseudonym-key') && !sealed.includes(hostedLinkKey), 'sealed, not plain');
      }
    } finally {
      await earlier.close();
    }
  });

  it('refuses a key that does not open the database, naming the problem', async () => {
    // The database's data, sealed with KEY.
    await verifyEncryptionKeys(db, [KEY]);
    await createAppSecrets(db, createSecretBox([KEY])).versions('pseudonyms');
    await assert.rejects(verifyEncryptionKeys(db, [OTHER]), (error: unknown) => {
      assert.ok(error instanceof EncryptionKeyError);
      assert.match(error.message, /ENCRYPTION_KEY does not open the data of this database/);
      assert.match(error.message, /kept with that backup/);
      assert.ok(!error.message.includes(KEY) && !error.message.includes(OTHER), 'names key ids, never keys');
      return true;
    });
    await assert.rejects(createAppSecrets(db, createSecretBox([OTHER])).versions('pseudonyms', true), EncryptionKeyError);
    await verifyEncryptionKeys(db, [OTHER, KEY]);
  });

  it('recognises a wrong key on a database from before the check value by its LTI keys', async () => {
    const legacy = await migratedTestDatabase();
    try {
      const store = new LtijsStore(legacy);
      await store.setup();
      await store.Insert(KEY, 'privatekey', { key: 'PRIVATE KEY' }, { kid: 'k1' });
      await assert.rejects(verifyEncryptionKeys(legacy, [OTHER]), /its LTI keys do not decrypt/);
      assert.equal((await legacy.query('SELECT * FROM app_secrets')).rows.length, 0, 'no check value written for the wrong key');
      await verifyEncryptionKeys(legacy, [KEY]);
      await verifyEncryptionKeys(legacy, [KEY]);
      await assert.rejects(verifyEncryptionKeys(legacy, [OTHER]), EncryptionKeyError);
    } finally {
      await legacy.close();
    }
  });

  it('rotates the hosted-link key: new links are signed with the new version, old ones open until they are retired', async () => {
    const secrets = createAppSecrets(db, createSecretBox([KEY]));
    const links = createHostedLinks({ baseUrl: 'https://tool.example.edu', keys: (fresh) => secrets.versions('hosted-links', fresh) });
    const tokenOf = (url: string) => new URL(url).searchParams.get('t')!;
    const before = tokenOf(await links.rosterUrl('sec-a', 600));

    // Another replica (its own cache, the same database) rotates.
    const elsewhere = createAppSecrets(await openSecondHandle(db), createSecretBox([KEY]));
    assert.equal(await elsewhere.rotate('hosted-links'), 2);
    const rotated = createHostedLinks({ baseUrl: 'https://tool.example.edu', keys: (fresh) => elsewhere.versions('hosted-links', fresh) });
    const afterRotation = tokenOf(await rotated.rosterUrl('sec-b', 600));
    assert.equal(JSON.parse(Buffer.from(afterRotation.split('.')[0]!, 'base64url').toString()).kid, '2');

    assert.equal((await links.verify(before, 'roster'))?.sectionId, 'sec-a', 'a link signed before the rotation still opens');
    assert.equal((await links.verify(afterRotation, 'roster'))?.sectionId, 'sec-b', 'a replica that has not read the new version yet reads it for a link that names it');
    assert.equal((await rotated.verify(before, 'roster'))?.sectionId, 'sec-a');

    assert.equal(await elsewhere.retire('hosted-links'), 1);
    assert.equal(await rotated.verify(before, 'roster'), undefined, 'retired: links of the old version no longer open');
    assert.equal((await rotated.verify(afterRotation, 'roster'))?.sectionId, 'sec-b');
  });

  it('rotates the pseudonym key without changing the ids of any issuer it already knows', async () => {
    const secrets = createAppSecrets(db, createSecretBox([KEY]));
    await db.query("INSERT INTO lti_deployments (issuer, client_id, deployment_id) VALUES ($1, 'client', 'd1')", [MOODLE]);
    const keys = await loadPseudonymKeys(db, secrets);
    const before = { user: deriveUserId(keys, MOODLE, '42'), exam: deriveExamTag(keys, MOODLE, 'd1', 'r1'), section: deriveSectionId(keys, MOODLE, 'd1', 'c1') };
    const link = returnLink('https://tool.example.edu', keys, 'attempt-1', 'submitted');
    const firstKey = (await secrets.versions('pseudonyms'))[0]!.value;
    assert.equal(before.user, deriveUserId(firstKey, MOODLE, '42'), 'the versioned keys derive what the single key derived');

    const { version, bound } = await rotatePseudonymKey(secrets);
    assert.equal(version, 2);
    assert.ok(bound >= 1, 'the known issuer is bound to the version its ids were derived with');
    const rotated = await loadPseudonymKeys(db, secrets);
    assert.deepEqual(
      { user: deriveUserId(rotated, MOODLE, '42'), exam: deriveExamTag(rotated, MOODLE, 'd1', 'r1'), section: deriveSectionId(rotated, MOODLE, 'd1', 'c1') },
      before,
      'the same ids after the rotation',
    );
    const newest = (await secrets.versions('pseudonyms'))[0]!;
    assert.equal(newest.version, 2);
    assert.equal(deriveUserId(rotated, CANVAS, '42'), deriveUserId(newest.value, CANVAS, '42'), 'an issuer first seen afterwards uses the new key');
    assert.notEqual(deriveUserId(rotated, CANVAS, '42'), deriveUserId(firstKey, CANVAS, '42'));

    const sig = new URL(link).searchParams.get('sig')!;
    assert.ok(verifyReturnLink(rotated, 'attempt-1', 'submitted', sig), 'a return link signed before the rotation still verifies');
  });
});
