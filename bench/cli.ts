// CLI start-up benchmark: the median wall time of a few `proctor-lti` commands, each a fresh process of the
// built command (`npm run build` first: dist/src/cli/index.js, as installed in production), in three places:
//   - embedded database, no tool running: the command opens PGlite itself;
//   - embedded database held by a running tool (dist/src/main.js): the command goes through the tool;
//   - PostgreSQL (DATABASE_URL, or --database-url), in a schema of its own that is dropped afterwards.
// Prints a table; the target is every command under 1.5 s. Usage:
//   npm run build && npm run bench:cli [-- --runs 5] [--cli dist/src/cli/index.js] [--database-url postgres://…]
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort } from './compare/processes.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    cli: { type: 'string', default: 'dist/src/cli/index.js' },
    main: { type: 'string', default: 'dist/src/main.js' },
    'database-url': { type: 'string', default: process.env.DATABASE_URL ?? '' },
  },
});
const RUNS = Number(values.runs);
const CLI = resolve(values.cli);
const MAIN = resolve(values.main);
const TARGET_MS = 1500;
if (!existsSync(CLI)) {
  console.error(`${CLI} is missing: run \`npm run build\` first.`);
  process.exit(1);
}

const ISSUER = 'https://moodle.bench.example.edu';
const COMMANDS: string[][] = [
  ['--help'],
  ['platform', 'list'],
  ['institution', 'show', '--issuer', ISSUER, '--client-id', 'bench-1'],
  ['account', 'list'],
  ['audit', '--limit', '5'],
];

type Env = Record<string, string>;

function run(env: Env, args: string[]): { ms: number; status: number | null; stderr: string } {
  const started = performance.now();
  const result = spawnSync(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 120_000 });
  return { ms: performance.now() - started, status: result.status, stderr: result.stderr };
}

const median = (numbers: number[]) => {
  const sorted = [...numbers].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

function measure(place: string, env: Env): Array<{ place: string; command: string; ms: number }> {
  // A first run creates or migrates the database: not measured.
  const warm = run(env, ['platform', 'list']);
  if (warm.status !== 0) throw new Error(`${place}: platform list failed: ${warm.stderr}`);
  return COMMANDS.map((args) => {
    const times: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      const result = run(env, args);
      if (result.status !== 0) throw new Error(`${place}: ${args.join(' ')} failed: ${result.stderr}`);
      times.push(result.ms);
    }
    return { place, command: args.join(' '), ms: median(times) };
  });
}

async function withRunningTool<T>(env: Env, work: () => T): Promise<T> {
  const port = String(await freePort());
  const tool: ChildProcess = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', ...env, PORT: port, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'inherit'] });
  try {
    const lockFile = join(env.DATA_DIR!, 'proctor-lti.lock');
    const deadline = Date.now() + 180_000;
    for (;;) {
      if (tool.exitCode !== null) throw new Error(`the tool exited with ${tool.exitCode}`);
      if (Date.now() > deadline) throw new Error('the tool did not start within 180 s');
      try {
        if ((JSON.parse(readFileSync(lockFile, 'utf8')) as { control?: unknown }).control) break;
      } catch {
        // not written yet
      }
      await new Promise((done) => setTimeout(done, 250));
    }
    return work();
  } finally {
    tool.kill('SIGTERM');
    await new Promise((done) => tool.once('exit', done));
  }
}

const rows: Array<{ place: string; command: string; ms: number }> = [];
const dataDir = mkdtempSync(join(tmpdir(), 'proctor-lti-bench-cli-'));
try {
  const embedded = { DATA_DIR: dataDir, PUBLIC_URL: 'https://proctor.example.edu' };
  rows.push(...measure('embedded, no tool', embedded));
  rows.push(...(await withRunningTool(embedded, () => measure('embedded, through the tool', embedded))));
  if (values['database-url']) {
    const schema = `bench_cli_${process.pid}`;
    const postgres = { DATABASE_URL: values['database-url'], DATABASE_SCHEMA: schema, PUBLIC_URL: 'https://proctor.example.edu' };
    try {
      rows.push(...measure('PostgreSQL', postgres));
    } finally {
      spawnSync('psql', [values['database-url'], '-c', `DROP SCHEMA IF EXISTS "${schema}" CASCADE`], { stdio: 'ignore' });
    }
  } else {
    console.log('PostgreSQL skipped: set DATABASE_URL or --database-url.');
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

console.log(`Median wall time of ${RUNS} runs, fresh process each (target: under ${TARGET_MS} ms)`);
for (const row of rows) console.log(`${row.place.padEnd(28)} ${row.command.padEnd(60)} ${row.ms.toFixed(0).padStart(6)} ms${row.ms > TARGET_MS ? '  over' : ''}`);
