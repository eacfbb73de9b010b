import { randomBytes } from 'node:crypto';
import type { Queryable } from './types.js';

/**
 * A random per-installation secret, created on first use and kept in the database, so that every
 * replica derives the same values from it (e.g. the pseudonymous user ids sent to the proctoring service).
 */
export async function installationSecret(db: Queryable, name: string): Promise<string> {
  await db.query('INSERT INTO app_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
    name,
    randomBytes(32).toString('base64url'),
  ]);
  const result = await db.query<{ value: string }>('SELECT value FROM app_secrets WHERE name = $1', [name]);
  const value = result.rows[0]?.value;
  if (!value) throw new Error(`installation secret ${name} could not be created`);
  return value;
}
