// How a delivery proves where it comes from: the signature over the raw bytes and the subscription key, each
// compared in constant time, and every near miss refused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deliverySignature, keyHash, keyMatches, sameText, signatureMatches } from '../../../src/webhooks/verify.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');
const data = bytes('{"id": "1", "suspicion": 27}');
// sha1("n1:{"id": "1", "suspicion": 27}:s3cret"), computed independently with sha1sum.
const SIGNATURE = 'da94b6b2feefa5201560e38fb2d710a7ff46b144';

describe('delivery signature', () => {
  it('is the lowercase hex SHA-1 of nonce:data:secret over the raw bytes', () => {
    assert.equal(deliverySignature('n1', data, 's3cret'), SIGNATURE);
  });

  const cases: Array<{ name: string; signature: string; nonce?: string; data?: Uint8Array; secret?: string; matches: boolean }> = [
    { name: 'the signature', signature: SIGNATURE, matches: true },
    { name: 'the signature in capitals', signature: SIGNATURE.toUpperCase(), matches: true },
    { name: 'the signature in mixed case', signature: `${SIGNATURE.slice(0, 20).toUpperCase()}${SIGNATURE.slice(20)}`, matches: true },
    { name: 're-serialised data', signature: SIGNATURE, data: bytes('{"id":"1","suspicion":27}'), matches: false },
    { name: 'another nonce', signature: SIGNATURE, nonce: 'n2', matches: false },
    { name: 'another secret', signature: SIGNATURE, secret: 'other', matches: false },
    { name: 'one hex digit changed', signature: `${SIGNATURE.slice(0, 39)}5`, matches: false },
    { name: 'one hex digit short', signature: SIGNATURE.slice(0, 39), matches: false },
    { name: 'one hex digit more', signature: `${SIGNATURE}0`, matches: false },
    { name: 'a character before it', signature: `x${SIGNATURE}`, matches: false },
    { name: 'a space after it', signature: `${SIGNATURE} `, matches: false },
    { name: 'forty characters that are not hex', signature: 'g'.repeat(40), matches: false },
    { name: 'not hex at all', signature: 'not hex', matches: false },
    { name: 'empty', signature: '', matches: false },
  ];
  for (const { name, signature, nonce = 'n1', data: raw = data, secret = 's3cret', matches } of cases) {
    it(`${matches ? 'accepts' : 'refuses'} ${name}`, () => {
      assert.equal(signatureMatches(signature, nonce, raw, secret), matches);
    });
  }

  it('signs the nonce and the secret as UTF-8', () => {
    const signature = deliverySignature('é', data, 'ü');
    assert.equal(signatureMatches(signature, 'é', data, 'ü'), true);
    assert.notEqual(signature, deliverySignature('e', data, 'ü'));
    // sha1("é:{"id": "1", "suspicion": 27}:ü") over UTF-8 bytes, computed with sha1sum.
    assert.equal(signature, 'ba10524a4506e6c60eef064493303ac9f6d1fcc1');
  });
});

describe('subscription key', () => {
  it('is stored as its SHA-256 in hex', () => {
    assert.equal(keyHash('the-key'), 'ad44dc8e51cfbfa55e81ddbb626b466241069045066846e7e4cd096131505290');
    assert.equal(keyHash(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  const stored = keyHash('the-key');
  const cases: Array<{ name: string; key: string; stored?: string; matches: boolean }> = [
    { name: 'its own key', key: 'the-key', matches: true },
    { name: 'its own key against a hash in capitals', key: 'the-key', stored: stored.toUpperCase(), matches: true },
    { name: 'the key with a space', key: 'the-key ', matches: false },
    { name: 'an empty key', key: '', matches: false },
    { name: 'the hash itself as key', key: stored, matches: false },
    { name: 'its key against a stored hash that is too short', key: 'the-key', stored: stored.slice(0, 32), matches: false },
    { name: 'its key against a stored value that is not hex', key: 'the-key', stored: 'zz', matches: false },
  ];
  for (const { name, key, stored: against = stored, matches } of cases) {
    it(`${matches ? 'matches' : 'does not match'} ${name}`, () => {
      assert.equal(keyMatches(key, against), matches);
    });
  }
});

describe('constant-time text comparison', () => {
  const cases: Array<[string, string, boolean]> = [
    ['same', 'same', true],
    ['', '', true],
    ['é', 'é', true],
    ['same', 'Same', false],
    ['short', 'shorter', false],
    ['', 'x', false],
  ];
  for (const [a, b, same] of cases) {
    it(`${JSON.stringify(a)} and ${JSON.stringify(b)}: ${same ? 'the same' : 'different'}`, () => {
      assert.equal(sameText(a, b), same);
    });
  }
});
