// Imported for its effect, by the test helpers and (with --import) by the tool and CLI processes tests start, which
// may run the compiled build without tsx: hence plain JavaScript.
// ltijs makes a fresh 4096-bit RSA key pair for every platform it registers, and a test registers platforms
// by the dozen (every app start registers the demo LMS): each pair costs a second or more of CPU. Here the
// pairs come from a few made once and kept under node_modules/.cache, handed out in turn (any 40 in a row differ
// from one another), so tests still sign and verify with real 4096-bit keys. Nothing outside tests imports this.
import crypto from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** @typedef {{ publicKey: string, privateKey: string }} PemPair */

const POOL = join('node_modules', '.cache', 'proctor-lti-tests', 'rsa-4096-pairs.json');
/**
 * More than one app registers: a file registers up to about 30 (three per test of the platform moves), and the
 * files sharing a process each have an app and a database of their own. The pool fills once per cache.
 */
const POOL_SIZE = 40;
const generate = crypto.generateKeyPairSync.bind(crypto);
let handedOut = 0;

/** @returns {PemPair[]} */
function readPool() {
  try {
    return JSON.parse(readFileSync(POOL, 'utf8'));
  } catch {
    return [];
  }
}

/** ltijs's exact call: RSA, 4096 bits, the public key as SPKI PEM and the private key as PKCS#1 PEM. */
function isLtijsPlatformKeyRequest(type, options) {
  if (type !== 'rsa' || typeof options !== 'object' || options === null) return false;
  const { modulusLength, publicKeyEncoding, privateKeyEncoding } = options;
  const encoding = (value, kind) => typeof value === 'object' && value !== null && value.type === kind && value.format === 'pem';
  return modulusLength === 4096 && encoding(publicKeyEncoding, 'spki') && encoding(privateKeyEncoding, 'pkcs1') && !('cipher' in privateKeyEncoding);
}

/** @returns {PemPair} */
function sharedPair(options) {
  const pool = readPool();
  const index = handedOut % POOL_SIZE;
  handedOut += 1;
  if (index < pool.length) return pool[index];
  const pair = generate('rsa', options);
  if (index === pool.length && pool.length < POOL_SIZE) {
    mkdirSync(join(POOL, '..'), { recursive: true });
    const partial = `${POOL}.${process.pid}`;
    writeFileSync(partial, JSON.stringify([...pool, pair]));
    renameSync(partial, POOL);
  }
  return pair;
}

crypto.generateKeyPairSync = (type, options, ...rest) =>
  isLtijsPlatformKeyRequest(type, options) && rest.length === 0 ? sharedPair(options) : generate(type, options, ...rest);
