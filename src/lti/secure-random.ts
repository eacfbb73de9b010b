import { randomFillSync } from 'node:crypto';

/** Bytes drawn from the system's secure generator per refill; node's own randomUUID keeps such a pool too. */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let offset = POOL_BYTES;

/**
 * Cryptographically secure random bytes, served from a pool refilled in one call to the system's generator:
 * a login draws two values (its state and its nonce), and one call per value costs a system call each. Every
 * byte is handed out once and wiped from the pool as it goes.
 */
export function secureRandomBytes(size: number): Buffer {
  if (!Number.isInteger(size) || size < 1 || size > POOL_BYTES) throw new RangeError(`secureRandomBytes: size must be 1..${POOL_BYTES}`);
  if (offset + size > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafe(POOL_BYTES));
    offset = 0;
  }
  const bytes = Buffer.from(pool.subarray(offset, offset + size));
  pool.fill(0, offset, offset + size);
  offset += size;
  return bytes;
}
