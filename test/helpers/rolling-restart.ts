// Two replicas (src/main.ts, default shutdown settings) on one PostgreSQL schema behind a load balancer that
// knows nothing but its health checks: each replica is stopped with SIGTERM alone, as Docker or a host's service
// manager does, and started again, one at a time, while launches keep coming through the balancer. The demo LMS
// and the Launch API emulator run in the test process (the app in sandbox mode on the same schema), behind
// /sandbox/ of the same balancer.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { TestContext } from 'node:test';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { SANDBOX_ACCOUNT } from '../../src/sandbox/index.js';
import { TEST_ENCRYPTION_KEY } from './app.js';
import { openTestDatabase, type TestDatabase } from './db.js';
import { httpCandidateLaunch } from './http-launch.js';
import { freePort } from './ports.js';

export interface ReplicaAddress {
  name: string;
  port: number;
}

export interface Balancer {
  stop(): Promise<void>;
}

export interface RollingRestartSetup {
  /** Starts the balancer on lbPort: /sandbox/ to the LMS at lmsPort, everything else to the replicas. */
  startBalancer(lbPort: number, lmsPort: number, replicas: readonly ReplicaAddress[]): Promise<Balancer>;
}

interface Replica extends ReplicaAddress {
  process?: ChildProcess;
  exited?: Promise<number | null>;
  log: string[];
}

const WORKERS = 4;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await Promise.resolve(check()).catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await sleep(100);
  }
}

const launchesServedBy = (replica: Replica) => replica.log.filter((line) => line.includes('"msg":"launch redirected"')).length;

/**
 * Runs the scenario and asserts that no launch failed. Returns what it measured, for the test's diagnostics.
 */
export async function rollingRestartUnderLoad(t: TestContext, setup: RollingRestartSetup): Promise<void> {
  const db: TestDatabase = await openTestDatabase();
  const lbPort = await freePort();
  const lbUrl = `http://127.0.0.1:${lbPort}`;
  const replicas: Replica[] = [];
  for (const name of ['tool1', 'tool2']) replicas.push({ name, port: await freePort(), log: [] });
  const lmsServer: Server = createServer();
  await new Promise<void>((resolve) => lmsServer.listen(0, '127.0.0.1', resolve));
  const lmsPort = (lmsServer.address() as { port: number }).port;
  let lms: App | undefined;
  let balancer: Balancer | undefined;

  const startReplica = (replica: Replica) => {
    replica.log.length = 0;
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      // Shutdown settings stay at their defaults: they are what is tested.
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'development',
        PORT: String(replica.port),
        PUBLIC_URL: lbUrl,
        DATABASE_URL: process.env.DATABASE_URL,
        DATABASE_SCHEMA: db.schema,
        ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
        PROCTORING_BASE_URL: `${lbUrl}/sandbox/proctoring`,
        PROCTORING_REGION: SANDBOX_ACCOUNT.region,
        PROCTORING_CONSUMER_KEY: SANDBOX_ACCOUNT.consumerKey,
        PROCTORING_SECRET: SANDBOX_ACCOUNT.secret,
        TRUST_PROXY_HOPS: '1',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const collect = (chunk: Buffer) => replica.log.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    replica.process = child;
    replica.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  };
  const answers = (url: string) => fetch(url, { signal: AbortSignal.timeout(2000) }).then((response) => response.ok);

  try {
    for (const replica of replicas) startReplica(replica);
    for (const replica of replicas) await waitFor(`${replica.name} ready`, () => answers(`http://127.0.0.1:${replica.port}/readyz`));
    lms = await createApp({
      config: loadConfig({ NODE_ENV: 'development', SANDBOX: '1', PORT: String(lbPort), PUBLIC_URL: lbUrl, LOG_LEVEL: 'silent', TRUST_PROXY_HOPS: '1' }),
      db,
      logger: createLogger('silent'),
      encryptionKey: TEST_ENCRYPTION_KEY,
    });
    lmsServer.on('request', lms.app);
    balancer = await setup.startBalancer(lbPort, lmsPort, replicas);
    await waitFor('the balancer answering', () => answers(`${lbUrl}/healthz`), 30_000);

    const demo = lms.sandbox!.demoLms;
    demo.setClass({ classSize: 2000 });
    const students = demo.members().filter((member) => member.status === 'Active' && Number(member.id) >= 100);
    let next = 0;
    let stopping = false;
    let completed = 0;
    const failures: string[] = [];
    const worker = async () => {
      while (!stopping) {
        const student = students[next++ % students.length]!;
        try {
          const login = await demo.initiateLogin({ member: student.id, presentation: 'window' });
          const { proctoringUrl } = await httpCandidateLaunch(lbUrl, { login, timeoutMs: 60_000 });
          if (!proctoringUrl.startsWith(`${lbUrl}/sandbox/proctoring/`)) failures.push(`${student.id}: ended at ${proctoringUrl}`);
          else completed++;
        } catch (error) {
          failures.push(`${student.id}: ${(error as Error).message}`);
        }
      }
    };
    // Both replicas serve launches through the balancer before the first restart.
    const load = Array.from({ length: WORKERS }, worker);
    for (const replica of replicas) await waitFor(`${replica.name} serving through the balancer`, () => launchesServedBy(replica) > 0);

    const timings: string[] = [];
    for (const replica of replicas) {
      const before = completed;
      const stoppedAt = performance.now();
      replica.process!.kill('SIGTERM');
      assert.equal(await replica.exited, 0, `${replica.name} exits 0 on SIGTERM:\n${replica.log.slice(-5).join('\n')}`);
      const stopMs = performance.now() - stoppedAt;
      startReplica(replica);
      await waitFor(`${replica.name} serving through the balancer again`, () => launchesServedBy(replica) > 0, 180_000);
      timings.push(`${replica.name}: stopped in ${(stopMs / 1000).toFixed(1)} s, ${completed - before} launches completed until it served again`);
    }
    stopping = true;
    await Promise.all(load);
    t.diagnostic(`${completed} launches, ${failures.length} failed; ${timings.join('; ')}`);
    assert.deepEqual(failures, [], 'every launch reached the proctoring service');
    assert.ok(completed > 20, `launches ran throughout (${completed})`);
  } finally {
    for (const replica of replicas) replica.process?.kill('SIGKILL');
    await Promise.all(replicas.map((replica) => replica.exited));
    await balancer?.stop();
    lmsServer.closeAllConnections();
    await new Promise<void>((resolve) => lmsServer.close(() => resolve()));
    await lms?.close();
    await db.close();
  }
}

/** Why the scenario cannot run here, or false. */
export function rollingRestartSkip(balancer: string, present: boolean): string | false {
  if (!process.env.DATABASE_URL) return 'needs PostgreSQL: set DATABASE_URL (the replicas share one database)';
  if (!present) return `${balancer} is not installed (apt-get install ${balancer}): the rolling restart behind it is not tested`;
  return false;
}
