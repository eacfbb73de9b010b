// An ENCRYPTION_KEY rotation as the operations guide describes it, under load: two tool processes (src/main.ts)
// on one PostgreSQL schema, restarted one at a time from `OLD` to `OLD,NEW`, then to `NEW,OLD`, then
// `proctor-lti encryption reencrypt`, then to `NEW`. A small balancer in this test sends each launch's id_token
// POST to the other replica than its login (the state cookie one replica signed is checked by the other), so
// that replicas with different key lists serve the two halves of one launch. No launch may fail at any step.
// The demo LMS and the Launch API emulator run in this process (the app in sandbox mode on the same schema).
// Needs PostgreSQL (DATABASE_URL); skipped with a message without it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { createApp, type App } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { createLogger } from '../../../src/logger.js';
import { openTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { httpCandidateLaunch } from '../../helpers/http-launch.js';
import { freePort } from '../../helpers/ports.js';
import { replicaEnv, startReplica, type Replica as ToolReplica } from '../../helpers/tool-process.js';
import { pace, waitFor } from '../../helpers/wait.js';
import { entryArgs } from '../../helpers/entry-args.js';

const OLD = 'rotation-old-key-0123456789-abcdefghijklmnopqrstuvwxyz';
const NEW = 'rotation-new-key-0123456789-abcdefghijklmnopqrstuvwxyz';
const CONCURRENCY = 4;
/** Each worker starts a launch at most this often: about thirteen launches a second. */
const LAUNCH_INTERVAL_MS = 300;
/** Replicas start and launches complete at the pace of a real deployment. */
const SLOW = { timeoutMs: 120_000, intervalMs: 50 };
const skip = process.env.DATABASE_URL ? false : 'needs PostgreSQL: set DATABASE_URL (two tool processes share one database)';

interface Replica extends ToolReplica<'r1' | 'r2'> {
  keys: string;
  up: boolean;
  active: number;
}

describe('an ENCRYPTION_KEY rotation with a rolling restart of two replicas under load', { skip, timeout: 900_000 }, () => {
  let db: TestDatabase;
  let balancerUrl: string;
  let balancer: Server;
  let lms: { app?: App; server: Server; port: number };
  const replicas: Replica[] = [];

  // No lame duck: this test's balancer takes a replica out itself before stopping it, so a lame duck, which gives a
  // balancer's health checks time to notice (the rolling-restart tests), would only add ten seconds per restart.
  const env = (replica: Replica) => ({
    ...replicaEnv({ port: replica.port, publicUrl: balancerUrl, schema: db.schema, proctoringBaseUrl: `http://127.0.0.1:${lms.port}/sandbox/proctoring`, encryptionKey: replica.keys, logLevel: 'warn' }),
    SHUTDOWN_DELAY_SECONDS: '0',
  });

  const ready = async (replica: Replica) => (await fetch(`http://127.0.0.1:${replica.port}/readyz`, { signal: AbortSignal.timeout(2000) })).ok;

  // Which replica answered each login, by the state its state cookie names: the id_token POST of that state goes to the other one.
  const loginServedBy = new Map<string, Replica>();
  let turn = 0;
  const pick = (avoid?: Replica): Replica => {
    const up = replicas.filter((replica) => replica.up);
    if (up.length === 0) throw new Error('no replica up');
    const other = avoid ? up.find((replica) => replica !== avoid) : undefined;
    return other ?? (up[turn++ % up.length] as Replica);
  };

  function forward(req: IncomingMessage, res: ServerResponse, body: Buffer, target: { port: number; name: string }, onResponse?: (answer: IncomingMessage) => void, done?: () => void): void {
    const upstream = request(
      // A new connection per request, as HAProxy's `http-server-close`: no reuse of a connection a replica is closing.
      { host: '127.0.0.1', port: target.port, agent: false, method: req.method, path: req.url, headers: { ...req.headers, 'x-forwarded-for': '127.0.0.1', 'content-length': String(body.length) } },
      (answer) => {
        onResponse?.(answer);
        res.writeHead(answer.statusCode ?? 502, { ...answer.headers, 'x-served-by': target.name });
        answer.pipe(res);
        answer.once('end', () => done?.());
      },
    );
    upstream.once('error', (error) => {
      done?.();
      if (!res.headersSent) res.writeHead(502, { 'x-served-by': target.name }).end(`balancer: ${error.message}`);
    });
    upstream.end(body);
  }

  before(async () => {
    db = await openTestDatabase();
    balancer = createServer();
    // Longer than the clients' idle connections, so that the balancer never closes one a client is reusing.
    balancer.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve) => balancer.listen(0, '127.0.0.1', resolve));
    balancerUrl = `http://127.0.0.1:${(balancer.address() as { port: number }).port}`;
    const lmsServer = createServer();
    await new Promise<void>((resolve) => lmsServer.listen(0, '127.0.0.1', resolve));
    lms = { server: lmsServer, port: (lmsServer.address() as { port: number }).port };

    balancer.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        if (req.url?.startsWith('/sandbox/')) {
          forward(req, res, body, { port: lms.port, name: 'lms' });
          return;
        }
        const state = req.method === 'POST' && req.url === '/lti/launch' ? new URLSearchParams(body.toString('utf8')).get('state') : null;
        let replica: Replica;
        try {
          replica = pick(state ? loginServedBy.get(state) : undefined);
        } catch {
          res.writeHead(503).end('balancer: no replica up');
          return;
        }
        if (state) loginServedBy.delete(state);
        replica.active++;
        forward(
          req,
          res,
          body,
          replica,
          (answer) => {
            for (const cookie of answer.headers['set-cookie'] ?? []) {
              const named = /^state([^=]+)=[^;]/.exec(cookie);
              if (named?.[1]) loginServedBy.set(named[1], replica);
            }
          },
          () => replica.active--,
        );
      });
    });

    for (const name of ['r1', 'r2'] as const) replicas.push({ name, port: await freePort(), keys: OLD, up: false, active: 0, log: [] });
    for (const replica of replicas) {
      startReplica(replica, env(replica));
      await waitFor(`replica ${replica.name} ready`, () => ready(replica), SLOW);
      replica.up = true;
    }
    // The LMS side lists both keys: it starts on the database the replicas encrypted with OLD and outlives the rotation.
    lms.app = await createApp({
      config: loadConfig({ NODE_ENV: 'development', SANDBOX: '1', PORT: String(lms.port), PUBLIC_URL: balancerUrl, LOG_LEVEL: 'silent', TRUST_PROXY_HOPS: '1' }),
      db,
      logger: createLogger('silent'),
      encryptionKey: OLD,
      olderEncryptionKeys: [NEW],
    });
    lmsServer.on('request', lms.app.app);
  });

  after(async () => {
    for (const replica of replicas) replica.process?.kill('SIGKILL');
    await Promise.all(replicas.map((replica) => replica.exited));
    balancer?.closeAllConnections();
    await new Promise<void>((resolve) => (balancer ? balancer.close(() => resolve()) : resolve()));
    lms?.server.closeAllConnections();
    await new Promise<void>((resolve) => (lms ? lms.server.close(() => resolve()) : resolve()));
    await lms?.app?.close();
    await db?.close();
  });

  it('loses no launch at any step: OLD,NEW → NEW,OLD → encryption reencrypt → NEW', async (t) => {
    const demo = lms.app!.sandbox!.demoLms;
    const label = (keys: string) => keys.replace(OLD, 'OLD').replace(NEW, 'NEW');
    const phaseOf = () => replicas.map((replica) => `${replica.name}=${replica.up ? label(replica.keys) : 'down'}`).join(' ');
    const failures: string[] = [];
    const crossed = new Map<string, number>();
    let stopped = false;
    let completed = 0;

    const worker = async () => {
      const nextLaunch = pace(LAUNCH_INTERVAL_MS);
      while (!stopped) {
        await nextLaunch();
        if (stopped) break;
        const during = phaseOf();
        try {
          const login = await demo.initiateLogin({ user: 'student', presentation: 'window' });
          const { proctoringUrl, steps } = await httpCandidateLaunch(balancerUrl, { login, timeoutMs: 60_000 });
          if (!proctoringUrl.startsWith(`${balancerUrl}/sandbox/proctoring/`)) failures.push(`${during}: ended at ${proctoringUrl}`);
          const tool = steps.filter((step) => step.servedBy !== 'lms').map((step) => step.servedBy);
          const key = `${phaseOf()} ${tool.join('→')}`;
          if (tool.length === 2 && tool[0] !== tool[1] && key.startsWith(during)) crossed.set(key, (crossed.get(key) ?? 0) + 1);
          completed++;
        } catch (error) {
          failures.push(`${during}: ${(error as Error).message}`);
        }
      }
    };
    const launchesWhile = async (what: string, count = 6) => {
      const target = completed + count;
      await waitFor(`${count} launches ${what}`, () => completed >= target, SLOW);
    };

    const restartWith = async (replica: Replica, keys: string) => {
      replica.up = false;
      await waitFor(`${replica.name} idle`, () => replica.active === 0, { timeoutMs: 30_000, intervalMs: 50 });
      replica.process!.kill('SIGTERM');
      assert.equal(await replica.exited, 0, `${replica.name} exits 0 on SIGTERM`);
      await launchesWhile(`while ${replica.name} is down`, 3);
      replica.keys = keys;
      startReplica(replica, env(replica));
      await waitFor(`${replica.name} ready with ${label(keys)}`, () => ready(replica), SLOW);
      replica.up = true;
      // Launches run with these key lists until their halves have crossed between the replicas both ways.
      const now = phaseOf();
      await waitFor(`launches crossing both ways with ${now}`, () => (crossed.get(`${now} r1→r2`) ?? 0) >= 2 && (crossed.get(`${now} r2→r1`) ?? 0) >= 2, { timeoutMs: 180_000, intervalMs: 50 });
    };
    const rollingRestart = async (keys: string) => {
      for (const replica of replicas) await restartWith(replica, keys);
    };
    const reencrypt = async () => {
      const cli = spawn(process.execPath, [...entryArgs('src/cli/index.ts'), 'encryption', 'reencrypt'], {
        env: { PATH: process.env.PATH ?? '', NODE_ENV: 'development', DATABASE_URL: process.env.DATABASE_URL, DATABASE_SCHEMA: db.schema, ENCRYPTION_KEY: `${NEW},${OLD}`, PUBLIC_URL: balancerUrl },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      cli.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      cli.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => cli.once('exit', resolve));
      assert.equal(code, 0, `encryption reencrypt: ${output}`);
      assert.match(output, /Re-encrypted with the newest key: \d+ LTI key and token document\(s\), \d+ proctoring account\(s\), [1-9]\d* installation secret\(s\)/);
      return output;
    };

    const workers = Array.from({ length: CONCURRENCY }, worker);
    try {
      await launchesWhile('before the rotation');
      await rollingRestart(`${OLD},${NEW}`);
      await rollingRestart(`${NEW},${OLD}`);
      const output = await reencrypt();
      t.diagnostic(output.trim());
      await launchesWhile('after the re-encryption');
      await rollingRestart(NEW);
    } finally {
      stopped = true;
      await Promise.all(workers);
    }
    t.diagnostic(`${completed} launches; login and id_token POST on different replicas, by key lists: ${JSON.stringify(Object.fromEntries(crossed))}`);

    assert.deepEqual(failures, [], 'every launch reached the proctoring service');
    // The mixed steps really ran with the two halves of launches on replicas of different key lists, both ways.
    for (const mixed of ['r1=NEW,OLD r2=OLD,NEW r1→r2', 'r1=NEW,OLD r2=OLD,NEW r2→r1', 'r1=NEW r2=NEW,OLD r1→r2', 'r1=NEW r2=NEW,OLD r2→r1']) {
      assert.ok((crossed.get(mixed) ?? 0) > 0, `launches crossed replicas with ${mixed}`);
    }
    const check = await db.query<{ sealed: string }>("SELECT sealed FROM app_secrets WHERE name = 'encryption-check'");
    assert.equal(check.rows.length, 1);
    for (const replica of replicas) assert.ok(!replica.log.some((line) => /"level":(50|60)/.test(line)), `${replica.name} logged no error: ${replica.log.filter((line) => /"level":(50|60)/.test(line)).join('\n')}`);
  });
});
