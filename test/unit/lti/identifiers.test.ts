import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { deriveExamTag, deriveSectionId, deriveUserId, type PseudonymKeyring } from '../../../src/lti/identifiers.js';

const SECRET = 'installation-secret-for-tests';
const MOODLE = 'https://moodle.example.edu';
const CANVAS = 'https://canvas.instructure.com';

const USER_ID_PATTERN = /^[a-zA-Z0-9-]*$/;
const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const RESERVED = ['goodbye', 'support', 'update', 'setup', 'invalid'];
const unicode = fc.string({ unit: 'binary' });

describe('deriveUserId', () => {
  it('is a 36-character UUIDv8 that matches the Launch API pattern, for any issuer and sub', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), unicode, unicode, (secret, issuer, sub) => {
        const id = deriveUserId(secret, issuer, sub);
        assert.equal(id.length, 36);
        assert.match(id, USER_ID_PATTERN);
        assert.match(id, UUID_V8);
      }),
    );
  });

  it('is stable', () => {
    assert.equal(deriveUserId(SECRET, MOODLE, '5'), deriveUserId(SECRET, MOODLE, '5'));
  });

  // Computed independently (Python hmac over '["user_id","i","s"]'); a changed derivation would orphan
  // every attempt and roster id already stored upstream.
  it('is pinned to its derivation', () => {
    assert.equal(deriveUserId('k', 'i', 's'), 'c50af07e-9648-8711-bffe-8a250bf16a47');
  });

  it('separates users and issuers (Moodle numeric subs on two sites)', () => {
    const ids = new Set(['2', '3', '4', '5', '10', '11'].flatMap((sub) => [deriveUserId(SECRET, MOODLE, sub), deriveUserId(SECRET, CANVAS, sub)]));
    assert.equal(ids.size, 12);
  });

  it('does not confuse ("a", "bc") with ("ab", "c")', () => {
    assert.notEqual(deriveUserId(SECRET, 'a', 'bc'), deriveUserId(SECRET, 'ab', 'c'));
    assert.notEqual(deriveUserId(SECRET, 'a"', 'b'), deriveUserId(SECRET, 'a', '"b'));
    assert.notEqual(deriveUserId(SECRET, 'a","b', ''), deriveUserId(SECRET, 'a', 'b","'));
  });

  it('keeps a lone surrogate apart from the replacement character', () => {
    assert.notEqual(deriveUserId(SECRET, MOODLE, '\uD800'), deriveUserId(SECRET, MOODLE, '\uFFFD'));
  });

  it('changes with the secret', () => {
    assert.notEqual(deriveUserId(SECRET, MOODLE, '5'), deriveUserId(`${SECRET}!`, MOODLE, '5'));
  });

  it('refuses an empty secret', () => {
    assert.throws(() => deriveUserId('', MOODLE, '5'), RangeError);
  });

  it('gives distinct ids to distinct (issuer, sub) pairs', () => {
    fc.assert(
      fc.property(unicode, unicode, unicode, unicode, (issuerA, subA, issuerB, subB) => {
        fc.pre(issuerA !== issuerB || subA !== subB);
        assert.notEqual(deriveUserId(SECRET, issuerA, subA), deriveUserId(SECRET, issuerB, subB));
      }),
    );
  });
});

describe('deriveExamTag', () => {
  it('is ASCII, without spaces, 1 to 100 characters, never a reserved word', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), unicode, unicode, unicode, (secret, issuer, deployment, link) => {
        const tag = deriveExamTag(secret, issuer, deployment, link);
        assert.match(tag, /^ex-[a-z2-7]{26}$/);
        assert.ok(tag.length >= 1 && tag.length <= 100);
        assert.ok(!RESERVED.includes(tag));
        assert.match(tag, /^(?!goodbye$|support$|update$|setup$|invalid$).*/);
      }),
    );
  });

  it('is pinned to its derivation', () => {
    assert.equal(deriveExamTag('k', 'i', 'd', 'l'), 'ex-gxng2xxuzezswq3bniz3kwigh6');
  });

  it('is the same for every launch of one exam', () => {
    assert.equal(deriveExamTag(SECRET, CANVAS, '42:abc', 'link-1'), deriveExamTag(SECRET, CANVAS, '42:abc', 'link-1'));
  });

  it('differs across issuers, deployments and resource links', () => {
    const base = deriveExamTag(SECRET, MOODLE, '1', '7');
    assert.notEqual(base, deriveExamTag(SECRET, CANVAS, '1', '7'));
    assert.notEqual(base, deriveExamTag(SECRET, MOODLE, '2', '7'));
    assert.notEqual(base, deriveExamTag(SECRET, MOODLE, '1', '8'));
    assert.notEqual(base, deriveExamTag(`${SECRET}!`, MOODLE, '1', '7'));
  });

  it('does not confuse shifted boundaries between its parts', () => {
    assert.notEqual(deriveExamTag(SECRET, 'a', 'bc', 'd'), deriveExamTag(SECRET, 'ab', 'c', 'd'));
    assert.notEqual(deriveExamTag(SECRET, 'a', 'b', 'cd'), deriveExamTag(SECRET, 'a', 'bc', 'd'));
  });
});

describe('deriveSectionId', () => {
  it('is ASCII without spaces and stable', () => {
    fc.assert(
      fc.property(unicode, unicode, unicode, (issuer, deployment, context) => {
        const id = deriveSectionId(SECRET, issuer, deployment, context);
        assert.match(id, /^sec-[a-z2-7]{26}$/);
        assert.equal(id, deriveSectionId(SECRET, issuer, deployment, context));
      }),
    );
  });

  it('differs across issuers, deployments, contexts and secrets', () => {
    const base = deriveSectionId(SECRET, MOODLE, '1', '4');
    assert.notEqual(base, deriveSectionId(SECRET, CANVAS, '1', '4'));
    assert.notEqual(base, deriveSectionId(SECRET, MOODLE, '2', '4'));
    assert.notEqual(base, deriveSectionId(SECRET, MOODLE, '1', '5'));
    assert.notEqual(base, deriveSectionId(`${SECRET}!`, MOODLE, '1', '4'));
  });

  it('is derived apart from the exam tag of the same strings', () => {
    assert.notEqual(deriveSectionId(SECRET, MOODLE, '1', '4').slice(4), deriveExamTag(SECRET, MOODLE, '1', '4').slice(3));
  });
});

describe('ids derived with a keyring', () => {
  /** A keyring whose bindings change as a rotation or a platform move changes them. */
  function keyring(secrets: Record<string, string>, namespaces: Record<string, string> = {}): PseudonymKeyring {
    return {
      secretFor: (issuer) => secrets[issuer] ?? 'newest-key',
      namespaceOf: (issuer) => namespaces[issuer] ?? issuer,
      reload: async () => {},
      confirm: async () => {},
      newest: 'newest-key',
      all: ['newest-key'],
    };
  }

  it('follow the bindings as they change: a rotation, then a platform move', () => {
    const secrets: Record<string, string> = { [MOODLE]: 'key-1' };
    const namespaces: Record<string, string> = {};
    const ring = keyring(secrets, namespaces);
    const derivedWith = (secret: string, issuer: string) => [deriveUserId(secret, issuer, '5'), deriveExamTag(secret, issuer, '1', 'link'), deriveSectionId(secret, issuer, '1', 'course')];
    const before = [deriveUserId(ring, MOODLE, '5'), deriveExamTag(ring, MOODLE, '1', 'link'), deriveSectionId(ring, MOODLE, '1', 'course')];
    assert.deepEqual(before, derivedWith('key-1', MOODLE));
    assert.deepEqual([deriveUserId(ring, MOODLE, '5'), deriveExamTag(ring, MOODLE, '1', 'link'), deriveSectionId(ring, MOODLE, '1', 'course')], before);

    // A rotation binds the issuer to another key version.
    secrets[MOODLE] = 'key-2';
    assert.deepEqual([deriveUserId(ring, MOODLE, '5'), deriveExamTag(ring, MOODLE, '1', 'link'), deriveSectionId(ring, MOODLE, '1', 'course')], derivedWith('key-2', MOODLE));
    // A platform moved to a new issuer derives its ids as the old one's.
    namespaces[CANVAS] = MOODLE;
    secrets[CANVAS] = 'key-2';
    assert.deepEqual([deriveUserId(ring, CANVAS, '5'), deriveExamTag(ring, CANVAS, '1', 'link'), deriveSectionId(ring, CANVAS, '1', 'course')], derivedWith('key-2', MOODLE));
  });
});
