import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Secrets the tool keeps in its database (proctoring API keys and secrets), sealed with AES-256-GCM under a
 * key derived from ENCRYPTION_KEY with HKDF-SHA256. ENCRYPTION_KEY may list several keys, newest first: new
 * values are sealed with the newest, and every listed key still opens what it sealed (key rotation).
 *
 * Sealed text: `v1.<key id>.<iv>.<tag>.<ciphertext>`, each part base64url. The key id (8 bytes from HKDF with
 * its own label, so it reveals nothing of the encryption key) says which key sealed the value.
 */
export interface SecretBox {
  seal(plaintext: string): string;
  /** Throws SecretBoxError when no listed key sealed it, or it was altered. */
  open(sealed: string): string;
  /** Whether the newest key sealed it (false: `seal(open(value))` moves it to the newest key). */
  isCurrent(sealed: string): boolean;
  /** The ids of the listed keys, newest first: they name a key in messages without revealing it. */
  readonly keyIds: readonly string[];
  /** The id of the key that sealed a value; undefined when it is not a sealed value. */
  keyIdOf(sealed: string): string | undefined;
}

export class SecretBoxError extends Error {
  override readonly name = 'SecretBoxError';
}

const VERSION = 'v1';
const SALT = Buffer.from('proctor-lti secret box', 'utf8');

interface DerivedKey {
  id: string;
  key: Buffer;
}

function derive(secret: string): DerivedKey {
  const ikm = Buffer.from(secret, 'utf8');
  const key = Buffer.from(hkdfSync('sha256', ikm, SALT, 'aes-256-gcm key', 32));
  const id = Buffer.from(hkdfSync('sha256', ikm, SALT, 'key id', 8)).toString('base64url');
  return { id, key };
}

/** `keys`: the secrets of ENCRYPTION_KEY, newest first (at least one). */
export function createSecretBox(keys: readonly string[]): SecretBox {
  const derived = keys.map(derive);
  const newest = derived[0];
  if (newest === undefined) throw new SecretBoxError('no encryption key');
  const byId = new Map(derived.map((entry) => [entry.id, entry.key]));

  function parts(sealed: string): [id: string, iv: Buffer, tag: Buffer, data: Buffer] {
    const [version, id, iv, tag, data, ...rest] = sealed.split('.');
    if (version !== VERSION || !id || !iv || !tag || data === undefined || rest.length > 0) {
      throw new SecretBoxError('not a sealed secret of this tool');
    }
    return [id, Buffer.from(iv, 'base64url'), Buffer.from(tag, 'base64url'), Buffer.from(data, 'base64url')];
  }

  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', newest.key, iv);
      const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, newest.id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
    },
    open(sealed) {
      const [id, iv, tag, data] = parts(sealed);
      const key = byId.get(id);
      if (!key) {
        throw new SecretBoxError('sealed with a key that ENCRYPTION_KEY no longer lists: add the previous key back (after the new one) and re-encrypt');
      }
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv);
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretBoxError('a sealed secret was altered or is damaged');
      }
    },
    isCurrent(sealed) {
      return parts(sealed)[0] === newest.id;
    },
    keyIds: derived.map((entry) => entry.id),
    keyIdOf(sealed) {
      try {
        return parts(sealed)[0];
      } catch {
        return undefined;
      }
    },
  };
}

/** The last four characters, for "…abcd" hints; shorter secrets show nothing of themselves. */
export function lastFour(secret: string): string {
  return secret.length >= 12 ? secret.slice(-4) : '';
}
