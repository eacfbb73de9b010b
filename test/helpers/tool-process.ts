import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './ports.js';

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
 * or has ended, whichever comes first: a start-up that fails resolves too, with `exited` settled.
 */
export async function startToolProcess(env: Record<string, string>, timeoutMs = 120_000): Promise<ToolProcess> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  let output = '';
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port), PUBLIC_URL: baseUrl, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let ended = false;
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      ended = true;
      resolve(code);
    }),
  );
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
