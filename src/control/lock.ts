import { closeSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { errorCode } from '../values.js';

/**
 * The embedded database (PGlite) is one process per data directory: a second process opening it sees nothing
 * of the first one's changes and loses its own. Whoever opens DATA_DIR's database first holds this lock file
 * (created exclusively, mode 0600) until it ends: the running tool, or one CLI command. The tool also writes
 * into it how the CLI reaches it (a loopback port and a random token), so the CLI carries changes out
 * through the tool instead of opening the database itself.
 */
export const LOCK_FILE = 'proctor-lti.lock';

export interface LockHolder {
  pid: number;
  hostname: string;
  kind: 'tool' | 'cli';
  startedAt: string;
  /** Set by the tool once it serves: where the CLI sends commands, and the tool's public URL. */
  control?: { port: number; token: string; publicUrl: string };
}

export class DataDirBusyError extends Error {
  override readonly name = 'DataDirBusyError';
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
  ) {
    super(
      holder.kind === 'tool'
        ? `another proctor-lti (pid ${holder.pid}) is already running on the embedded database in ${dataDir}; stop it first, or give this one another DATA_DIR`
        : `a proctor-lti command (pid ${holder.pid}) is using the embedded database in ${dataDir}; try again when it has finished`,
    );
  }
}

export interface DataDirLock {
  readonly path: string;
  /** Rewrites the lock's content (the tool adds its control endpoint once it listens). */
  update(holder: LockHolder): void;
  release(): void;
}

const pathOf = (dataDir: string) => join(dataDir, LOCK_FILE);

/** Whether the process that wrote the lock still runs (on another host, assume it does). */
function isAlive(holder: LockHolder): boolean {
  if (holder.hostname !== hostname()) return true;
  if (holder.pid === process.pid) return true;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
}

/** A lock file as another process wrote it: pid and kind are what matter; the rest is for messages. */
const lockHolderSchema = z.object({
  pid: z.number(),
  kind: z.enum(['tool', 'cli']),
  hostname: z.string().catch(''),
  startedAt: z.string().catch(''),
  control: z.object({ port: z.number(), token: z.string(), publicUrl: z.string() }).optional().catch(undefined),
});

function parse(text: string): LockHolder | undefined {
  try {
    const parsed = lockHolderSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The live holder of DATA_DIR's lock, if any. A lock left by a process that ended is removed. */
export function currentHolder(dataDir: string): LockHolder | undefined {
  const path = pathOf(dataDir);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const holder = parse(text);
  // Being written this very moment (created, not yet filled): a live holder without details.
  if (!holder) return text === '' ? { pid: 0, hostname: hostname(), kind: 'cli', startedAt: new Date().toISOString() } : removeStale(path, text);
  if (isAlive(holder)) return holder;
  return removeStale(path, text);
}

function removeStale(path: string, seen: string): undefined {
  try {
    // Only if unchanged since read: another process may have just taken it over.
    if (readFileSync(path, 'utf8') === seen) unlinkSync(path);
  } catch {
    // already gone
  }
  return undefined;
}

/** Takes DATA_DIR's lock for this process, or throws DataDirBusyError naming the live holder. */
export function acquireLock(dataDir: string, kind: LockHolder['kind']): DataDirLock {
  const path = pathOf(dataDir);
  const mine: LockHolder = { pid: process.pid, hostname: hostname(), kind, startedAt: new Date().toISOString() };
  // A fresh checkout has no data directory yet: the first start creates it (the database and keys go there).
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o600);
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw error;
      const holder = currentHolder(dataDir);
      if (holder) throw new DataDirBusyError(dataDir, holder);
      continue;
    }
    try {
      writeSync(fd, JSON.stringify(mine));
    } finally {
      closeSync(fd);
    }
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      process.off('exit', release);
      try {
        if (parse(readFileSync(path, 'utf8'))?.pid === process.pid) unlinkSync(path);
      } catch {
        // already gone
      }
    };
    process.on('exit', release);
    return {
      path,
      update(holder) {
        // Written aside and renamed: a reader never sees half a file.
        const next = `${path}.${process.pid}.tmp`;
        writeFileSync(next, JSON.stringify(holder), { mode: 0o600 });
        renameSync(next, path);
      },
      release,
    };
  }
  const holder = currentHolder(dataDir);
  if (holder) throw new DataDirBusyError(dataDir, holder);
  throw new Error(`could not take the lock ${path}`);
}

/**
 * `acquireLock`, waiting while a CLI command holds the lock (commands take about a second) for at most
 * `waitMs`; a tool holding it is never waited for. `onWait` is called once when waiting starts.
 */
export async function acquireLockWaiting(dataDir: string, kind: LockHolder['kind'], options: { waitMs: number; onWait?: (holder: LockHolder) => void }): Promise<DataDirLock> {
  const deadline = Date.now() + options.waitMs;
  let told = false;
  for (;;) {
    try {
      return acquireLock(dataDir, kind);
    } catch (error) {
      if (!(error instanceof DataDirBusyError) || error.holder.kind === 'tool' || Date.now() >= deadline) throw error;
      if (!told) options.onWait?.(error.holder);
      told = true;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
