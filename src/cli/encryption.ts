import type { Command } from 'commander';
import { recordChange } from './audit.js';
import type { WithDatabase } from './context.js';
import { out } from './io.js';

/** `encryption reencrypt` (the last step of an ENCRYPTION_KEY rotation) and `encryption check`. */
export function addEncryptionCommands(program: Command, withDatabase: WithDatabase): void {
  const encryption = program.command('encryption').description('encryption at rest (ENCRYPTION_KEY)');
  encryption
    .command('reencrypt')
    .description("re-encrypt everything encrypted at rest with ENCRYPTION_KEY's newest (first) key, after which the older keys can be removed")
    .action(async () => {
      await withDatabase(async ({ db, config }) => {
        const [{ reencryptWithNewestKey }, { encryptionKeysOf }, { verifyEncryptionKeys }] = await Promise.all([
          import('./key-rotation.js'),
          import('../dev-encryption-key.js'),
          import('../lti/encryption-check.js'),
        ]);
        const keys = encryptionKeysOf(config);
        await verifyEncryptionKeys(db, keys);
        const result = await reencryptWithNewestKey(db, keys);
        await recordChange(db, {
          action: 'encryption.reencrypt',
          changes: [
            { field: 'ltijsDocuments', new: String(result.ltijsDocuments) },
            { field: 'proctoringAccounts', new: String(result.proctoringAccounts) },
            { field: 'appSecrets', new: String(result.appSecrets) },
          ],
        });
        out(
          `Re-encrypted with the newest key: ${result.ltijsDocuments} LTI key and token document(s), ${result.proctoringAccounts} proctoring account(s), ${result.appSecrets} installation secret(s).`,
        );
        out(keys.length > 1 ? 'The older keys may now be removed from ENCRYPTION_KEY (restart the tool afterwards).' : 'ENCRYPTION_KEY lists one key: nothing else to do.');
      });
    });
  encryption
    .command('check')
    .description('check that ENCRYPTION_KEY opens the data of this database (after a restore, before a start); exits 1 when it does not')
    .action(async () => {
      await withDatabase(async ({ db, config }) => {
        const [{ encryptionKeysOf }, { verifyEncryptionKeys }] = await Promise.all([import('../dev-encryption-key.js'), import('../lti/encryption-check.js')]);
        await verifyEncryptionKeys(db, encryptionKeysOf(config));
        out('ENCRYPTION_KEY opens the data of this database.');
      });
    });
}
