import { createHash, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * The console password: ADMIN_PASSWORD holds either the password itself or a scrypt hash of it in the
 * PHC string format `$scrypt$n=16384,r=8,p=1$<salt>$<hash>` (base64url), so the plain password need not
 * sit in the environment. Make a hash with `proctor-lti admin hash-password` or the one-line node command
 * in docs/administration.md.
 */
export const PASSWORD_HASH_PATTERN = /^\$scrypt\$n=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9_-]{16,})\$([A-Za-z0-9_-]{43,})$/;
/** The shortest plain password ADMIN_PASSWORD (or `admin hash-password`) accepts. */
export const MIN_PASSWORD_LENGTH = 12;
const DEFAULT_PARAMS = { N: 16_384, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

export const isPasswordHash = (value: string): boolean => PASSWORD_HASH_PATTERN.test(value);

function scryptAsync(password: string, salt: Buffer, length: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, length, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function hashPassword(password: string, params: { N: number; r: number; p: number } = DEFAULT_PARAMS): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, KEY_LENGTH, { ...params, maxmem: 256 * params.N * params.r });
  return `$scrypt$n=${params.N},r=${params.r},p=${params.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** True when `candidate` is the configured password (plain or hashed); constant-time comparison. */
export async function verifyPassword(candidate: string, configured: string): Promise<boolean> {
  const match = PASSWORD_HASH_PATTERN.exec(configured);
  if (!match) {
    const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
    return timingSafeEqual(digest(candidate), digest(configured));
  }
  const [, n = '', r = '', p = '', salt = '', hash = ''] = match;
  const expected = Buffer.from(hash, 'base64url');
  const N = Number(n);
  const R = Number(r);
  const actual = await scryptAsync(candidate, Buffer.from(salt, 'base64url'), expected.length, { N, r: R, p: Number(p), maxmem: 256 * N * R });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Refuses hashes whose cost would make every sign-in a denial of service (n above 2^20, r above 32). */
export function passwordHashCostOk(value: string): boolean {
  const match = PASSWORD_HASH_PATTERN.exec(value);
  if (!match) return false;
  const n = Number(match[1]);
  return n >= 1024 && n <= 1_048_576 && (n & (n - 1)) === 0 && Number(match[2]) <= 32 && Number(match[3]) <= 16;
}

/**
 * A self-contained command that prints a hash for ADMIN_PASSWORD where the `proctor-lti` command is not at
 * hand (asks for the password on standard input, so it stays out of the shell history). Shown on the
 * console's "not enabled" page next to `proctor-lti admin hash-password`, and in docs/administration.md.
 */
export const HASH_PASSWORD_COMMAND =
  `node -e 'const c=require("node:crypto"),s=c.randomBytes(16);process.stdout.write("Password: ");` +
  `process.stdin.once("data",d=>{const k=c.scryptSync(d.toString().replace(/\\r?\\n$/,""),s,32,{N:16384,r:8,p:1});` +
  `console.log("$scrypt$n=16384,r=8,p=1$"+s.toString("base64url")+"$"+k.toString("base64url"));process.exit()})'`;
