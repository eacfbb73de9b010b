import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Outside production ENCRYPTION_KEY may be unset: a random key is then kept in DATA_DIR, so a restart
 * can still read what was encrypted with it. Production refuses to start without ENCRYPTION_KEY.
 */
export function developmentEncryptionKey(dataDir: string): string {
  const path = join(dataDir, 'dev-encryption-key');
  try {
    const existing = readFileSync(path, 'utf8').trim();
    if (existing.length >= 32) return existing;
  } catch {
    // not created yet
  }
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32).toString('hex');
  writeFileSync(path, `${key}\n`, { mode: 0o600 });
  return key;
}

/** ENCRYPTION_KEY's keys, newest first; outside production without it, the development key of DATA_DIR. */
export function encryptionKeysOf(config: { encryptionKeys: readonly string[]; database: { dataDir: string } }): string[] {
  return config.encryptionKeys.length > 0 ? [...config.encryptionKeys] : [developmentEncryptionKey(config.database.dataDir)];
}
