import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';

/**
 * A process that logs and then exits at once (a shutdown, a fatal error) while libuv's thread pool is busy
 * (database files, hashing, DNS): every line it logged reaches standard output, in the order it was logged.
 */
const EXITING_WHILE_THE_POOL_IS_BUSY = `
import { pbkdf2 } from 'node:crypto';
import { createLogger } from './src/logger.ts';
const logger = createLogger('info');
logger.info('first');
setTimeout(() => {
  for (let i = 0; i < 4; i++) pbkdf2('x', 'y', 300_000, 32, 'sha256', () => undefined);
  logger.info('second');
  setTimeout(() => {
    logger.info('third');
    process.exit(0);
  }, 20);
}, 20);
`;

describe('logger', () => {
  it('writes every line before the process exits, in order, even while the thread pool is busy', () => {
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', EXITING_WHILE_THE_POOL_IS_BUSY], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(child.status, 0, child.stderr);
    const messages = child.stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => (JSON.parse(line) as { msg: string }).msg);
    assert.deepEqual(messages, ['first', 'second', 'third'], child.stdout);
  });
});
