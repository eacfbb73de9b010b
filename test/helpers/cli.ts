import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localRuntime } from '../../src/cli/context.js';
import { localActor, withCapturedIo } from '../../src/cli/io.js';
import { buildCli, runProgram } from '../../src/cli/program.js';
import { chooseRoute } from '../../src/cli/route.js';
import { ConfigError, loadConfig } from '../../src/config.js';
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

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

/**
 * The same command line through the CLI's own program (argument parsing, the command, its output and exit
 * code), in the test's process: on `dataDir`'s embedded database, which the command opens under DATA_DIR's lock
 * and closes again, as from a shell. A CLI process costs seconds of CPU before its command starts; `runCli` is for
 * what only a process shows (the entry point, standard input, a running tool holding the data directory).
 */
export async function runCliHere(dataDir: string, args: readonly string[]): Promise<CliResult> {
  const argv = [...args];
  let config;
  try {
    config = loadConfig({ PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PUBLIC_URL: 'https://proctor.example.edu' });
  } catch (error) {
    if (error instanceof ConfigError) return { status: 1, stdout: '', stderr: `${error.message}\n` };
    throw error;
  }
  const route = await chooseRoute(config.database);
  if (route.kind !== 'local') throw new Error(`a running tool holds ${dataDir}: use runCli`);
  try {
    const request = { argv, files: filesNamedIn(argv), actor: localActor() };
    const result = await withCapturedIo(request, async () => runProgram(await buildCli(localRuntime(config), argv), argv));
    for (const [path, content] of Object.entries(result.outputs)) writeFileSync(path, Buffer.from(content, 'base64'));
    return { status: result.exitCode, stdout: result.stdout, stderr: result.stderr };
  } finally {
    route.lock?.release();
  }
}

/** The files a command line names, as the CLI sends them along to a running tool. */
function filesNamedIn(argv: readonly string[]): Record<string, string> {
  const files: Record<string, string> = {};
  for (const arg of argv) {
    if (arg.startsWith('--') || !existsSync(arg) || !statSync(arg).isFile()) continue;
    files[arg] = readFileSync(arg).toString('base64');
  }
  return files;
}
