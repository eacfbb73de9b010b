import type { Command } from 'commander';
import { REGIONS } from '../config.js';
import type { ProctoringAccount } from '../proctoring/accounts.js';
import { recordChange } from './audit.js';
import type { Context, WithAccountClients, WithDatabase } from './context.js';
import { err, fail, out, readInput } from './io.js';

interface AccountOptions {
  name?: string;
  region?: string;
  baseUrl?: string;
  apiKey?: string;
  consumerKey?: string;
  secret?: string;
}

/** `-` reads a credential from standard input, which keeps it out of the shell's history and process list. */
async function credential(value: string | undefined): Promise<string | undefined> {
  if (value !== '-') return value;
  return (await readInput('-')).toString('utf8').trim();
}

async function fieldsOf(options: AccountOptions): Promise<AccountOptions> {
  const fields: AccountOptions = {
    name: options.name,
    region: options.region,
    baseUrl: options.baseUrl,
    apiKey: await credential(options.apiKey),
    consumerKey: options.consumerKey,
    secret: await credential(options.secret),
  };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

const describe = (account: ProctoringAccount) =>
  `${account.id}  "${account.name}"  region ${account.region}  ${account.baseUrl}  ${account.credentialKind === 'api_key' ? 'API key' : `consumer key ${account.consumerKey ?? ''} + secret`} …${account.hint || '(hidden)'}`;

const platformLabel = (issuer: string, clientId: string) => `${issuer} (client id ${clientId})`;

/** `account list|add|update|remove|use|test`: proctoring accounts per platform. */
export function addAccountCommands(program: Command, withDatabase: WithDatabase, withAccountClients: WithAccountClients): void {
  const account = program
    .command('account')
    .description("proctoring accounts: a platform may use its own (region, base URL, credentials) instead of the environment's default one");
  const credentialOptions = (command: Command) =>
    command
      .option('--region <region>', `the account's region: ${REGIONS.join(', ')}`)
      .option('--base-url <url>', "the https base URL of the region's Launch API")
      .option('--api-key <key>', "a ready API key ('-' reads it from standard input)")
      .option('--consumer-key <key>', 'the consumer key (with --secret)')
      .option('--secret <secret>', "the secret of the consumer key ('-' reads it from standard input)");

  account
    .command('list')
    .description('list the accounts (credentials show their last four characters only) and the platforms using each')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      await withDatabase(async ({ db, config }) => {
        const { createAccountStore } = await import('../proctoring/accounts.js');
        const store = createAccountStore(db, await secretBoxOf(config, db));
        const [accounts, assignments] = await Promise.all([store.list(), store.assignments()]);
        if (options.json) {
          out(JSON.stringify({ accounts, platforms: assignments }, null, 2));
          return;
        }
        out(`default  the environment's account (PROCTORING_*)${config.sandbox ? ': the built-in emulator (sandbox mode)' : `, ${config.proctoring.baseUrl ?? ''}`}`);
        for (const item of accounts) {
          out(describe(item));
          for (const platform of assignments.filter((a) => a.accountId === item.id)) out(`    used by ${platformLabel(platform.issuer, platform.clientId)}`);
        }
      });
    });

  credentialOptions(account.command('add').description('add an account').requiredOption('--id <id>', 'a short id such as eu-campus').requiredOption('--name <name>', 'a display name'))
    .action(async (options: AccountOptions & { id: string }) => {
      const fields = await fieldsOf(options);
      await withDatabase(async ({ db, config }) => {
        const { createAccountStore } = await import('../proctoring/accounts.js');
        const created = await createAccountStore(db, await secretBoxOf(config, db)).create({ id: options.id, ...fields });
        await recordChange(db, {
          action: 'account.add',
          target: created.id,
          changes: [
            { field: 'name', new: created.name },
            { field: 'region', new: created.region },
            { field: 'baseUrl', new: created.baseUrl },
            { field: 'credentials', new: '(secret set)' },
          ],
        });
        out(`Added ${describe(created)}`);
        out(`Check it: proctor-lti account test ${created.id}`);
      });
    });

  credentialOptions(account.command('update').description('change an account; credentials given replace the saved ones').argument('<id>', 'the account id').option('--name <name>', 'a display name'))
    .action(async (id: string, options: AccountOptions) => {
      const fields = await fieldsOf(options);
      await withDatabase(async ({ db, config }) => {
        const { createAccountStore } = await import('../proctoring/accounts.js');
        const store = createAccountStore(db, await secretBoxOf(config, db));
        const before = await store.get(id);
        const updated = await store.update(id, fields);
        const changes: Array<{ field: string; old?: string; new?: string }> = (['name', 'region', 'baseUrl'] as const)
          .filter((field) => before?.[field] !== updated[field])
          .map((field) => ({ field, old: before?.[field], new: updated[field] }));
        if (fields.apiKey || fields.secret || fields.consumerKey) changes.push({ field: 'credentials', old: undefined, new: '(secret changed)' });
        await recordChange(db, { action: 'account.update', target: id, changes });
        out(`Saved ${describe(updated)}`);
      });
    });

  account
    .command('remove')
    .description('remove an account no platform uses')
    .argument('<id>', 'the account id')
    .action(async (id: string) => {
      await withDatabase(async ({ db, config }) => {
        const { createAccountStore } = await import('../proctoring/accounts.js');
        const removed = await createAccountStore(db, await secretBoxOf(config, db)).remove(id);
        if (!removed) {
          err(`There is no account '${id}'.`);
          fail();
          return;
        }
        await recordChange(db, { action: 'account.remove', target: id });
        out(`Removed account ${id}.`);
      });
    });

  account
    .command('use')
    .description("make a platform use an account ('default': the environment's)")
    .requiredOption('--issuer <url>', 'the platform issuer (iss)')
    .requiredOption('--client-id <id>', 'the client id the LMS gave the tool')
    .requiredOption('--account <id>', "the account id, or 'default'")
    .action(async (options: { issuer: string; clientId: string; account: string }) => {
      await withDatabase(async ({ db, config }) => {
        const [{ createAccountStore }, { requireRegisteredPlatform }] = await Promise.all([import('../proctoring/accounts.js'), import('./validation.js')]);
        await requireRegisteredPlatform(db, options.issuer, options.clientId);
        const { previous } = await createAccountStore(db, await secretBoxOf(config, db)).assign(options, options.account);
        await recordChange(db, { action: 'platform.account', target: platformLabel(options.issuer, options.clientId), changes: [{ field: 'account', old: previous, new: options.account }] });
        out(`${platformLabel(options.issuer, options.clientId)} now uses the account ${options.account} (was ${previous}); its next launch goes there.`);
      });
    });

  account
    .command('test')
    .description('call the proctoring service as the account and explain the answer')
    .argument('<id>', "the account id, or 'default'")
    .action(async (id: string) => {
      await withAccountClients(async (clients) => {
        const result = await clients.testConnection(id);
        if (result.ok) {
          out(result.message);
          return;
        }
        err(`The connection test of ${id} (${result.baseUrl}) failed: ${result.message}`);
        fail();
      });
    });
}

/** The accounts' sealing box, once ENCRYPTION_KEY is known to open this database's data (nothing sealed with a wrong key). */
async function secretBoxOf(config: Context['config'], db: Context['db']) {
  const [{ createSecretBox }, { encryptionKeysOf }, { verifyEncryptionKeys }] = await Promise.all([
    import('../secrets/secret-box.js'),
    import('../dev-encryption-key.js'),
    import('../lti/encryption-check.js'),
  ]);
  const keys = encryptionKeysOf(config);
  await verifyEncryptionKeys(db, keys);
  return createSecretBox(keys);
}

