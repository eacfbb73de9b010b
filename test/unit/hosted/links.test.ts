// The hosted-link tokens: what they name, how long they hold, which key versions verify them, and every token
// that must not verify (tampered, expired, of another kind or algorithm, of a key no longer kept).
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { createHostedLinks, HOSTED_LINK_MARGIN_SECONDS, type HostedLinkKey } from '../../../src/hosted/links.js';

const BASE = 'https://tool.example.org';
const SECRET = 'hosted-link-secret-0123456789abcdefghijklmnop';

const tokenOf = (url: string) => new URL(url).searchParams.get('t')!;
const keyOf = (value: string) => new TextEncoder().encode(value);

/** Counts calls of one method of crypto.subtle for the length of a test. */
function countCalls(method: 'importKey' | 'sign'): { readonly count: number } {
  const subtle = globalThis.crypto.subtle;
  const original = subtle[method];
  const counter = { count: 0 };
  const counting = (...args: unknown[]) => {
    counter.count += 1;
    return Reflect.apply(original, subtle, args);
  };
  Object.defineProperty(subtle, method, { value: counting, configurable: true, writable: true });
  restore.push(() => Object.defineProperty(subtle, method, { value: original, configurable: true, writable: true }));
  return counter;
}
const restore: Array<() => void> = [];
afterEach(() => {
  while (restore.length > 0) restore.pop()!();
});

describe('hosted links: URLs', () => {
  const links = createHostedLinks({ baseUrl: BASE, secret: SECRET });

  it('a roster URL carries a token naming the section, its kind and its expiry', async () => {
    const before = Math.floor(Date.now() / 1000);
    const url = await links.rosterUrl('section-1', 60);
    const after = Math.floor(Date.now() / 1000);
    assert.match(url, /^https:\/\/tool\.example\.org\/hosted\/roster\?t=[\w-]+\.[\w-]+\.[\w-]+$/);
    const token = tokenOf(url);
    assert.deepEqual(decodeProtectedHeader(token), { alg: 'HS256' }, 'version 1 names no kid');
    const claims = decodeJwt(token);
    assert.deepEqual(Object.keys(claims).sort(), ['exp', 'k', 's']);
    assert.equal(claims.s, 'section-1');
    assert.equal(claims.k, 'r');
    assert.ok(claims.exp! >= before + 60 + HOSTED_LINK_MARGIN_SECONDS && claims.exp! <= after + 60 + HOSTED_LINK_MARGIN_SECONDS, `exp ${claims.exp}`);
    const verified = await links.verify(token, 'roster');
    assert.deepEqual(verified, { sectionId: 'section-1', expiresAt: new Date(claims.exp! * 1000) });
  });

  it('an exam roster URL carries a token of its own kind', async () => {
    const url = await links.examRosterUrl('section-1', 60);
    assert.match(url, /^https:\/\/tool\.example\.org\/hosted\/exam-roster\?t=/);
    const token = tokenOf(url);
    assert.equal(decodeJwt(token).k, 'x');
    assert.equal((await links.verify(token, 'exam-roster'))?.sectionId, 'section-1');
    assert.equal(await links.verify(token, 'roster'), undefined, 'an exam roster token opens no roster');
    assert.equal(await links.verify(tokenOf(await links.rosterUrl('section-1', 60)), 'exam-roster'), undefined, 'and the other way round');
  });

  const lifetimes: Array<{ ttl: number; seconds: number }> = [
    { ttl: 0, seconds: 1 },
    { ttl: -30, seconds: 1 },
    { ttl: 0.2, seconds: 1 },
    { ttl: 10.1, seconds: 11 },
    { ttl: 3600, seconds: 3600 },
  ];
  for (const { ttl, seconds } of lifetimes) {
    it(`a link asked for ${ttl} s holds ${seconds} s plus the margin`, async () => {
      const before = Math.floor(Date.now() / 1000);
      const token = tokenOf(await links.rosterUrl(`section-ttl-${ttl}`, ttl));
      const after = Math.floor(Date.now() / 1000);
      const exp = decodeJwt(token).exp!;
      assert.ok(exp >= before + seconds + HOSTED_LINK_MARGIN_SECONDS && exp <= after + seconds + HOSTED_LINK_MARGIN_SECONDS, `exp ${exp - before} s from now`);
    });
  }

  it('logo and extension allow-list URLs name the platform key, encoded', () => {
    assert.equal(links.logoUrl('moodle/a b'), `${BASE}/hosted/logo/moodle%2Fa%20b`);
    assert.equal(links.extensionAllowlistUrl('moodle/a b'), `${BASE}/hosted/extension-allowlist/moodle%2Fa%20b`);
  });

  it('signs one token per section, kind and expiry second, however many launches ask at once', async () => {
    const signs = countCalls('sign');
    const urls = await Promise.all(Array.from({ length: 8 }, () => links.rosterUrl('section-burst', 120)));
    const distinct = new Set(urls);
    assert.ok(distinct.size <= 2, 'at most a second boundary between them');
    assert.equal(signs.count, distinct.size);
  });
});

describe('hosted links: tokens that do not verify', () => {
  const links = createHostedLinks({ baseUrl: BASE, secret: SECRET });
  const exp = () => Math.floor(Date.now() / 1000) + 600;

  const forged: Array<{ name: string; make: () => Promise<string> }> = [
    { name: 'not a token', make: async () => 'not-a-token' },
    { name: 'signed with another secret', make: () => new SignJWT({ s: 'section-1', k: 'r' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(exp()).sign(keyOf('another-secret-0123456789abcdefghijklmnop')) },
    { name: 'signed with HS512 and the right secret', make: () => new SignJWT({ s: 'section-1', k: 'r' }).setProtectedHeader({ alg: 'HS512' }).setExpirationTime(exp()).sign(keyOf(SECRET)) },
    { name: 'expired', make: () => new SignJWT({ s: 'section-1', k: 'r' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(Math.floor(Date.now() / 1000) - 5).sign(keyOf(SECRET)) },
    { name: 'without expiry', make: () => new SignJWT({ s: 'section-1', k: 'r' }).setProtectedHeader({ alg: 'HS256' }).sign(keyOf(SECRET)) },
    { name: 'without kind', make: () => new SignJWT({ s: 'section-1' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(exp()).sign(keyOf(SECRET)) },
    { name: 'naming a section that is not text', make: () => new SignJWT({ s: 42, k: 'r' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(exp()).sign(keyOf(SECRET)) },
    { name: 'naming a key version that does not exist', make: () => new SignJWT({ s: 'section-1', k: 'r' }).setProtectedHeader({ alg: 'HS256', kid: '2' }).setExpirationTime(exp()).sign(keyOf(SECRET)) },
    { name: 'naming a key version that is no number', make: () => new SignJWT({ s: 'section-1', k: 'r' }).setProtectedHeader({ alg: 'HS256', kid: 'one' }).setExpirationTime(exp()).sign(keyOf(SECRET)) },
    {
      name: 'with its payload changed',
      make: async () => {
        const [header, , signature] = tokenOf(await links.rosterUrl('section-1', 60)).split('.');
        const payload = Buffer.from(JSON.stringify({ s: 'section-2', k: 'r', exp: exp() })).toString('base64url');
        return `${header}.${payload}.${signature}`;
      },
    },
  ];
  for (const { name, make } of forged) {
    it(`refuses a token ${name}`, async () => {
      assert.equal(await links.verify(await make(), 'roster'), undefined);
    });
  }

  it('a token made by hand with the right secret and claims does verify (the cases above differ in one thing)', async () => {
    const token = await new SignJWT({ s: 'section-1', k: 'r' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(exp()).sign(keyOf(SECRET));
    assert.equal((await links.verify(token, 'roster'))?.sectionId, 'section-1');
  });
});

describe('hosted links: key versions', () => {
  const V1 = { version: 1, value: 'version-one-secret-0123456789abcdefghijklmn' };
  const V2 = { version: 2, value: 'version-two-secret-0123456789abcdefghijklmn' };
  const V3 = { version: 3, value: 'version-three-secret-0123456789abcdefghijkl' };

  function versioned(initial: HostedLinkKey[]) {
    const state = { current: initial, stored: initial, freshReads: 0 };
    const links = createHostedLinks({
      baseUrl: BASE,
      keys: (fresh) => {
        if (fresh) {
          state.freshReads += 1;
          state.current = state.stored;
        }
        return Promise.resolve(state.current);
      },
    });
    return { links, state };
  }

  it('the newest version signs and names itself in the kid; an older kept version still verifies', async () => {
    const { links } = versioned([V2, V1]);
    const token = tokenOf(await links.rosterUrl('section-1', 60));
    assert.deepEqual(decodeProtectedHeader(token), { alg: 'HS256', kid: '2' });
    assert.equal((await links.verify(token, 'roster'))?.sectionId, 'section-1');

    const old = tokenOf(await createHostedLinks({ baseUrl: BASE, secret: V1.value }).rosterUrl('section-1', 60));
    assert.equal((await links.verify(old, 'roster'))?.sectionId, 'section-1', 'a token without kid is of version 1');
  });

  it('a retired version no longer verifies', async () => {
    const old = tokenOf(await createHostedLinks({ baseUrl: BASE, secret: V1.value }).rosterUrl('section-1', 60));
    const { links } = versioned([V2]);
    assert.equal(await links.verify(old, 'roster'), undefined);
  });

  it('a token of a version newer than this process has read makes it read the keys again', async () => {
    const { links: signer } = versioned([V3, V2]);
    const token = tokenOf(await signer.rosterUrl('section-1', 60));
    const { links, state } = versioned([V2]);
    state.stored = [V3, V2];
    assert.equal((await links.verify(token, 'roster'))?.sectionId, 'section-1');
    assert.equal(state.freshReads, 1);
    const own = tokenOf(await links.rosterUrl('section-1', 60));
    assert.equal((await links.verify(own, 'roster'))?.sectionId, 'section-1');
    assert.equal(state.freshReads, 1, 'a token of a known version reads nothing again');
  });

  it('a process that has read no key yet reads the keys again for a token', async () => {
    const { links: signer } = versioned([V2]);
    const token = tokenOf(await signer.rosterUrl('section-1', 60));
    const { links, state } = versioned([]);
    state.stored = [V2];
    assert.equal((await links.verify(token, 'roster'))?.sectionId, 'section-1');
    assert.equal(state.freshReads, 1);
  });

  it('a token of an unknown version verifies against nothing when the keys are fixed', async () => {
    const { links: signer } = versioned([V2]);
    const token = tokenOf(await signer.rosterUrl('section-1', 60));
    const fixed = createHostedLinks({ baseUrl: BASE, secret: V2.value });
    assert.equal(await fixed.verify(token, 'roster'), undefined);
  });

  it('refuses to sign without any key', async () => {
    const { links } = versioned([]);
    await assert.rejects(links.rosterUrl('section-1', 60), /no hosted-link key/);
  });

  it('imports each key once, and forgets them all past sixteen', async () => {
    const secrets = Array.from({ length: 17 }, (_, i) => ({ version: i + 1, value: `key-${i + 1}-secret-0123456789abcdefghijklmnopqrst` }));
    const tokens = await Promise.all(secrets.map((key) => versioned([key]).links.rosterUrl('section-1', 60).then(tokenOf)));
    const { links } = versioned([...secrets].reverse());
    const imports = countCalls('importKey');
    for (const token of tokens.slice(0, 16)) assert.ok(await links.verify(token, 'roster'));
    assert.equal(imports.count, 16);
    assert.ok(await links.verify(tokens[0]!, 'roster'));
    assert.equal(imports.count, 16, 'a key imported before is not imported again');
    assert.ok(await links.verify(tokens[16]!, 'roster'));
    assert.equal(imports.count, 17);
    assert.ok(await links.verify(tokens[0]!, 'roster'));
    assert.equal(imports.count, 18, 'the seventeenth key made room by forgetting the others');
  });
});
