import { AsyncLocalStorage } from 'node:async_hooks';
import { readFile, writeFile } from 'node:fs/promises';
import { hostname, userInfo } from 'node:os';
import type { CommandRequest, CommandResult } from '../control/protocol.js';
import { bytesOf } from '../values.js';

/**
 * Where a command's output goes and where its input comes from. A command run from a shell writes to the
 * terminal and reads files itself; the same command run inside the tool (sent by the CLI through the control
 * endpoint) writes into buffers returned to the CLI and reads the files the CLI sent along. Commands use these
 * functions, never console.log, process.exitCode or fs directly.
 */
interface CommandIo {
  stdout: string[];
  stderr: string[];
  exitCode: number;
  files: Record<string, string>;
  stdin?: string;
  outputs: Record<string, string>;
  actor: { user: string; host: string };
}

const current = new AsyncLocalStorage<CommandIo>();

/** A line (or more) on standard output. */
export function out(text: string): void {
  const io = current.getStore();
  if (io) io.stdout.push(`${text}\n`);
  else process.stdout.write(`${text}\n`);
}

/** Raw text on standard output, without an added newline. */
export function outRaw(text: string): void {
  const io = current.getStore();
  if (io) io.stdout.push(text);
  else process.stdout.write(text);
}

export function err(text: string): void {
  const io = current.getStore();
  if (io) io.stderr.push(`${text}\n`);
  else process.stderr.write(`${text}\n`);
}

/** The command failed: exit code 1 (or `code`). */
export function fail(code = 1): void {
  const io = current.getStore();
  if (io) io.exitCode = code;
  else process.exitCode = code;
}

/** A file named on the command line; `-` is standard input. */
export async function readInput(path: string): Promise<Buffer> {
  const io = current.getStore();
  if (!io) return path === '-' ? readStdin() : readFile(path);
  const sent = path === '-' ? io.stdin : io.files[path];
  if (sent === undefined) throw new Error(`cannot read ${path === '-' ? 'standard input' : path}: the command line did not name a readable file`);
  return Buffer.from(sent, 'base64');
}

export async function writeOutput(path: string, text: string): Promise<void> {
  const io = current.getStore();
  if (io) io.outputs[path] = Buffer.from(text, 'utf8').toString('base64');
  else await writeFile(path, text, 'utf8');
}

/** Who runs the command, and from where, for the audit log. */
export function actor(): { user: string; host: string } {
  return current.getStore()?.actor ?? localActor();
}

export function localActor(): { user: string; host: string } {
  let user = 'cli';
  try {
    user = userInfo().username || 'cli';
  } catch {
    // no passwd entry (some containers)
  }
  return { user, host: hostname() };
}

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(bytesOf(chunk));
  return Buffer.concat(chunks);
}

/** Runs `work` with its output captured and its input taken from the request (inside the running tool). */
export async function withCapturedIo(request: CommandRequest, work: () => Promise<void>): Promise<CommandResult> {
  const io: CommandIo = { stdout: [], stderr: [], exitCode: 0, files: request.files, stdin: request.stdin, outputs: {}, actor: request.actor };
  await current.run(io, work);
  return { exitCode: io.exitCode, stdout: io.stdout.join(''), stderr: io.stderr.join(''), outputs: io.outputs };
}
