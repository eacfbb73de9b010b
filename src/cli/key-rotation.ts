import type { Database } from '../db/types.js';
import { reencryptLtijsDocuments } from '../lti/store/ltijs-store.js';
import { resealAccounts } from '../proctoring/accounts.js';
import { resealAppSecrets } from '../db/app-secrets.js';
import { createSecretBox } from '../secrets/secret-box.js';

export interface RotationResult {
  /** ltijs documents (the tool's and platforms' private keys, access tokens) re-encrypted. */
  ltijsDocuments: number;
  /** Proctoring accounts whose credentials were re-sealed. */
  proctoringAccounts: number;
  /** Installation secrets (and the encryption check value) re-sealed. */
  appSecrets: number;
}

/**
 * Re-encrypts everything encrypted at rest with the newest key of ENCRYPTION_KEY (`keys[0]`), reading it with
 * any listed key, in one transaction: afterwards the older keys can be dropped from ENCRYPTION_KEY.
 */
export async function reencryptWithNewestKey(db: Database, keys: readonly string[]): Promise<RotationResult> {
  const box = createSecretBox(keys);
  return db.transaction(async (tx) => ({
    ltijsDocuments: await reencryptLtijsDocuments(tx, keys),
    proctoringAccounts: await resealAccounts(tx, box),
    appSecrets: await resealAppSecrets(tx, box),
  }));
}
