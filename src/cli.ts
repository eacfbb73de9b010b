import { Command, InvalidArgumentError } from 'commander';
import { USER_AGENT } from './app.js';
import { ConfigError, loadConfig, toolUrl, type Config } from './config.js';
import { openDatabase } from './db/index.js';
import { migrate } from './db/migrate.js';
import type { Database } from './db/types.js';
import { developmentEncryptionKey } from './dev-encryption-key.js';
import { createLogger } from './logger.js';
import { createLtiAdapter, LTI_ROUTES, type LtiAdapter } from './lti/provider.js';
import { createRegistrationLinks } from './lti/registration-links.js';

/** Administrator commands: `npm run cli -- platform add|list|remove|register-link …`. */

interface Context {
  config: Config;
  db: Database;
}

async function withDatabase<T>(work: (context: Context) => Promise<T>): Promise<T> {
  const config = loadConfig(process.env);
  const db = await openDatabase(config.database);
  try {
    await migrate(db);
    return await work({ config, db });
  } finally {
    await db.close();
  }
}

async function withLti<T>(work: (lti: LtiAdapter, context: Context) => Promise<T>): Promise<T> {
  return withDatabase(async (context) => {
    const lti = await createLtiAdapter({
      db: context.db,
      encryptionKey: context.config.encryptionKey ?? developmentEncryptionKey(context.config.database.dataDir),
      publicUrl: context.config.publicUrl,
      sessionMaxAgeSeconds: context.config.lti.sessionMaxAgeSeconds,
      clockSkewSeconds: context.config.lti.clockSkewSeconds,
      userAgent: USER_AGENT,
      logger: createLogger('silent'),
      refuse: () => undefined,
      onLaunch: async () => undefined,
    });
    try {
      return await work(lti, context);
    } finally {
      await lti.close();
    }
  });
}

const url = (name: string) => (value: string) => {
  try {
    const parsed = new URL(value);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new Error('not http');
    return value;
  } catch {
    throw new InvalidArgumentError(`${name} must be an absolute http(s) URL`);
  }
};
const collect = (value: string, previous: string[]) => [...previous, value];

export function buildCli(): Command {
  const program = new Command('proctor-lti').description('Administration of the proctor-lti LTI tool').exitOverride();
  const platform = program.command('platform').description('LMS platforms (LTI 1.3 registrations)');

  platform
    .command('add')
    .description('register an LMS manually (static registration)')
    .requiredOption('--issuer <url>', 'the platform issuer (iss)', url('--issuer'))
    .requiredOption('--client-id <id>', 'the client id the LMS gave the tool')
    .requiredOption('--auth-url <url>', 'the OIDC authorization endpoint', url('--auth-url'))
    .requiredOption('--token-url <url>', 'the OAuth2 token endpoint', url('--token-url'))
    .requiredOption('--jwks-url <url>', "the platform's public key set", url('--jwks-url'))
    .requiredOption('--deployment-id <id>', 'a deployment id (repeat for several)', collect, [])
    .option('--name <name>', 'a display name')
    .option('--authorization-server <aud>', 'the aud for access-token requests when it differs from the token URL')
    .action(async (options: { issuer: string; clientId: string; authUrl: string; tokenUrl: string; jwksUrl: string; deploymentId: string[]; name?: string; authorizationServer?: string }) => {
      await withLti(async (lti) => {
        await lti.platforms.register({
          issuer: options.issuer,
          clientId: options.clientId,
          name: options.name,
          authUrl: options.authUrl,
          tokenUrl: options.tokenUrl,
          authorizationServer: options.authorizationServer,
          key: { jwksUrl: options.jwksUrl },
          deploymentIds: options.deploymentId,
        });
        console.log(`Registered ${options.issuer} (client id ${options.clientId}), deployments: ${options.deploymentId.join(', ')}`);
      });
    });

  platform
    .command('list')
    .description('list registered platforms')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      await withLti(async (lti) => {
        const platforms = await lti.platforms.list();
        if (options.json) {
          console.log(JSON.stringify(platforms, null, 2));
          return;
        }
        if (platforms.length === 0) console.log('No platforms registered.');
        for (const p of platforms) {
          console.log(`${p.issuer}  client ${p.clientId}  ${p.active ? 'active' : 'INACTIVE'}  deployments: ${p.deploymentIds.join(', ') || '(none)'}  (${p.name})`);
        }
      });
    });

  platform
    .command('remove')
    .description('remove a platform, its keys and deployments')
    .requiredOption('--issuer <url>', 'the platform issuer')
    .requiredOption('--client-id <id>', 'the client id')
    .action(async (options: { issuer: string; clientId: string }) => {
      await withLti(async (lti) => {
        const removed = await lti.platforms.remove(options.issuer, options.clientId);
        console.log(removed ? `Removed ${options.issuer} (client id ${options.clientId}).` : 'No such platform.');
        if (!removed) process.exitCode = 1;
      });
    });

  platform
    .command('register-link')
    .description('print a single-use, expiring LTI Dynamic Registration URL to paste into the LMS')
    .option('--ttl <seconds>', 'validity in seconds (default REGISTRATION_LINK_TTL_SECONDS)', (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 60) throw new InvalidArgumentError('--ttl must be a whole number of seconds, at least 60');
      return n;
    })
    .action(async (options: { ttl?: number }) => {
      await withDatabase(async ({ config, db }) => {
        const { token, expiresAt } = await createRegistrationLinks(db).issue(options.ttl ?? config.lti.registrationLinkTtlSeconds);
        console.log(`${toolUrl(config, LTI_ROUTES.register)}?link=${token}`);
        console.error(`Single use; valid until ${expiresAt.toISOString()}. Paste it into Canvas (Developer Keys → LTI Registration) or Moodle (Manage tools → Tool URL).`);
      });
    });

  return program;
}

async function run(): Promise<void> {
  try {
    await buildCli().parseAsync(process.argv);
  } catch (error) {
    const code = (error as { code?: string; exitCode?: number }).code;
    if (code?.startsWith('commander.')) {
      process.exitCode = (error as { exitCode?: number }).exitCode ?? 1;
      return;
    }
    if (error instanceof ConfigError) console.error(error.message);
    else console.error(`Error: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}

await run();
