// DATA_DIR's lock: taken by the first process, refused to a second one while the first runs, and created with
// its directory on a fresh checkout (where `npm start` runs before any data directory exists).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { acquireLock, currentHolder, DataDirBusyError, LOCK_FILE } from '../../../src/control/lock.js';

describe('data directory lock', () => {
  const parent = mkdtempSync(join(tmpdir(), 'proctor-lti-lock-'));
  after(() => rmSync(parent, { recursive: true, force: true }));

  it('creates a missing data directory (private to its owner) and takes the lock in it', () => {
    const dataDir = join(parent, 'fresh', 'data');
    assert.equal(existsSync(dataDir), false);
    const lock = acquireLock(dataDir, 'tool');
    try {
      assert.equal(lock.path, join(dataDir, LOCK_FILE));
      assert.equal(statSync(dataDir).mode & 0o777, 0o700);
      assert.equal(currentHolder(dataDir)?.pid, process.pid);
    } finally {
      lock.release();
    }
    assert.equal(existsSync(join(dataDir, LOCK_FILE)), false, 'released');
  });

  it('refuses a second holder while the first holds it, naming the first', () => {
    const dataDir = join(parent, 'shared');
    const first = acquireLock(dataDir, 'tool');
    try {
      assert.throws(() => acquireLock(dataDir, 'cli'), (error: unknown) => error instanceof DataDirBusyError && error.holder.kind === 'tool');
    } finally {
      first.release();
    }
    acquireLock(dataDir, 'cli').release();
  });
});
