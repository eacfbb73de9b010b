import { verifyEncryptionKeys as verifyWithCheckValue } from '../db/app-secrets.js';
import type { Database } from '../db/types.js';
import { opensLtijsDocuments } from './store/ltijs-store.js';

/**
 * Whether ENCRYPTION_KEY opens this database's data (db/app-secrets.ts): by its check value, or, on a database
 * from before the check, by the tool's LTI private keys. Throws EncryptionKeyError naming the problem.
 */
export function verifyEncryptionKeys(db: Database, keys: readonly string[]): Promise<void> {
  return verifyWithCheckValue(db, keys, () => opensLtijsDocuments(db, keys));
}
