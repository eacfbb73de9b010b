import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { openDatabase } from '../../src/db/index.js';
import { runCliInProcess, tempDataDir, type CliResult } from './cli.js';
import { entryArgs } from './entry-args.js';
import { freePort } from './ports.js';

export interface RunningTool {
  baseUrl: string;
  /**
   * Runs `proctor-lti …` as an administrator would, with the tool's environment; `input` is its standard input.
   * The CLI's program runs in the test's process (`runCliInProcess`): through the running tool on the embedded
   * database, on its own connection on PostgreSQL.
   */
  cli(args: readonly string[], input?: string): Promise<CliResult>;
  stop(): Promise<void>;
}

/**
 * The tool started as `npm start` does (sandbox mode: demo LMS and emulator) in its own process, on the embedded
 * database of a fresh DATA_DIR, or on a throwaway schema of DATABASE_URL (with SANDBOX=1). On the embedded
 * database the CLI's commands are carried out by the running tool; on PostgreSQL by the CLI itself.
 */
export async function startRunningTool(prefix: string, extraEnv: Record<string, string> = {}): Promise<RunningTool> {
  const data = tempDataDir(prefix);
  const schema = `${prefix.replace(/\W/g, '_')}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const port = await freePort();
  const baseUrl = `http://localhost:${port}`;
  const env = {
    PATH: process.env.PATH ?? '',
    DATA_DIR: data.dir,
    PORT: String(port),
    LOG_LEVEL: 'warn',
    SHUTDOWN_DELAY_SECONDS: '0',
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL, DATABASE_SCHEMA: schema, SANDBOX: '1' } : {}),
    ...extraEnv,
  };
  let output = '';
  const tool: ChildProcess = spawn(process.execPath, entryArgs('src/main.ts'), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  tool.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  tool.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = async () => {
    if (tool.exitCode === null) {
      const exited = new Promise((resolve) => tool.once('exit', resolve));
      tool.kill('SIGTERM');
      await exited;
    }
    if (process.env.DATABASE_URL) {
      const db = await openDatabase({ url: process.env.DATABASE_URL, dataDir: 'memory' });
      await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => db.close());
    }
    data.remove();
  };
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (tool.exitCode !== null) {
      await stop();
      assert.fail(`the tool ended: ${output}`);
    }
    if (/proctor-lti is running|"msg":"proctor-lti started"/.test(output)) {
      const ready = await fetch(`${baseUrl}/readyz`).catch(() => undefined);
      if (ready?.ok) break;
    }
    if (Date.now() > deadline) {
      await stop();
      assert.fail(`the tool did not start: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    baseUrl,
    cli: (args, input = '') => runCliInProcess(env, args, input),
    stop,
  };
}
