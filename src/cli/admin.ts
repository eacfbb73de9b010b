import type { Command } from 'commander';
import { err, fail, out } from './io.js';

/**
 * `admin hash-password`: prints the scrypt hash ADMIN_PASSWORD accepts. The password is read from standard
 * input (a prompt without echo on a terminal, or a pipe), never from an argument, which would land in the
 * shell's history and the process list. Needs neither the database nor the configuration.
 */
export function addAdminCommands(program: Command): void {
  const admin = program.command('admin').description('the admin console (ADMIN_PASSWORD)');
  admin
    .command('hash-password')
    .description('read a password (prompt without echo, or standard input) and print the scrypt hash to put in ADMIN_PASSWORD')
    .allowExcessArguments(true)
    .action(async (_options: unknown, command: Command) => {
      if (command.args.length > 0) {
        err('Give the password at the prompt or on standard input, never as an argument: an argument stays in the shell history and shows in the process list.');
        fail();
        return;
      }
      const { hashPassword, MIN_PASSWORD_LENGTH } = await import('../admin/password.js');
      const { readPassword } = await import('./password-input.js');
      const password = await readPassword();
      if (password === undefined) {
        err('The two passwords differ: nothing was printed.');
        fail();
        return;
      }
      if (password.length < MIN_PASSWORD_LENGTH) {
        err(`The password must be at least ${MIN_PASSWORD_LENGTH} characters: nothing was printed.`);
        fail();
        return;
      }
      out(await hashPassword(password));
      if (process.stderr.isTTY) err("Put this line in ADMIN_PASSWORD (in single quotes in a shell or .env file: it contains '$') and restart the tool.");
    });
}
