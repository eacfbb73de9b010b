import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Node.js options for a tool or CLI process a test starts: TypeScript through tsx, and the shared key pairs. */
export const TEST_PROCESS_IMPORTS = ['--import', 'tsx', '--import', './test/helpers/shared-rsa-keys.ts'] as const;

/**
 * Runs the administrators' CLI as `npm run cli -- …` does, in its own process, on the embedded database
 * of `dataDir`, with nothing else from the environment (no DATABASE_URL: each test owns its data).
 */
export function runCli(dataDir: string, args: readonly string[]): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [...TEST_PROCESS_IMPORTS, 'src/cli/index.ts', ...args], {
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PUBLIC_URL: 'https://proctor.example.edu' },
    encoding: 'utf8',
    timeout: 300_000,
  });
}

/** A fresh data directory, removed by `remove()` (call it from `after`). */
export function tempDataDir(prefix: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `proctor-lti-${prefix}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
