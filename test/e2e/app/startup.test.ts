import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { entryArgs } from '../../helpers/entry-args.js';

/** The real entry point, as `npm start` runs it. */
function start(env: Record<string, string>) {
  return spawnSync(process.execPath, entryArgs('src/main.ts'), {
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe('start-up', () => {
  it('a bad variable stops start-up with the variable named, exit code 1', () => {
    const result = start({ PORT: 'not-a-port' });
    assert.equal(result.status, 1);
    assert.match(result.stderr, /PORT must be a whole number/);
  });

  it('a real database without proctoring credentials does not start the sandbox unless SANDBOX=1 asks for it', () => {
    const result = start({ DATABASE_URL: 'postgres://admin:hunter2-secret@127.0.0.1:1/proctor', LOG_LEVEL: 'silent' });
    assert.equal(result.status, 1);
    assert.match(result.stderr, /DATABASE_URL is set but no proctoring credentials/);
    assert.match(result.stderr, /SANDBOX=1/);
    assert.doesNotMatch(result.stderr + result.stdout, /hunter2-secret/);
  });

  it('an unreachable database stops start-up with a clear message and exit code 1, never the password', () => {
    const result = start({ DATABASE_URL: 'postgres://admin:hunter2-secret@127.0.0.1:1/proctor', SANDBOX: '1', LOG_LEVEL: 'silent' });
    assert.equal(result.status, 1);
    assert.match(result.stderr, /Cannot connect to .*127\.0\.0\.1:1/);
    assert.doesNotMatch(result.stderr + result.stdout, /hunter2-secret/);
  });

  it('production with missing settings stops', () => {
    const result = start({ NODE_ENV: 'production' });
    assert.equal(result.status, 1);
    assert.match(result.stderr, /ENCRYPTION_KEY is required in production/);
  });
});
