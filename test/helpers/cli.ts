import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localRuntime } from '../../src/cli/context.js';
import { withCapturedIo } from '../../src/cli/io.js';
import { buildCli, runProgram } from '../../src/cli/program.js';
import { chooseRoute, commandRequest, sendToTool, writeReturnedFiles } from '../../src/cli/route.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { databaseTemplateKey, TEST_CACHE } from './templates.js';

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
 * and closes again, as from a shell. A CLI process costs seconds of CPU before its command starts: only what a
 * process alone shows (the entry point, a terminal, signals) is tested with one (test/e2e/cli/running-tool.test.ts).
 */
export function runCliHere(dataDir: string, args: readonly string[]): Promise<CliResult> {
  return runCliInProcess({ PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PUBLIC_URL: 'https://proctor.example.edu' }, args);
}

/**
 * `runCliHere` with the environment `env` (as a CLI process would have it) and `input` as standard input: routed
 * as the CLI routes a command, to a running tool that holds the embedded database, or run here.
 */
export async function runCliInProcess(env: Record<string, string>, args: readonly string[], input = ''): Promise<CliResult> {
  const argv = [...args];
  let config;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return { status: 1, stdout: '', stderr: `${error.message}\n` };
    throw error;
  }
  const route = await chooseRoute(config.database);
  try {
    const request = await commandRequest(argv, () => Promise.resolve(Buffer.from(input, 'utf8')));
    const result =
      route.kind === 'tool'
        ? await sendToTool(route.holder, request)
        : await withCapturedIo(request, async () => runProgram(await buildCli(localRuntime(config), argv), argv));
    writeReturnedFiles(result);
    return { status: result.exitCode, stdout: result.stdout, stderr: result.stderr };
  } finally {
    if (route.kind === 'local') route.lock?.release();
  }
}
