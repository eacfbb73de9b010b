import { Command } from 'commander';
import { addAdminCommands } from './admin.js';
import { err, outRaw } from './io.js';
import { runProgram } from './program.js';
import { isOneOf } from '../values.js';

/** Commands that need neither the configuration nor the database: run at once, never through the running tool. */
export const STANDALONE_COMMANDS = ['admin'] as const;

/** `admin` sub-commands that do need the database (sign-in lockouts). */
const WITH_DATABASE = ['lockouts', 'unlock'];

export function isStandalone(argv: readonly string[]): boolean {
  return isOneOf(STANDALONE_COMMANDS, argv[0]) && !WITH_DATABASE.includes(argv[1] ?? '');
}

export async function runStandalone(argv: readonly string[]): Promise<number> {
  const program = new Command('proctor-lti')
    .exitOverride()
    .configureOutput({ writeOut: outRaw, writeErr: (text) => err(text.replace(/\n$/, '')) });
  addAdminCommands(program);
  for (const command of program.commands) command.copyInheritedSettings(program);
  await runProgram(program, argv);
  return typeof process.exitCode === 'number' ? process.exitCode : 0;
}
