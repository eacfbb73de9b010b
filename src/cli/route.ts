import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { runThroughTool, ToolUnreachableError } from '../control/client.js';
import { acquireLockWaiting, currentHolder, DataDirBusyError, type DataDirLock, type LockHolder } from '../control/lock.js';
import { CONTROL_BODY_LIMIT_BYTES, type CommandRequest, type CommandResult } from '../control/protocol.js';
import { localActor } from './io.js';
import { bytesOf, errorCode } from '../values.js';

/**
 * Where a command runs. On PostgreSQL: here, on its own connection (the running tool reads the same database).
 * On the embedded database, whose data directory one process at a time may open: through the running tool
 * when one holds DATA_DIR, or here holding DATA_DIR's lock (a tool starting meanwhile waits for it).
 */
export type Route = { kind: 'local'; lock?: DataDirLock } | { kind: 'tool'; holder: LockHolder };

const STARTING_WAIT_MS = 60_000;
const CLI_WAIT_MS = 15_000;
const COMMAND_TIMEOUT_MS = 120_000;

export async function chooseRoute(database: { url?: string; dataDir: string }): Promise<Route> {
  if (database.url || database.dataDir === 'memory') return { kind: 'local' };
  let holder = currentHolder(database.dataDir);
  if (holder?.kind !== 'tool') {
    try {
      return {
        kind: 'local',
        lock: await acquireLockWaiting(database.dataDir, 'cli', {
          waitMs: CLI_WAIT_MS,
          onWait: (other) => process.stderr.write(`Waiting for another proctor-lti command (pid ${other.pid}) to finish…\n`),
        }),
      };
    } catch (error) {
      if (!(error instanceof DataDirBusyError) || error.holder.kind !== 'tool') throw error;
      holder = error.holder;
    }
  }
  return { kind: 'tool', holder: await untilServing(database.dataDir, holder) };
}

/** A tool that has just started serves its control endpoint once its database is open: wait for that, bounded. */
async function untilServing(dataDir: string, holder: LockHolder): Promise<LockHolder> {
  const deadline = Date.now() + STARTING_WAIT_MS;
  let current: LockHolder | undefined = holder;
  let told = false;
  while (current && !current.control) {
    if (Date.now() >= deadline) {
      throw new ToolUnreachableError(`a proctor-lti (pid ${current.pid}) holds ${dataDir} but has not finished starting within ${STARTING_WAIT_MS / 1000} s; check its log`);
    }
    if (!told) process.stderr.write(`Waiting for the running proctor-lti (pid ${current.pid}) to finish starting…\n`);
    told = true;
    await new Promise((resolve) => setTimeout(resolve, 200));
    current = currentHolder(dataDir);
  }
  if (!current) throw new ToolUnreachableError(`the proctor-lti that held ${dataDir} has stopped; run the command again`);
  return current;
}

/** Sends the command line to the running tool, with the files it names; prints and writes what comes back. */
export async function runInTool(holder: LockHolder, argv: string[]): Promise<number> {
  const result = await sendToTool(holder, await commandRequest(argv, readStdin));
  writeReturnedFiles(result);
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  return result.exitCode;
}

/** Carries a command out in the running tool; its output and the files it sends back are the caller's. */
export function sendToTool(holder: LockHolder, request: CommandRequest): Promise<CommandResult> {
  return runThroughTool(holder, request, COMMAND_TIMEOUT_MS);
}

/** Writes the files a command run with captured output (in the running tool) sent back. */
export function writeReturnedFiles(result: Pick<CommandResult, 'outputs'>): void {
  for (const [path, content] of Object.entries(result.outputs)) writeFileSync(path, Buffer.from(content, 'base64'));
}

/** A command line with the files it names (read here: the tool may not see this machine's files) and, for `-`, standard input. */
export async function commandRequest(argv: string[], stdin: () => Promise<Buffer>): Promise<CommandRequest> {
  const request: CommandRequest = { argv, files: {}, actor: localActor() };
  let size = 0;
  for (const arg of argv) {
    if (arg === '-') {
      request.stdin = Buffer.from(await stdin()).toString('base64');
      continue;
    }
    if (arg.startsWith('--') || request.files[arg] !== undefined) continue;
    try {
      const stat = statSync(arg);
      if (!stat.isFile()) continue;
      size += stat.size;
      if (size > CONTROL_BODY_LIMIT_BYTES) throw new Error(`the files named on the command line exceed ${CONTROL_BODY_LIMIT_BYTES / 1024 / 1024} MiB`);
      request.files[arg] = readFileSync(arg).toString('base64');
    } catch (error) {
      if (errorCode(error) === 'ENOENT' || errorCode(error) === 'EACCES') continue;
      throw error;
    }
  }
  return request;
}

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(bytesOf(chunk));
  return Buffer.concat(chunks);
}
