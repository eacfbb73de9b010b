import { Command, CommanderError } from 'commander';
import type { CliRuntime } from './context.js';
import { err, fail, outRaw } from './io.js';

type AddCommands = (program: Command, runtime: CliRuntime) => Promise<void>;

/**
 * The command groups, each loaded only when its name is on the command line (all of them for the help):
 * a command imports only its own modules, which keeps start-up short.
 */
const COMMAND_GROUPS: Record<string, AddCommands> = {
  platform: async (program, runtime) => (await import('./platform.js')).addPlatformCommands(program, runtime.withDatabase, runtime.withLti),
  institution: async (program, runtime) => (await import('./institution.js')).addInstitutionCommands(program, runtime.withDatabase),
  exam: async (program, runtime) => (await import('./exam.js')).addExamCommands(program, runtime.withDatabase),
  account: async (program, runtime) => (await import('./accounts.js')).addAccountCommands(program, runtime.withDatabase, runtime.withAccountClients),
  encryption: async (program, runtime) => (await import('./encryption.js')).addEncryptionCommands(program, runtime.withDatabase),
  secrets: async (program, runtime) => (await import('./secrets.js')).addSecretCommands(program, runtime.withDatabase),
  webhooks: async (program, runtime) => (await import('./webhooks.js')).addWebhookCommands(program, runtime.withWebhooks),
  audit: async (program, runtime) => (await import('./audit-log.js')).addAuditCommand(program, runtime.withDatabase),
  admin: async (program, runtime) => (await import('./admin.js')).addAdminCommands(program, runtime.withDatabase),
  migrate: async (program, runtime) => (await import('./migrate.js')).addMigrateCommand(program, runtime.withSchemaDatabase),
  retention: async (program, runtime) => (await import('./retention.js')).addRetentionCommands(program, runtime.withDatabase),
};

/** Administrator commands: `proctor-lti platform|institution|exam|account|encryption|secrets|webhooks|audit|admin|migrate|retention …`. */
export async function buildCli(runtime: CliRuntime, argv: readonly string[] = []): Promise<Command> {
  const program = new Command('proctor-lti')
    .description('Administration of the proctor-lti LTI tool')
    .exitOverride()
    .configureOutput({ writeOut: outRaw, writeErr: (text) => err(text.replace(/\n$/, '')) })
    .addHelpText('after', '\n`proctor-lti --version` prints the release (package.json).');
  const group = argv[0] !== undefined ? COMMAND_GROUPS[argv[0]] : undefined;
  for (const add of group ? [group] : Object.values(COMMAND_GROUPS)) await add(program, runtime);
  // Sub-commands inherit the output settings and the exit override.
  for (const command of program.commands) command.copyInheritedSettings(program);
  return program;
}

/** Parses and runs one command line (without the program name); failures become a message and exit code 1. */
export async function runProgram(program: Command, argv: readonly string[]): Promise<void> {
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has printed its message (or the help) already.
      if (error.exitCode !== 0) fail(error.exitCode);
      return;
    }
    err(`Error: ${error instanceof Error ? error.message : String(error)}`);
    fail();
  }
}
