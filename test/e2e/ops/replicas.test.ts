// Several replicas proven on one machine: three tool processes (src/main.ts) on one PostgreSQL schema behind
// HAProxy from Debian (round robin, no stickiness, on loopback). One LMS and one Launch API emulator serve
// all replicas: this test process runs them (the app in sandbox mode on the same schema, which registers the
// demo LMS and its exam there), and HAProxy sends /sandbox/* to it. HAProxy names the server of every answer
// in X-Served-By, so each launch shows which replica served each step.
// Needs PostgreSQL (DATABASE_URL) and haproxy; skipped with a message without either.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createApp, type App } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { createLogger } from '../../../src/logger.js';
import { TEST_ENCRYPTION_KEY } from '../../helpers/app.js';
import { openTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { httpCandidateLaunch, type LaunchStep } from '../../helpers/http-launch.js';
import { freePort } from '../../helpers/ports.js';
import { replicaEnv, startReplica, type Replica as ToolReplica } from '../../helpers/tool-process.js';
import { sleep, waitFor } from '../../helpers/wait.js';

const REPLICAS = ['r1', 'r2', 'r3'] as const;
const BURST = 300;
const BURST_CONCURRENCY = 8;
const haproxyPresent = spawnSync('haproxy', ['-v'], { encoding: 'utf8' }).status === 0;
const skip = !process.env.DATABASE_URL
  ? 'needs PostgreSQL: set DATABASE_URL (replicas share one database)'
  : !haproxyPresent
    ? 'haproxy is not installed (apt-get install haproxy): replicas are not tested'
    : false;

/** Replicas start, drain and rejoin the balancer at the pace of a real deployment. */
const SLOW = { timeoutMs: 120_000, intervalMs: 100 };

const answers = (url: string) => fetch(url, { signal: AbortSignal.timeout(2000) }).then((r) => r.ok);

type Replica = ToolReplica<(typeof REPLICAS)[number]>;

describe('replicas behind a load balancer', { skip }, () => {
  let db: TestDatabase;
  let folder: string;
  let lbUrl: string;
  let lms: { app: App; server: Server; port: number };
  let haproxy: ChildProcess;
  let adminSocket: string;
  const replicas: Replica[] = [];

  const env = (replica: Replica) =>
    replicaEnv({ port: replica.port, publicUrl: lbUrl, schema: db.schema, proctoringBaseUrl: `http://127.0.0.1:${lms.port}/sandbox/proctoring`, encryptionKey: TEST_ENCRYPTION_KEY });

  /** One command on HAProxy's admin socket; its answer. */
  const haproxyCommand = (command: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(adminSocket);
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk.toString('utf8')));
      socket.on('end', () => resolve(answer));
      socket.on('error', reject);
      socket.write(`${command}\n`);
    });
  /** Connections HAProxy has open to a server (its `scur`). */
  const activeSessions = async (name: string) => {
    const csv = await haproxyCommand('show stat');
    const header = csv.split('\n')[0]!.replace(/^# /, '').split(',');
    const row = csv.split('\n').find((line) => line.startsWith(`tools,${name},`));
    return Number(row?.split(',')[header.indexOf('scur')] ?? 0);
  };

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'proctor-lti-replicas-'));
    db = await openTestDatabase();
    const lbPort = await freePort();
    lbUrl = `http://127.0.0.1:${lbPort}`;
    for (const name of REPLICAS) replicas.push({ name, port: await freePort(), log: [] });

    // The shared LMS and Launch API emulator: the app in sandbox mode, in this process, behind /sandbox/ of the balancer.
    const lmsServer = createServer();
    await new Promise<void>((resolve) => lmsServer.listen(0, '127.0.0.1', resolve));
    const lmsPort = (lmsServer.address() as { port: number }).port;
    lms = { app: undefined as unknown as App, server: lmsServer, port: lmsPort };

    adminSocket = join(folder, 'haproxy.sock');
    const config = join(folder, 'haproxy.cfg');
    writeFileSync(
      config,
      `global
  maxconn 4096
  stats socket ${adminSocket} mode 600 level admin
defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  # A replica busy with a burst answers its health check late: that is not down.
  timeout check 5s
  # A connection refused or closed without an answer (a replica stopping) is retried on another replica.
  retries 3
  option redispatch 1
  retry-on conn-failure empty-response
  option http-server-close
  option forwardfor
frontend web
  bind 127.0.0.1:${lbPort}
  use_backend lms if { path_beg /sandbox/ }
  default_backend tools
backend lms
  http-response set-header X-Served-By lms
  server lms 127.0.0.1:${lmsPort}
backend tools
  balance roundrobin
  option httpchk GET /readyz
  http-response set-header X-Served-By %[srv_name]
${replicas.map((r) => `  server ${r.name} 127.0.0.1:${r.port} check inter 500 fall 3 rise 1`).join('\n')}
`,
    );
    const checked = spawnSync('haproxy', ['-c', '-f', config], { encoding: 'utf8' });
    assert.equal(checked.status, 0, `haproxy -c: ${checked.stdout}${checked.stderr}`);

    // The three replicas start together on an empty schema: each runs the migrations at start-up.
    for (const replica of replicas) startReplica(replica, env(replica));
    for (const replica of replicas) await waitFor(`replica ${replica.name} ready`, () => answers(`http://127.0.0.1:${replica.port}/readyz`), SLOW);

    lms.app = await createApp({
      config: loadConfig({ NODE_ENV: 'development', SANDBOX: '1', PORT: String(lbPort), PUBLIC_URL: lbUrl, LOG_LEVEL: 'silent', TRUST_PROXY_HOPS: '1' }),
      db,
      logger: createLogger('silent'),
      encryptionKey: TEST_ENCRYPTION_KEY,
    });
    lmsServer.on('request', lms.app.app);

    haproxy = spawn('haproxy', ['-f', config, '-db'], { stdio: ['ignore', 'ignore', 'pipe'] });
    await waitFor('the load balancer with every replica up', async () => {
      const stat = await haproxyCommand('show stat');
      return REPLICAS.every((name) => stat.split('\n').some((line) => line.startsWith(`tools,${name},`) && line.includes(',UP,')));
    }, SLOW);
  });

  after(async () => {
    haproxy?.kill('SIGTERM');
    for (const replica of replicas) replica.process?.kill('SIGKILL');
    await Promise.all(replicas.map((replica) => replica.exited));
    lms?.server.closeAllConnections();
    await new Promise<void>((resolve) => (lms ? lms.server.close(() => resolve()) : resolve()));
    await lms?.app?.close();
    await db?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('runs the migrations once when the replicas start together', async () => {
    const applied = replicas.filter((replica) => replica.log.some((line) => line.includes('database migrations applied')));
    assert.equal(applied.length, 1, `replicas that applied migrations: ${applied.map((r) => r.name).join(', ') || 'none'}`);
    const rows = await db.query<{ name: string }>('SELECT name FROM schema_migrations');
    assert.ok(rows.rows.length > 0);
    assert.equal(new Set(rows.rows.map((row) => row.name)).size, rows.rows.length, 'each migration recorded once');
  });

  it('serves launches whose login and id_token POST land on different replicas', async (t) => {
    const demo = lms.app.sandbox!.demoLms;
    const table: string[] = [];
    // The student has seen the exam's privacy notice (a first launch in a window shows it): each launch below is two tool steps.
    await httpCandidateLaunch(lbUrl, { login: await demo.initiateLogin({ user: 'student', presentation: 'window' }) });
    for (let n = 0; n < 6; n++) {
      const login = await demo.initiateLogin({ user: 'student', presentation: 'window' });
      const { proctoringUrl, steps } = await httpCandidateLaunch(lbUrl, { login });
      assert.ok(proctoringUrl.startsWith(`${lbUrl}/sandbox/proctoring/`), proctoringUrl);
      const toolSteps = steps.filter((step) => step.servedBy !== 'lms');
      assert.equal(toolSteps.length, 2, 'login and id_token POST: the POST is answered with the proctoring URL');
      assert.equal(new Set(toolSteps.map((step) => step.servedBy)).size, 2, `each tool step on another replica: ${JSON.stringify(toolSteps)}`);
      table.push(steps.map((step: LaunchStep) => `${step.method} ${step.path} ${step.status} @${step.servedBy}`).join('  →  '));
    }
    for (const row of table) t.diagnostic(row);
  });

  it(`loses no launch and no attempt record while the replicas restart one by one during a ${BURST}-launch burst`, async (t) => {
    const demo = lms.app.sandbox!.demoLms;
    // Generated learners (ids from 100 up; one in fifteen is inactive), each a student of their own.
    demo.setClass({ classSize: BURST + 30 });
    const students = demo.members().filter((member) => member.status === 'Active' && Number(member.id) >= 100).slice(0, BURST);
    assert.equal(students.length, BURST, 'enough generated learners');
    const emulator = lms.app.sandbox!.emulator;
    const receivedBefore = emulator.received.length;

    let next = 0;
    let inFlight = 0;
    const failures: string[] = [];
    const servedBy = new Map<string, number>();
    const launchesDuringRestart = new Map<string, number>();
    let restarting: string | undefined;
    // The burst is paced so that it cannot end before the last restart: each restart that starts releases the
    // next share of students (before the first restart, one share), and a stopped replica is not started again
    // before launches completed while it was down. On a busy machine a restart takes longer than a whole burst.
    const share = Math.ceil(BURST / (replicas.length + 1));
    let restartsStarted = 0;
    const released = () => Math.min(students.length, (restartsStarted + 1) * share);
    const worker = async () => {
      while (next < students.length) {
        if (next >= released()) {
          await sleep(20);
          continue;
        }
        const student = students[next++]!;
        inFlight++;
        try {
          const login = await demo.initiateLogin({ member: student.id, presentation: 'window' });
          const { proctoringUrl, steps } = await httpCandidateLaunch(lbUrl, { login, timeoutMs: 60_000 });
          if (!proctoringUrl.startsWith(`${lbUrl}/sandbox/proctoring/`)) failures.push(`${student.id}: ended at ${proctoringUrl}`);
          for (const step of steps) servedBy.set(step.servedBy ?? '?', (servedBy.get(step.servedBy ?? '?') ?? 0) + 1);
          if (restarting) launchesDuringRestart.set(restarting, (launchesDuringRestart.get(restarting) ?? 0) + 1);
        } catch (error) {
          failures.push(`${student.id}: ${(error as Error).message}`);
        } finally {
          inFlight--;
        }
      }
    };

    // A rolling restart as an orchestrator does it: take the replica out of the balancer, let its requests
    // finish, stop it with SIGTERM, start it again, put it back when it is ready.
    const rollingRestart = async () => {
      await waitFor('the burst under way', async () => next >= 20, SLOW);
      for (const replica of replicas) {
        restarting = replica.name;
        restartsStarted++;
        await haproxyCommand(`set server tools/${replica.name} state drain`);
        await waitFor(`${replica.name} drained`, async () => (await activeSessions(replica.name)) === 0, { timeoutMs: 30_000, intervalMs: 100 });
        replica.process!.kill('SIGTERM');
        const code = await replica.exited;
        assert.equal(code, 0, `${replica.name} exits 0 on SIGTERM`);
        // The others carry the burst while this one is stopped.
        await waitFor(`launches completed while ${replica.name} was stopped`, async () => (launchesDuringRestart.get(replica.name) ?? 0) >= 3, { timeoutMs: 60_000, intervalMs: 100 });
        startReplica(replica, env(replica));
        await waitFor(`${replica.name} ready again`, () => answers(`http://127.0.0.1:${replica.port}/readyz`), SLOW);
        await haproxyCommand(`set server tools/${replica.name} state ready`);
        await waitFor(`${replica.name} back in the balancer`, async () => (await haproxyCommand('show stat')).split('\n').some((line) => line.startsWith(`tools,${replica.name},`) && line.includes(',UP,')), SLOW);
        restarting = undefined;
      }
    };

    const started = performance.now();
    const restart = rollingRestart();
    await Promise.all([...Array.from({ length: BURST_CONCURRENCY }, worker), restart]);
    const seconds = (performance.now() - started) / 1000;
    t.diagnostic(`${BURST} launches in ${seconds.toFixed(1)} s with a rolling restart of ${replicas.length} replicas; answers per server: ${JSON.stringify(Object.fromEntries(servedBy))}; launches completed while each replica restarted: ${JSON.stringify(Object.fromEntries(launchesDuringRestart))}`);

    assert.deepEqual(failures, [], 'every launch reached the proctoring service');
    for (const replica of replicas) assert.ok((launchesDuringRestart.get(replica.name) ?? 0) > 0, `launches ran while ${replica.name} restarted`);
    for (const replica of replicas) assert.ok((servedBy.get(replica.name) ?? 0) > 0, `${replica.name} served launches`);

    // Every candidate launch the emulator received names an attempt the database holds, one per student.
    const calls = emulator.received.slice(receivedBefore).filter((call) => call.endpoint === '/v2/candidate/launch' && call.status === 200);
    assert.equal(calls.length, BURST);
    const attemptIds = calls.map((call) => (call.body as { attempt_id?: string }).attempt_id);
    assert.equal(new Set(attemptIds).size, BURST, 'one attempt per student');
    const stored = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM attempts WHERE id = ANY($1)', [attemptIds]);
    assert.equal(stored.rows[0]!.count, BURST, 'every attempt the proctoring service was told about is recorded');
    assert.equal(inFlight, 0);
  });
});
