import { readFile, writeFile } from 'node:fs/promises';
import { Command, InvalidArgumentError } from 'commander';
import { USER_AGENT } from './app.js';
import { ConfigError, loadConfig, toolUrl, type Config } from './config.js';
import { openDatabase } from './db/index.js';
import { migrate } from './db/migrate.js';
import type { Database } from './db/types.js';
import { developmentEncryptionKey } from './dev-encryption-key.js';
import { exportExams, importExams } from './exams/transfer.js';
import { addInstitutionCommands } from './institution/cli.js';
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

  // Institution settings (logo, extension allowlist): src/institution/cli.ts.
  addInstitutionCommands(program, withDatabase);

  const exam = program.command('exam').description('proctored exams as JSON: bulk setup, moving between courses, backups');

  exam
    .command('export')
    .description('print every exam (or those of one course) as JSON')
    .option('--course <contextId>', 'only the exams of this LTI context (course) id')
    .option('--issuer <url>', 'only the exams of this platform issuer')
    .option('--output <file>', 'write to this file instead of standard output')
    .action(async (options: { course?: string; issuer?: string; output?: string }) => {
      await withDatabase(async ({ db }) => {
        const file = await exportExams(db, { contextId: options.course, issuer: options.issuer });
        const text = `${JSON.stringify(file, null, 2)}\n`;
        if (options.output) {
          await writeFile(options.output, text, 'utf8');
          console.error(`Exported ${file.exams.length} exam${file.exams.length === 1 ? '' : 's'} to ${options.output}.`);
        } else {
          process.stdout.write(text);
        }
      });
    });

  exam
    .command('import')
    .description('create or replace exams from an exported JSON file ("-" reads standard input); nothing is imported if any exam is refused')
    .argument('<file>', 'the JSON file')
    .action(async (path: string) => {
      const text = path === '-' ? await readStdin() : await readFile(path, 'utf8');
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (error) {
        console.error(`Nothing was imported: ${path} is not valid JSON (${(error as Error).message}).`);
        process.exitCode = 1;
        return;
      }
      await withDatabase(async ({ db }) => {
        const result = await importExams(db, parsed);
        if (result.ok) {
          console.log(`Imported ${result.created + result.updated} exam${result.created + result.updated === 1 ? '' : 's'}: ${result.created} created, ${result.updated} updated.`);
          return;
        }
        console.error(`Nothing was imported.${result.message ? ` ${result.message}` : ''}`);
        for (const refusal of result.refusals) {
          console.error(`Exam #${refusal.index + 1} (${refusal.key}):`);
          for (const violation of refusal.violations) console.error(`  ${violation.path || '(exam)'}: ${violation.message}`);
        }
        process.exitCode = 1;
      });
    });

  return program;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
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
