import { InvalidArgumentError, type Command } from 'commander';
import { REGISTRATION_LINK_TTL_RANGE, toolUrl } from '../config.js';
import { LTI_ROUTES } from '../lti/paths.js';
import { isStaticPreset, presetEndpoints, type StaticPreset } from '../lti/platform-presets.js';
import { createRegistrationLinks } from '../lti/registration-links.js';
import { forTerminal, jsonForTerminal } from '../text/control-characters.js';
import { recordChange } from './audit.js';
import type { WithDatabase, WithLti } from './context.js';
import { err, fail, out } from './io.js';
import { addPlatformMoveCommand } from './platform-move.js';

const collect = (value: string, previous: string[]) => [...previous, value];

/** `platform add|list|remove|register-link`: LMS registrations. */
export function addPlatformCommands(program: Command, withDatabase: WithDatabase, withLti: WithLti): void {
  const platform = program.command('platform').description('LMS platforms (LTI 1.3 registrations)');

  platform
    .command('add')
    .description('register an LMS manually (static registration)')
    // Required, but checked by the console's validation so that every missing or wrong value is named at once.
    .option('--issuer <url>', 'the platform issuer (iss), required')
    .option('--client-id <id>', 'the client id the LMS gave the tool, required')
    .option('--auth-url <url>', 'the OIDC authorization endpoint, required')
    .option('--token-url <url>', 'the OAuth2 token endpoint, required')
    .option('--jwks-url <url>', "the platform's public key set, required")
    .option('--deployment-id <id>', 'a deployment id, required (repeat for several)', collect, [])
    .option('--name <name>', 'a display name')
    .option('--authorization-server <aud>', 'the aud for access-token requests when it differs from the token URL')
    .option('--lms <learn|openedx>', "fill in the LMS's endpoints: Blackboard Learn (from --client-id) or Open edX (from --lms-url and --lti-config-id)", (value) => {
      if (!isStaticPreset(value)) throw new InvalidArgumentError('--lms must be learn or openedx');
      return value;
    })
    .option('--lms-url <url>', "Open edX: the LMS's address (its issuer)")
    .option('--lti-config-id <id>', "Open edX: the LTI configuration's id (in its key set and token URLs)")
    .action(async (options: { issuer?: string; clientId?: string; authUrl?: string; tokenUrl?: string; jwksUrl?: string; deploymentId: string[]; name?: string; authorizationServer?: string; lms?: StaticPreset; lmsUrl?: string; ltiConfigId?: string }) => {
      const { checkPlatformInput, describeProblems } = await import('./validation.js');
      // Values given on the command line win over the preset's.
      const preset = options.lms ? presetEndpoints(options.lms, { clientId: options.clientId, lmsUrl: options.lmsUrl ?? options.issuer, configId: options.ltiConfigId }) : {};
      const given = Object.fromEntries(Object.entries({ issuer: options.issuer, authUrl: options.authUrl, tokenUrl: options.tokenUrl, jwksUrl: options.jwksUrl }).filter((entry) => entry[1] !== undefined));
      const checked = checkPlatformInput({ ...options, ...preset, ...given, deploymentIds: options.deploymentId });
      if (!checked.ok) {
        err(`Nothing was registered:\n${describeProblems(checked.problems)}`);
        fail();
        return;
      }
      const input = checked.value;
      await withLti(async (lti, { db, config }) => {
        await lti.platforms.register(input);
        await recordChange(db, { action: 'platform.add', target: `${input.issuer} (client id ${input.clientId})`, changes: [{ field: 'deploymentIds', new: input.deploymentIds.join(', ') }] });
        out(forTerminal(`Registered ${input.issuer} (client id ${input.clientId}), deployments: ${input.deploymentIds.join(', ')}`));
        // Learn and Open edX start proctored assessments through LTI Proctoring Services at the launch URL.
        if (options.lms) err(`Proctoring launch URL (LTI Proctoring Services): ${toolUrl(config, LTI_ROUTES.launch)}`);
      });
    });

  platform
    .command('list')
    .description('list registered platforms')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      // Read straight from the database: listing needs no ltijs, which takes seconds to start.
      await withDatabase(async ({ db }) => {
        const { platformSummaries } = await import('../lti/store/registered-platforms.js');
        const platforms = await platformSummaries(db);
        if (options.json) {
          out(jsonForTerminal(platforms));
          return;
        }
        if (platforms.length === 0) out('No platforms registered.');
        for (const p of platforms) {
          // Registration data comes from the LMS: never let it drive the administrator's terminal.
          out(forTerminal(`${p.issuer}  client ${p.clientId}  ${p.active ? 'active' : 'INACTIVE'}  deployments: ${p.deploymentIds.join(', ') || '(none)'}  (${p.name})`));
        }
      });
    });

  platform
    .command('remove')
    .description('remove a platform, its keys and deployments')
    .requiredOption('--issuer <url>', 'the platform issuer')
    .requiredOption('--client-id <id>', 'the client id')
    .action(async (options: { issuer: string; clientId: string }) => {
      await withLti(async (lti, { db }) => {
        const { requireRegisteredPlatform } = await import('./validation.js');
        await requireRegisteredPlatform(db, options.issuer, options.clientId);
        const removed = await lti.platforms.remove(options.issuer, options.clientId);
        if (removed) await recordChange(db, { action: 'platform.remove', target: `${options.issuer} (client id ${options.clientId})` });
        out(removed ? forTerminal(`Removed ${options.issuer} (client id ${options.clientId}).`) : 'No such platform.');
        if (!removed) fail();
      });
    });

  platform
    .command('register-link')
    .description('print a single-use, expiring LTI Dynamic Registration URL to paste into the LMS')
    .option('--ttl <seconds>', 'validity in seconds (default REGISTRATION_LINK_TTL_SECONDS)', (v) => {
      const n = Number(v);
      const { min, max } = REGISTRATION_LINK_TTL_RANGE;
      if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`--ttl must be a whole number of seconds from ${min} to ${max} (30 days), like REGISTRATION_LINK_TTL_SECONDS`);
      return n;
    })
    .action(async (options: { ttl?: number }) => {
      await withDatabase(async ({ config, db }) => {
        const { token, expiresAt } = await createRegistrationLinks(db).issue(options.ttl ?? config.lti.registrationLinkTtlSeconds);
        await recordChange(db, { action: 'platform.register_link', changes: [{ field: 'expiresAt', new: expiresAt.toISOString() }] });
        out(`${toolUrl(config, LTI_ROUTES.register)}?link=${token}`);
        err(`Single use; valid until ${expiresAt.toISOString()}. Paste it into Canvas (Developer Keys → LTI Registration) or Moodle (Manage tools → Tool URL).`);
      });
    });

  addPlatformMoveCommand(platform, withDatabase);
}
