import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { secureRandomBytes } from '../../../src/lti/secure-random.js';

describe('secure random bytes from a pool', () => {
  it('hands out the size asked for, never the same bytes twice, across many refills of the pool', () => {
    const seen = new Set<string>();
    // 24 and 25 bytes (a nonce, a state) do not divide 4 KiB: draws straddle the end of the pool.
    for (let i = 0; i < 2000; i++) {
      for (const size of [24, 25]) {
        const bytes = secureRandomBytes(size);
        assert.equal(bytes.length, size);
        const hex = bytes.toString('hex');
        assert.ok(!seen.has(hex), 'a value was handed out twice');
        seen.add(hex);
      }
    }
  });

  it('returns a copy: changing it changes nothing drawn later', () => {
    const first = secureRandomBytes(32);
    first.fill(0);
    assert.notDeepEqual(secureRandomBytes(32), Buffer.alloc(32));
  });

  it('looks uniform: every byte value turns up, none far more often than the others', () => {
    const counts = new Array<number>(256).fill(0);
    for (let i = 0; i < 256; i++) for (const byte of secureRandomBytes(256)) counts[byte]! += 1;
    // 65,536 bytes: 256 expected per value; a real generator stays well within 150..370.
    assert.ok(Math.min(...counts) > 150 && Math.max(...counts) < 370, `counts from ${Math.min(...counts)} to ${Math.max(...counts)}`);
  });

  for (const size of [0, -1, 1.5, 4097, Number.NaN]) {
    it(`refuses a size of ${size}`, () => {
      assert.throws(() => secureRandomBytes(size), RangeError);
    });
  }
});
