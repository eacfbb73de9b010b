import type { Command } from 'commander';
import { forTerminal } from '../text/control-characters.js';
import type { WithDatabase } from './context.js';
import { err, fail, out } from './io.js';

/**
 * `admin hash-password`: prints the scrypt hash ADMIN_PASSWORD accepts. The password is read from standard
 * input (a prompt without echo on a terminal, or a pipe), never from an argument, which would land in the
 * shell's history and the process list. Needs neither the database nor the configuration.
 */
export function addAdminCommands(program: Command, withDatabase?: WithDatabase): void {
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
      const { hashPassword, MIN_PASSWORD_LENGTH } = await import('../secrets/password.js');
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
  if (withDatabase) addLockoutCommands(admin, withDatabase);
}

/** `admin lockouts` and `admin unlock`: the console's sign-in lockouts (src/admin/sign-in-limits.ts). */
function addLockoutCommands(admin: Command, withDatabase: WithDatabase): void {
  admin
    .command('lockouts')
    .description('list the wrong console passwords counted per network in the current window, and which are locked out')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      await withDatabase(async ({ db }) => {
        const { createSignInLockouts, EVERYONE } = await import('../admin/sign-in-limits.js');
        const counts = await createSignInLockouts(db).list();
        if (options.json) {
          out(JSON.stringify(counts, null, 2));
          return;
        }
        if (counts.length === 0) {
          out('No wrong password counted in the current window.');
          return;
        }
        for (const count of counts) {
          const who = count.client === EVERYONE ? 'all networks together (*)' : `${count.client}${count.lastAddress && count.lastAddress !== count.client ? ` (last ${count.lastAddress})` : ''}`;
          out(forTerminal(`${count.locked ? 'LOCKED  ' : 'counting'}  ${who}: ${count.failures} wrong, window ends ${count.windowEndsAt.toISOString()}`));
        }
      });
    });

  admin
    .command('unlock')
    .description('lift a console sign-in lockout: of one network (as `admin lockouts` names it, * for all networks together) or --all')
    .argument('[network]', 'an IPv4 address or IPv6 /56 network as listed, or * ')
    .option('--all', 'lift every lockout and forget every wrong password counted')
    .action(async (network: string | undefined, options: { all?: boolean }) => {
      if (!options.all && !network) {
        err('Name the network to unlock (see `proctor-lti admin lockouts`), or give --all.');
        fail();
        return;
      }
      await withDatabase(async ({ db }) => {
        const { createSignInLockouts, EVERYONE } = await import('../admin/sign-in-limits.js');
        const { recordChange } = await import('./audit.js');
        const lockouts = createSignInLockouts(db);
        if (options.all) {
          const lifted = await lockouts.liftAll();
          if (lifted > 0) await recordChange(db, { action: 'admin.sign_in_unlock', target: 'all' });
          out(`Forgot the wrong passwords of ${lifted} network${lifted === 1 ? '' : 's'}: sign-in works again from everywhere.`);
          return;
        }
        const client = network ?? '';
        if (!(await lockouts.lift(client))) {
          out(forTerminal(`No wrong password was counted for ${client}: nothing to lift.`));
          return;
        }
        await recordChange(db, { action: 'admin.sign_in_unlock', target: client === EVERYONE ? 'everyone' : client });
        out(forTerminal(`Lifted the lockout of ${client}.`));
      });
    });
}
