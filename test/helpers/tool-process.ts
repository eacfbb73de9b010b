import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { SANDBOX_ACCOUNT } from '../../src/sandbox/index.js';
import { entryArgs } from './entry-args.js';
import { freePort } from './ports.js';

export interface ToolChild {
  process: ChildProcess;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
}

/** src/main.ts in its own process with exactly `env` (and PATH); each line it writes goes to `onLine`. */
export function spawnTool(env: Record<string, string>, onLine: (line: string) => void): ToolChild {
  const child = spawn(process.execPath, entryArgs('src/main.ts'), { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  // Whole lines: a chunk may end in the middle of one.
  const readLines = (stream: Readable) => {
    let rest = '';
    stream.on('data', (chunk: Buffer) => {
      const lines = (rest + chunk.toString('utf8')).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) if (line !== '') onLine(line);
    });
    stream.on('end', () => rest !== '' && onLine(rest));
  };
  readLines(child.stdout);
  readLines(child.stderr);
  return { process: child, exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
}

/**
 * The environment of one replica of several behind a balancer at `publicUrl`: PostgreSQL (DATABASE_URL, in its own
 * schema), the sandbox's proctoring account at `proctoringBaseUrl`, one proxy hop.
 */
export function replicaEnv(options: { port: number; publicUrl: string; schema: string | undefined; proctoringBaseUrl: string; encryptionKey: string; logLevel?: string }): Record<string, string> {
  return {
    NODE_ENV: 'development',
    PORT: String(options.port),
    PUBLIC_URL: options.publicUrl,
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
    ...(options.schema ? { DATABASE_SCHEMA: options.schema } : {}),
    ENCRYPTION_KEY: options.encryptionKey,
    PROCTORING_BASE_URL: options.proctoringBaseUrl,
    PROCTORING_REGION: SANDBOX_ACCOUNT.region,
    PROCTORING_CONSUMER_KEY: SANDBOX_ACCOUNT.consumerKey,
    PROCTORING_SECRET: SANDBOX_ACCOUNT.secret,
    TRUST_PROXY_HOPS: '1',
    LOG_LEVEL: options.logLevel ?? 'info',
  };
}

/** A replica of the tool on a port of its own, started again on the same port after a stop. */
export interface Replica<Name extends string = string> {
  name: Name;
  port: number;
  process?: ChildProcess;
  exited?: Promise<number | null>;
  /** The lines the replica's processes wrote. */
  log: string[];
}

/** Starts (or starts again) a replica with `env`; what it writes is added to its log. */
export function startReplica(replica: Replica, env: Record<string, string>): void {
  const started = spawnTool(env, (line) => replica.log.push(line));
  replica.process = started.process;
  replica.exited = started.exited;
}

export interface ToolProcess {
  baseUrl: string;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/**
 * src/main.ts in its own process with `env` (PORT and PUBLIC_URL added), once it has started and is ready (`/readyz` answers 200)
 * or has ended, whichever comes first: a start-up that fails resolves too, with `exited` settled. It stops without a
 * lame duck unless `env` sets SHUTDOWN_DELAY_SECONDS: no balancer watches it, and the ten seconds would only be waited out.
 */
export async function startToolProcess(env: Record<string, string>, timeoutMs = 120_000): Promise<ToolProcess> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  let output = '';
  let ended = false;
  const { process: child, exited: childExited } = spawnTool({ PORT: String(port), PUBLIC_URL: baseUrl, LOG_LEVEL: 'info', SHUTDOWN_DELAY_SECONDS: '0', ...env }, (line) => (output += `${line}\n`));
  const exited = childExited.then((code) => {
    ended = true;
    return code;
  });
  const deadline = Date.now() + timeoutMs;
  while (!ended) {
    // Started (its signal handlers set) and ready.
    const ready = output.includes('proctor-lti started') ? await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined) : undefined;
    if (ready?.ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the tool did not start within ${timeoutMs / 1000} s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    baseUrl,
    output: () => output,
    exited,
    async stop() {
      if (!ended) child.kill('SIGTERM');
      return exited;
    },
  };
}
