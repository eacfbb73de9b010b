import { InvalidArgumentError, type Command } from 'commander';
import type { AppSecretName } from '../db/app-secrets.js';
import { recordChange } from './audit.js';
import type { Context, WithDatabase } from './context.js';
import { out } from './io.js';
import { isOneOf } from '../values.js';

const ROTATABLE: readonly AppSecretName[] = ['hosted-links', 'pseudonyms'];

function secretName(value: string): AppSecretName {
  if (!isOneOf(ROTATABLE, value)) throw new InvalidArgumentError(`one of: ${ROTATABLE.join(', ')}`);
  return value;
}

async function appSecretsOf({ db, config }: Context) {
  const [{ encryptionKeysOf }, { createAppSecrets }, { verifyEncryptionKeys }, { createSecretBox }] = await Promise.all([
    import('../dev-encryption-key.js'),
    import('../db/app-secrets.js'),
    import('../lti/encryption-check.js'),
    import('../secrets/secret-box.js'),
  ]);
  const keys = encryptionKeysOf(config);
  await verifyEncryptionKeys(db, keys);
  return createAppSecrets(db, createSecretBox(keys));
}

/** `secrets list|rotate|retire`: the installation secrets (hosted-link key, pseudonym key), each rotated on its own. */
export function addSecretCommands(program: Command, withDatabase: WithDatabase): void {
  const secrets = program.command('secrets').description('installation secrets kept in the database: the hosted-link key and the pseudonym key');
  secrets
    .command('list')
    .description('each installation secret and its kept versions (never the values)')
    .action(async () => {
      await withDatabase(async (context) => {
        const appSecrets = await appSecretsOf(context);
        for (const name of ROTATABLE) {
          const versions = await appSecrets.versions(name);
          out(`${name}: version ${versions.map((entry) => entry.version).join(', ')} (newest first)`);
        }
      });
    });
  secrets
    .command('rotate')
    .description(
      'add a new version of a secret. hosted-links: new links are signed with it, links already handed out stay valid until they expire or `secrets retire hosted-links`. ' +
        'pseudonyms: issuers already known keep the ids derived with the version they are bound to; only issuers seen afterwards use the new one',
    )
    .argument('<name>', ROTATABLE.join(' | '), secretName)
    .action(async (name: AppSecretName) => {
      await withDatabase(async (context) => {
        const appSecrets = await appSecretsOf(context);
        if (name === 'pseudonyms') {
          const { rotatePseudonymKey } = await import('../lti/pseudonym-keys.js');
          const { version, bound } = await rotatePseudonymKey(appSecrets);
          await recordChange(context.db, { action: 'secrets.rotate', target: name, changes: [{ field: 'version', new: String(version) }, { field: 'issuersBound', new: String(bound) }] });
          out(`The pseudonym key is now version ${version}; ${bound} issuer(s) newly bound to the key their ids were derived with. Existing ids do not change.`);
          return;
        }
        const version = await appSecrets.rotate(name);
        await recordChange(context.db, { action: 'secrets.rotate', target: name, changes: [{ field: 'version', new: String(version) }] });
        out(`The hosted-link key is now version ${version}: new links are signed with it within seconds. Links signed before stay valid until they expire; \`proctor-lti secrets retire hosted-links\` ends them earlier.`);
      });
    });
  secrets
    .command('retire')
    .description('delete every version of the hosted-link key but the newest: links signed with them stop working (the pseudonym key is never retired)')
    .argument('<name>', 'hosted-links', (value: string) => {
      if (value !== 'hosted-links') throw new InvalidArgumentError('only hosted-links: the older pseudonym keys still derive the ids of the issuers bound to them');
      return value;
    })
    .action(async (name: AppSecretName) => {
      await withDatabase(async (context) => {
        const retired = await (await appSecretsOf(context)).retire(name);
        await recordChange(context.db, { action: 'secrets.retire', target: name, changes: [{ field: 'versionsRetired', new: String(retired) }] });
        out(`${retired} older version(s) of the hosted-link key deleted: links signed with them no longer open.`);
      });
    });
}
