// `platform move --deployment OLD=NEW`: each option maps one old deployment id to a new one; anything else is refused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Command, CommanderError } from 'commander';
import { addPlatformMoveCommand } from '../../../src/cli/platform-move.js';
import type { WithDatabase } from '../../../src/cli/context.js';

const REQUIRED = ['--from-issuer', 'https://old.example', '--from-client-id', 'a', '--to-issuer', 'https://new.example', '--to-client-id', 'b'];

/** The `--deployment` mapping commander hands to the action (the database is never opened). */
async function deploymentsOf(...deployment: string[]): Promise<unknown> {
  const program = new Command().exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} });
  const platform = program.command('platform');
  const noDatabase: WithDatabase = async () => Promise.reject(new Error('not opened'));
  addPlatformMoveCommand(platform, noDatabase);
  const args = ['platform', 'move', ...REQUIRED, ...deployment.flatMap((value) => ['--deployment', value])];
  // Options parsed, the action ran and asked for the database: what it was given is in the command's options.
  const reachedDatabase = await program.parseAsync(args, { from: 'user' }).then(
    () => false,
    (error: unknown) => {
      if (error instanceof Error && error.message === 'not opened') return true;
      throw error;
    },
  );
  assert.ok(reachedDatabase);
  return platform.commands.find((command) => command.name() === 'move')?.opts().deployment;
}

describe('platform move: --deployment', () => {
  it('maps nothing when none is given', async () => {
    assert.deepEqual(await deploymentsOf(), {});
  });

  it('maps each old id to its new one, the new id taking everything after the first =', async () => {
    assert.deepEqual(await deploymentsOf('1=4', 'x=y=z'), { '1': '4', x: 'y=z' });
  });

  for (const value of ['14', '=4', '1=', '']) {
    it(`refuses ${JSON.stringify(value)}`, async () => {
      await assert.rejects(deploymentsOf(value), (error: unknown) => error instanceof CommanderError && /expected OLD=NEW/.test(error.message));
    });
  }
});
