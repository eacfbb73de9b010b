import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/db/index.js';
import { migrate } from '../../src/db/migrate.js';
import type { TestDatabase } from './db.js';
import { freePort } from './ports.js';

/**
 * A PostgreSQL cluster of the test's own (initdb + pg_ctl on a free port in a temporary directory), so a test
 * may stop and start it without touching any other database. initdb refuses to run as root: as root the
 * cluster runs as the `postgres` system user.
 */
export interface OwnCluster {
  url: string;
  port: number;
  stop(): void;
  start(): void;
  /** As stop() and start(), without blocking the event loop (for a server in this process that keeps serving). */
  stopInBackground(): Promise<void>;
  startInBackground(): Promise<void>;
  /** Stops the server (if running) and removes its directory. */
  destroy(): void;
}

const BIN_ROOT = '/usr/lib/postgresql';

/** The directory holding initdb and pg_ctl (newest installed version), or undefined when there is none. */
export function postgresBinaries(): string | undefined {
  if (!existsSync(BIN_ROOT)) return undefined;
  const versions = readdirSync(BIN_ROOT)
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  return versions.map((version) => join(BIN_ROOT, version, 'bin')).find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')));
}

/** Why an own cluster cannot be made here, or undefined when it can. */
export function ownClusterUnavailable(): string | undefined {
  if (!postgresBinaries()) return `no PostgreSQL server binaries (initdb, pg_ctl) under ${BIN_ROOT}/*/bin: install postgresql`;
  if (process.getuid?.() === 0 && spawnSync('id', ['-u', 'postgres']).status !== 0) return 'running as root without a postgres system user for initdb';
  return undefined;
}

export async function startOwnCluster(): Promise<OwnCluster> {
  const bin = postgresBinaries();
  if (!bin) throw new Error('no PostgreSQL server binaries');
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'proctor-lti-pg-'));
  if (asRoot) execFileSync('chown', ['postgres:', dir]);
  else chownSync(dir, process.getuid?.() ?? 0, process.getgid?.() ?? 0);
  const run = (tool: string, args: string[]) => {
    const command = asRoot ? 'runuser' : join(bin, tool);
    const argv = asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args;
    execFileSync(command, argv, { stdio: ['ignore', 'ignore', 'pipe'], cwd: dir });
  };
  const runInBackground = async (tool: string, args: string[]) => {
    const command = asRoot ? 'runuser' : join(bin, tool);
    const argv = asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args;
    await promisify(execFile)(command, argv, { cwd: dir });
  };
  const data = join(dir, 'data');
  const port = await freePort();
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  let running = false;
  const cluster: OwnCluster = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start() {
      run('pg_ctl', ['-D', data, '-o', options, '-w', '-l', join(dir, 'log'), 'start']);
      running = true;
    },
    stop() {
      run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      running = false;
    },
    async stopInBackground() {
      await runInBackground('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      running = false;
    },
    async startInBackground() {
      await runInBackground('pg_ctl', ['-D', data, '-o', options, '-w', '-l', join(dir, 'log'), 'start']);
      running = true;
    },
    destroy() {
      try {
        if (running) cluster.stop();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  try {
    cluster.start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return cluster;
}

/** The cluster's `postgres` database with every migration applied, as the tool opens it (short connect timeout). */
export async function migratedClusterDatabase(cluster: OwnCluster, options: { connectTimeoutMs?: number; onError?: (err: Error) => void } = {}): Promise<TestDatabase> {
  const db = await openDatabase({ url: cluster.url, dataDir: 'memory', connectTimeoutMs: options.connectTimeoutMs ?? 1000, onError: options.onError ?? (() => {}) });
  await migrate(db);
  return Object.assign(db, { schema: undefined });
}
