// Two replicas (src/main.ts, default shutdown settings) on one PostgreSQL schema behind a load balancer that
// knows nothing but its health checks: each replica is stopped with SIGTERM alone, as Docker or a host's service
// manager does, and started again, one at a time, while launches keep coming through the balancer. The demo LMS
// and the Launch API emulator run in the test process (the app in sandbox mode on the same schema), behind
// /sandbox/ of the same balancer.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { TestContext } from 'node:test';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { TEST_ENCRYPTION_KEY } from './app.js';
import { openTestDatabase, type TestDatabase } from './db.js';
import { httpCandidateLaunch } from './http-launch.js';
import { freePort } from './ports.js';
import { replicaEnv, startReplica, type Replica } from './tool-process.js';
import { pace, waitFor } from './wait.js';

export interface ReplicaAddress {
  name: string;
  port: number;
}

export interface Balancer {
  /** What the balancer printed, for a failure's diagnostics. */
  output?(): string;
  stop(): Promise<void>;
}

export interface RollingRestartSetup {
  /** Starts the balancer on lbPort: /sandbox/ to the LMS at lmsPort, everything else to the replicas. */
  startBalancer(lbPort: number, lmsPort: number, replicas: readonly ReplicaAddress[]): Promise<Balancer>;
}

const WORKERS = 4;
/** Each worker starts a launch at most this often: about ten launches a second through the balancer. */
const LAUNCH_INTERVAL_MS = 400;
/** Replicas start and rejoin the balancer at the pace of a real deployment. */
const SLOW = { timeoutMs: 120_000, intervalMs: 100 };

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

  // Shutdown settings stay at their defaults: they are what is tested.
  const env = (replica: Replica) => replicaEnv({ port: replica.port, publicUrl: lbUrl, schema: db.schema, proctoringBaseUrl: `${lbUrl}/sandbox/proctoring`, encryptionKey: TEST_ENCRYPTION_KEY });
  const answers = (url: string) => fetch(url, { signal: AbortSignal.timeout(2000) }).then((response) => response.ok);

  try {
    for (const replica of replicas) startReplica(replica, env(replica));
    for (const replica of replicas) await waitFor(`${replica.name} ready`, () => answers(`http://127.0.0.1:${replica.port}/readyz`), SLOW);
    lms = await createApp({
      config: loadConfig({ NODE_ENV: 'development', SANDBOX: '1', PORT: String(lbPort), PUBLIC_URL: lbUrl, LOG_LEVEL: 'silent', TRUST_PROXY_HOPS: '1' }),
      db,
      logger: createLogger('silent'),
      encryptionKey: TEST_ENCRYPTION_KEY,
    });
    lmsServer.on('request', lms.app);
    balancer = await setup.startBalancer(lbPort, lmsPort, replicas);
    await waitFor('the balancer answering', () => answers(`${lbUrl}/healthz`), { timeoutMs: 30_000, intervalMs: 100 });

    const demo = lms.sandbox!.demoLms;
    demo.setClass({ classSize: 2000 });
    const students = demo.members().filter((member) => member.status === 'Active' && Number(member.id) >= 100);
    let next = 0;
    let stopping = false;
    let completed = 0;
    const failures: string[] = [];
    // Each failure says when it came and what the replicas were doing then.
    const loadStarted = performance.now();
    let phase = 'both replicas up';
    const when = () => `${((performance.now() - loadStarted) / 1000).toFixed(1)} s, ${phase}`;
    const worker = async () => {
      const nextLaunch = pace(LAUNCH_INTERVAL_MS);
      while (!stopping) {
        await nextLaunch();
        if (stopping) break;
        const student = students[next++ % students.length]!;
        try {
          const login = await demo.initiateLogin({ member: student.id, presentation: 'window' });
          const { proctoringUrl } = await httpCandidateLaunch(lbUrl, { login, timeoutMs: 60_000 });
          if (!proctoringUrl.startsWith(`${lbUrl}/sandbox/proctoring/`)) failures.push(`${student.id} (${when()}): ended at ${proctoringUrl}`);
          else completed++;
        } catch (error) {
          failures.push(`${student.id} (${when()}): ${(error as Error).message}`);
        }
      }
    };
    // Both replicas serve launches through the balancer before the first restart.
    const load = Array.from({ length: WORKERS }, worker);
    for (const replica of replicas) await waitFor(`${replica.name} serving through the balancer`, () => launchesServedBy(replica) > 0, SLOW);

    const timings: string[] = [];
    for (const replica of replicas) {
      const before = completed;
      const stoppedAt = performance.now();
      phase = `${replica.name} stopping`;
      replica.process!.kill('SIGTERM');
      assert.equal(await replica.exited, 0, `${replica.name} exits 0 on SIGTERM:\n${replica.log.slice(-5).join('\n')}`);
      const stopMs = performance.now() - stoppedAt;
      replica.log.length = 0;
      phase = `${replica.name} starting again`;
      startReplica(replica, env(replica));
      await waitFor(`${replica.name} serving through the balancer again`, () => launchesServedBy(replica) > 0, { timeoutMs: 180_000, intervalMs: 100 });
      phase = 'both replicas up';
      timings.push(`${replica.name}: stopped in ${(stopMs / 1000).toFixed(1)} s, ${completed - before} launches completed until it served again`);
    }
    stopping = true;
    await Promise.all(load);
    t.diagnostic(`${completed} launches, ${failures.length} failed; ${timings.join('; ')}`);
    if (failures.length > 0 && balancer.output) t.diagnostic(`the balancer printed:\n${balancer.output().split('\n').slice(-60).join('\n')}`);
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
