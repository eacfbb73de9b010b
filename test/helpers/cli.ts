import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { databaseTemplateKey, TEST_CACHE } from './templates.js';

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

/**
 * A fresh data directory holding an embedded database with every migration applied, removed by `remove()`
 * (call it from `after`). The database is a copy of one made once per set of migrations: the first command
 * or tool start on it then skips initdb and the migrations, seconds of CPU each time.
 */
export function tempDataDir(prefix: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `proctor-lti-${prefix}-`));
  cpSync(migratedDataDirTemplate(), dir, { recursive: true });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

function migratedDataDirTemplate(): string {
  const template = join(TEST_CACHE, `pglite-data-dir-${databaseTemplateKey(true)}`);
  if (existsSync(template)) return template;
  mkdirSync(TEST_CACHE, { recursive: true });
  // Made aside and renamed, so a test process never copies half a template another one is making.
  const partial = `${template}.${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  const script = "const { openDatabase } = await import('./src/db/index.js'); const { migrate } = await import('./src/db/migrate.js'); const db = await openDatabase({ dataDir: process.argv[1] }); await migrate(db); await db.close();";
  const made = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script, partial], { encoding: 'utf8', timeout: 300_000 });
  if (made.status !== 0) throw new Error(`could not make the data directory template: ${made.stderr}`);
  try {
    renameSync(partial, template);
  } catch {
    rmSync(partial, { recursive: true, force: true });
  }
  return template;
}
