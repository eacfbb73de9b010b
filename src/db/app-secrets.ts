import { randomBytes } from 'node:crypto';
import { createSecretBox, SecretBoxError, type SecretBox } from '../secrets/secret-box.js';
import { readCache } from './read-cache.js';
import type { Database, Queryable } from './types.js';

/**
 * Per-installation secrets kept in the database (table `app_secrets`, migration 0030), sealed with
 * ENCRYPTION_KEY (secret-box.ts) and versioned: each can be rotated on its own. Every replica reads the
 * same values, so that they derive the same pseudonyms and accept each other's hosted links.
 *
 * - `pseudonyms`: the key the ids sent to the proctoring service are derived with (lti/identifiers.ts). An
 *   issuer's ids stay derived with the version it is bound to (lti/pseudonym-keys.ts).
 * - `hosted-links`: signs the hosted roster links; the newest signs, every kept version verifies.
 */
export type AppSecretName = 'pseudonyms' | 'hosted-links';
export const APP_SECRET_NAMES: readonly AppSecretName[] = ['pseudonyms', 'hosted-links'];

/** The row that proves ENCRYPTION_KEY opens this database's data: a known text sealed with it. */
const CHECK_NAME = 'encryption-check';
const CHECK_TEXT = 'proctor-lti encryption check';

export interface AppSecretVersion {
  version: number;
  value: string;
}

/** ENCRYPTION_KEY does not open what this database holds: the replica must not start. */
export class EncryptionKeyError extends Error {
  override readonly name = 'EncryptionKeyError';
}

export interface AppSecrets {
  /** Every kept version of `name`, newest first (version 1 is created on first use); `fresh`: not from the cache. */
  versions(name: AppSecretName, fresh?: boolean): Promise<AppSecretVersion[]>;
  /** Adds a new newest version of `name` and returns its number; `before` runs first in the same transaction. */
  rotate(name: AppSecretName, before?: (tx: Queryable) => Promise<void>): Promise<number>;
  /** Deletes every version of `name` but the newest; returns how many went. */
  retire(name: AppSecretName): Promise<number>;
}

const randomSecret = () => randomBytes(32).toString('base64url');

export function createAppSecrets(db: Database, box: SecretBox): AppSecrets {
  const cache = readCache<AppSecretVersion[]>(db, 'app-secrets');

  async function read(name: AppSecretName): Promise<AppSecretVersion[]> {
    const { rows } = await db.query<{ version: number; sealed: string }>('SELECT version, sealed FROM app_secrets WHERE name = $1 ORDER BY version DESC', [name]);
    return rows.map((row) => ({ version: row.version, value: openSecret(box, row.sealed, name) }));
  }

  const secrets: AppSecrets = {
    versions(name, fresh) {
      if (fresh) cache.clear();
      return cache.get(name, async () => {
        const found = await read(name);
        if (found.length > 0) return found;
        await sealUnsealedSecrets(db, box);
        const sealed = await read(name);
        if (sealed.length > 0) return sealed;
        await db.query('INSERT INTO app_secrets (name, version, sealed) VALUES ($1, 1, $2) ON CONFLICT DO NOTHING', [name, box.seal(randomSecret())]);
        return read(name);
      });
    },
    async rotate(name, before) {
      // The version in use exists first: a rotation never creates the first version, which would replace it.
      await secrets.versions(name);
      const version = await db.transaction(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`app_secrets ${name}`]);
        await before?.(tx);
        const { rows } = await tx.query<{ newest: number | null }>('SELECT max(version) AS newest FROM app_secrets WHERE name = $1', [name]);
        const next = (rows[0]?.newest ?? 0) + 1;
        await tx.query('INSERT INTO app_secrets (name, version, sealed) VALUES ($1, $2, $3)', [name, next, box.seal(randomSecret())]);
        return next;
      });
      cache.clear();
      return version;
    },
    async retire(name) {
      const { rowCount } = await db.query('DELETE FROM app_secrets WHERE name = $1 AND version < (SELECT max(version) FROM app_secrets WHERE name = $1)', [name]);
      cache.clear();
      return rowCount;
    },
  };
  return secrets;
}

function openSecret(box: SecretBox, sealed: string, name: string): string {
  try {
    return box.open(sealed);
  } catch (error) {
    throw new EncryptionKeyError(`the installation secret "${name}" cannot be opened: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Makes sure ENCRYPTION_KEY opens this database's data before the tool uses it: the check value sealed with the
 * key the data was encrypted with must open. Without one (a new database, or one from before the check), what
 * is already encrypted must open (`opensEarlierData`: undefined when nothing is); then the check value is
 * written. Throws EncryptionKeyError naming the problem. Afterwards seals the plain-text secrets of an older
 * version (`app_secrets_unsealed`).
 */
export async function verifyEncryptionKeys(db: Database, keys: readonly string[], opensEarlierData?: () => Promise<boolean | undefined>): Promise<void> {
  const box = createSecretBox(keys);
  const stored = await checkValue(db);
  if (stored === undefined) {
    if ((await opensEarlierData?.()) === false) {
      throw new EncryptionKeyError(`${mismatch()} (its LTI keys do not decrypt with any key ENCRYPTION_KEY lists)`);
    }
    await db.query('INSERT INTO app_secrets (name, version, sealed) VALUES ($1, 1, $2) ON CONFLICT DO NOTHING', [CHECK_NAME, box.seal(CHECK_TEXT)]);
  }
  const check = stored ?? (await checkValue(db));
  if (check === undefined) throw new EncryptionKeyError('the encryption check value could not be written');
  let opened: string | undefined;
  try {
    opened = box.open(check);
  } catch (error) {
    if (!(error instanceof SecretBoxError)) throw error;
  }
  if (opened !== CHECK_TEXT) {
    throw new EncryptionKeyError(`${mismatch()} (it was encrypted with the key whose id is ${box.keyIdOf(check) ?? 'unknown'}; ENCRYPTION_KEY lists ${box.keyIds.join(', ')})`);
  }
  await sealUnsealedSecrets(db, box);
}

function mismatch(): string {
  return (
    'ENCRYPTION_KEY does not open the data of this database. Start with the key it was encrypted with (after a ' +
    'restore: the key kept with that backup). During a key rotation list the new key first and the previous one after it, ' +
    'until `proctor-lti encryption reencrypt` has run'
  );
}

async function checkValue(db: Queryable): Promise<string | undefined> {
  const { rows } = await db.query<{ sealed: string }>('SELECT sealed FROM app_secrets WHERE name = $1 AND version = 1', [CHECK_NAME]);
  return rows[0]?.sealed;
}

/** Moves the plain-text secrets of a version before 0030 into `app_secrets`, sealed, keeping their values. */
async function sealUnsealedSecrets(db: Database, box: SecretBox): Promise<void> {
  const { rows } = await db.query<{ present: boolean }>("SELECT to_regclass('app_secrets_unsealed') IS NOT NULL AS present");
  if (!rows[0]?.present) return;
  await db.transaction(async (tx) => {
    const unsealed = await tx.query<{ name: string; value: string }>('SELECT name, value FROM app_secrets_unsealed ORDER BY name FOR UPDATE');
    for (const row of unsealed.rows) {
      await tx.query('INSERT INTO app_secrets (name, version, sealed) VALUES ($1, 1, $2) ON CONFLICT DO NOTHING', [row.name, box.seal(row.value)]);
    }
    await tx.query('DELETE FROM app_secrets_unsealed');
  });
}

/** Seals every installation secret (and the check value) with the newest key; returns how many were re-sealed. */
export async function resealAppSecrets(tx: Queryable, box: SecretBox): Promise<number> {
  const { rows } = await tx.query<{ name: string; version: number; sealed: string }>('SELECT name, version, sealed FROM app_secrets ORDER BY name, version FOR UPDATE');
  let resealed = 0;
  for (const row of rows) {
    if (box.isCurrent(row.sealed)) continue;
    await tx.query('UPDATE app_secrets SET sealed = $3 WHERE name = $1 AND version = $2', [row.name, row.version, box.seal(openSecret(box, row.sealed, row.name))]);
    resealed += 1;
  }
  return resealed;
}
