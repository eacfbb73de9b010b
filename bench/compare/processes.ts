// Child processes of the benches that run the tool and its upstream apart (compare.ts, class-burst.ts): a free
// port, start and stop, and a process's CPU time and memory from /proc.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';

const CLOCK_TICKS_PER_SECOND = 100;
const ROOT = resolve(import.meta.dirname, '..', '..');

export const freePort = () =>
  new Promise<number>((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });

/**
 * The node arguments that run a checkout's bench tool server (bench/compare/tool-server.ts): compiled first
 * (tsconfig.bench.json, into the checkout's dist/) and run as plain JavaScript, as the image runs the tool, or
 * with `tsx` through tsx (source maps on, as in development).
 */
export function toolServerArgs(checkout: string, options: { tsx?: boolean } = {}): string[] {
  if (options.tsx) return ['--import', 'tsx', join(checkout, 'bench/compare/tool-server.ts')];
  const project = join(checkout, 'tsconfig.bench.json');
  if (!existsSync(project)) throw new Error(`${checkout} has no tsconfig.bench.json: run it with --tsx`);
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const built = spawnSync(process.execPath, [tsc, '-p', project], { stdio: 'inherit' });
  if (built.status !== 0) throw new Error(`compiling ${checkout} failed`);
  return [join(checkout, 'dist/bench/compare/tool-server.js')];
}

/** Starts a child process and resolves once it prints its `ready` line; the rest of its output is dropped unless it fails. */
/** `unset` names variables of this process's environment the child must not inherit. */
export function start(label: string, args: string[], env: Record<string, string>, unset: readonly string[] = []): Promise<ChildProcess> {
  return new Promise((done, fail) => {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
    for (const name of unset) delete childEnv[name];
    const child = spawn(process.execPath, args, { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let ready = false;
    const timer = setTimeout(() => fail(new Error(`${label} did not start within 90 s:\n${output.slice(-2000)}`)), 90_000);
    const watch = (chunk: Buffer) => {
      if (ready) return;
      output += chunk.toString();
      if (/^ready \d+$/m.test(output)) {
        ready = true;
        clearTimeout(timer);
        done(child);
      }
    };
    child.stdout.on('data', watch);
    child.stderr.on('data', (chunk: Buffer) => {
      if (!ready) output += chunk.toString();
      else if (!/^\{/.test(chunk.toString())) process.stderr.write(`[${label}] ${chunk.toString()}`);
    });
    child.once('exit', (code) => {
      if (!ready) {
        clearTimeout(timer);
        fail(new Error(`${label} exited (${code}) before it was ready:\n${output.slice(-2000)}`));
      }
    });
  });
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** The process's CPU time (user + system) in ms, and its resident memory now and at its peak. */
export function processStats(pid: number): { cpuMs: number; rss: number; peakRss: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { cpuMs: (ticks * 1000) / CLOCK_TICKS_PER_SECOND, rss: kib('VmRSS'), peakRss: kib('VmHWM') };
}

/** CPU time of the whole machine since boot, busy and in all, in ms (all CPUs together), from /proc/stat. */
export function machineCpu(): { busyMs: number; totalMs: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = fields.reduce((sum, value) => sum + value, 0);
  const idle = fields[3]! + fields[4]!;
  return { busyMs: ((total - idle) * 1000) / CLOCK_TICKS_PER_SECOND, totalMs: (total * 1000) / CLOCK_TICKS_PER_SECOND };
}
