import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createSecretBox, lastFour, SecretBoxError } from '../../../src/secrets/secret-box.js';

const OLD = 'old-key-0123456789abcdefghijklmnopqrstuvwxyz';
const NEW = 'new-key-0123456789abcdefghijklmnopqrstuvwxyz';

describe('secret box', () => {
  it('seals and opens, never showing the plaintext', () => {
    const box = createSecretBox([OLD]);
    const sealed = box.seal('consumer-secret-1234');
    assert.doesNotMatch(sealed, /consumer|secret|1234/);
    assert.equal(box.open(sealed), 'consumer-secret-1234');
    assert.notEqual(box.seal('same'), box.seal('same'), 'a fresh IV each time');
  });

  it('opens what an older key sealed after a rotation, and seals with the newest', () => {
    const sealedOld = createSecretBox([OLD]).seal('s3cret-value');
    const rotated = createSecretBox([NEW, OLD]);
    assert.equal(rotated.open(sealedOld), 's3cret-value');
    assert.equal(rotated.isCurrent(sealedOld), false);
    const resealed = rotated.seal(rotated.open(sealedOld));
    assert.equal(rotated.isCurrent(resealed), true);
    assert.equal(createSecretBox([NEW]).open(resealed), 's3cret-value', 'the old key is no longer needed');
    assert.throws(() => createSecretBox([NEW]).open(sealedOld), (error: unknown) => error instanceof SecretBoxError && /no longer lists/.test(error.message));
  });

  it('refuses an altered value', () => {
    const box = createSecretBox([OLD]);
    const parts = box.seal('abcdefgh').split('.');
    const data = Buffer.from(parts[4]!, 'base64url');
    data[0] = (data[0] ?? 0) ^ 1;
    parts[4] = data.toString('base64url');
    assert.throws(() => box.open(parts.join('.')), /altered/);
    assert.throws(() => box.open('plain text'), /not a sealed secret/);
  });

  it('shows the last four characters of long secrets only', () => {
    assert.equal(lastFour('0123456789abcdef'), 'cdef');
    assert.equal(lastFour('short'), '');
  });
});
