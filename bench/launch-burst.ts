// Class-start burst benchmark: N students of the demo class each run a full candidate launch at the same
// moment (OIDC login initiation → the demo LMS's /auth → id_token form post, answered with a 302 to the
// Launch API emulator), then one student launches the exam M times at once from one browser (double
// clicks, several tabs: one cookie jar). The real app runs in sandbox mode on a real port of this process,
// on embedded PGlite in a temporary DATA_DIR, or on PostgreSQL in a throwaway schema when DATABASE_URL is
// set. The demo LMS and the emulator run in the same process: their work (signing id_tokens, answering the
// Launch API) is counted against the tool's CPU, so the figures are conservative.
// Usage: npm run bench:launch [-- --students 200 --same-user 50 --backlog 4096 --upstream-delay-ms 0]
// The class-start burst: npm run bench:launch -- --students 1000 --upstream-delay-ms 50 (with and without DATABASE_URL).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent } from 'undici';
import { createApp, LISTEN_BACKLOG } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/index.js';
import { migrate } from '../src/db/migrate.js';
import { createLogger } from '../src/logger.js';
import type { DemoLms, LoginInitiation } from '../src/sandbox/demo-lms/index.js';
import type { ReceivedRequest } from '../src/sandbox/emulator/index.js';
import { browserLaunch, CookieJar, type LaunchFailure, median, mib, ms, percentile } from './flow.js';

const { values } = parseArgs({
  options: {
    students: { type: 'string', default: '200' },
    'same-user': { type: 'string', default: '50' },
    // Node's default, as src/main.ts listens: a burst of more new connections than this overflows the accept queue.
    backlog: { type: 'string', default: String(LISTEN_BACKLOG) },
    // Each Launch API call answered this much later, as a real service across a network would.
    'upstream-delay-ms': { type: 'string', default: '0' },
  },
});
const STUDENTS = Number(values.students);
const SAME_USER = Number(values['same-user']);
const BACKLOG = Number(values.backlog);
const UPSTREAM_DELAY_MS = Number(values['upstream-delay-ms']);
if (!Number.isInteger(UPSTREAM_DELAY_MS) || UPSTREAM_DELAY_MS < 0) throw new Error('--upstream-delay-ms must be a non-negative integer');
for (const [name, value] of [['--students', STUDENTS], ['--same-user', SAME_USER], ['--backlog', BACKLOG]] as const) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
}

const CANDIDATE_ENDPOINT = '/v2/candidate/launch';

const p95 = (samples: readonly number[]) => percentile(samples, 95);
const p99 = (samples: readonly number[]) => percentile(samples, 99);

interface LaunchResult {
  ok: boolean;
  ms: number;
  error?: LaunchFailure | Error;
}

interface Round {
  label: string;
  results: LaunchResult[];
  wallMs: number;
  startRss: number;
  peakRss: number;
  calls: ReceivedRequest[];
}

/** Starts every launch at the same moment and samples the process's memory until the last one ends. */
async function burst(label: string, logins: LoginInitiation[], jarOf: (index: number) => CookieJar, dispatcher: Agent, sessionPrefix: string, received: () => ReceivedRequest[]): Promise<Round> {
  const before = received().length;
  const startRss = process.memoryUsage.rss();
  let peakRss = startRss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }, 10);
  const started = performance.now();
  const results = await Promise.all(
    logins.map(async (login, index): Promise<LaunchResult> => {
      const t0 = performance.now();
      try {
        // The tool answers the id_token POST itself with the proctoring URL: no redirect of its own.
        await browserLaunch(login, jarOf(index), dispatcher, sessionPrefix, 0);
        return { ok: true, ms: performance.now() - t0 };
      } catch (error) {
        return { ok: false, ms: performance.now() - t0, error: error as Error };
      }
    }),
  );
  const wallMs = performance.now() - started;
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
  const calls = received().slice(before).filter((call) => call.endpoint === CANDIDATE_ENDPOINT);
  return { label, results, wallMs, startRss, peakRss, calls };
}

function report(round: Round): boolean {
  const ok = round.results.filter((result) => result.ok);
  const times = ok.map((result) => result.ms);
  const statuses = new Map<string, number>();
  for (const call of round.calls) statuses.set(String(call.status), (statuses.get(String(call.status)) ?? 0) + 1);
  const bodies = round.calls.map((call) => (call.body ?? {}) as { user_id?: unknown; attempt_id?: unknown });
  const users = new Set(bodies.map((body) => String(body.user_id)));
  const attempts = new Set(bodies.map((body) => String(body.attempt_id)));
  console.log(`  ${round.label}`);
  console.log(`    succeeded        ${ok.length} / ${round.results.length}`);
  console.log(`    launch time      median ${ms(median(times))}, p95 ${ms(p95(times))}, p99 ${ms(p99(times))}, max ${ms(Math.max(...times, 0))}`);
  console.log(`    wall time        ${ms(round.wallMs)} (${(ok.length / (round.wallMs / 1000)).toFixed(1)} launches/s)`);
  console.log(`    peak RSS         ${mib(round.peakRss)} (+${mib(round.peakRss - round.startRss)} over its start)`);
  console.log(
    `    emulator         ${round.calls.length} candidate requests (status ${[...statuses].map(([status, count]) => `${status}×${count}`).join(', ') || '-'}), ${users.size} user_id, ${attempts.size} attempt_id`,
  );
  const failures = round.results.filter((result) => !result.ok);
  if (failures.length > 0) {
    // Grouped by message, incident ids left out; with when they failed (time since their launch started).
    const kinds = new Map<string, number[]>();
    for (const failure of failures) {
      const message = (failure.error?.message ?? 'unknown').replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '…').slice(0, 200);
      kinds.set(message, [...(kinds.get(message) ?? []), failure.ms]);
    }
    console.log(`    FAILURES         ${failures.length}:`);
    for (const [message, times] of [...kinds].sort((a, b) => b[1].length - a[1].length).slice(0, 10)) {
      console.log(`      ${times.length}× after ${ms(Math.min(...times))}–${ms(Math.max(...times))}: ${message}`);
    }
  }
  return failures.length === 0 && round.calls.length === round.results.length;
}

async function main(): Promise<void> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: BACKLOG }, resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'proctor-lti-bench-'));
  const databaseUrl = process.env.DATABASE_URL;
  const schema = databaseUrl ? `bench_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}` : undefined;
  const config = loadConfig({
    NODE_ENV: 'development',
    PORT: String(port),
    PUBLIC_URL: baseUrl,
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    ...(databaseUrl && schema ? { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema, SANDBOX: '1' } : {}),
  });
  const db = await openDatabase(config.database);
  const dispatcher = new Agent({ connections: null, keepAliveTimeout: 10_000 });
  let passed = false;
  try {
    await migrate(db);
    const tool = await createApp({ config, db, logger: createLogger('silent'), encryptionKey: 'bench-encryption-key-0123456789-abcdefghijklmnop' });
    // The emulator's Launch API (under /sandbox/proctoring/v2/) answers UPSTREAM_DELAY_MS later; nothing else waits.
    server.on('request', (req, res) => {
      if (UPSTREAM_DELAY_MS > 0 && req.url?.startsWith('/sandbox/proctoring/v2/')) setTimeout(() => void tool.app(req, res), UPSTREAM_DELAY_MS);
      else void tool.app(req, res);
    });
    try {
      const sandbox = tool.sandbox;
      if (!sandbox) throw new Error('the bench needs sandbox mode (no proctoring credentials)');
      const demo: DemoLms = sandbox.demoLms;
      const sessionPrefix = `${sandbox.proctoringBaseUrl}/session/`;
      const received = () => sandbox.emulator.received;

      // Enough generated learners for the burst and the same-user round (about one in fifteen is inactive).
      const named = new Set(demo.users.map((user) => user.id));
      demo.setClass({ classSize: Math.ceil(((STUDENTS + 1) * 15) / 14) + 15 });
      const learners = demo.members().filter((person) => !named.has(person.id) && person.status === 'Active');
      if (learners.length < STUDENTS + 1) throw new Error('not enough learners in the demo class');
      const burstMembers = learners.slice(0, STUDENTS);
      const repeater = learners[STUDENTS]!;
      const initiate = (member: string) => demo.initiateLogin({ member, presentation: 'window' });

      console.log(
        `Launch burst benchmark: ${STUDENTS} students at once, then ${SAME_USER} launches at once by one student; Launch API delay ${UPSTREAM_DELAY_MS} ms; Node ${process.version}, database ${db.kind}${schema ? ` (schema ${schema})` : ''}; load average ${loadavg().map((v) => v.toFixed(2)).join(' ')}`,
      );
      // One launch first, as before any class: the tool has fetched the LMS's key set and warmed its code paths.
      const warm = await burst('warm-up', [await initiate(demo.users.find((user) => user.key === 'student')!.id)], () => new CookieJar(false), dispatcher, sessionPrefix, received);
      if (!warm.results[0]?.ok) throw new Error(`the warm-up launch failed: ${warm.results[0]?.error?.message ?? ''}`);

      // The LMS's course pages (login initiations) are prepared first, so the burst measures the tool alone.
      const distinct = await Promise.all(burstMembers.map((member) => initiate(member.id)));
      // Embedded PGlite holds its WebAssembly heap in this process, PostgreSQL none of it.
      console.log(`  RSS before the burst ${mib(process.memoryUsage.rss())}`);
      const first = await burst(`${STUDENTS} distinct students, each with their own browser`, distinct, () => new CookieJar(false), dispatcher, sessionPrefix, received);
      const okDistinct = report(first);

      const sameLogins = await Promise.all(Array.from({ length: SAME_USER }, () => initiate(repeater.id)));
      const sharedJar = new CookieJar(false);
      const second = await burst(`${SAME_USER} launches by one student (${repeater.id}) in one browser`, sameLogins, () => sharedJar, dispatcher, sessionPrefix, received);
      const okSame = report(second);
      const attempts = new Set(second.calls.map((call) => String((call.body as { attempt_id?: unknown } | undefined)?.attempt_id)));
      if (attempts.size > 1) console.log(`    NOTE             ${attempts.size} different attempt_id for one student's concurrent launches`);
      console.log(`  process max RSS ${mib(process.resourceUsage().maxRSS * 1024)}`);
      passed = okDistinct && okSame;
      if (!passed) console.log('FAILED: not every launch reached the proctoring service');
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await tool.close();
    }
  } finally {
    await dispatcher.close();
    try {
      if (schema) await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    } finally {
      await db.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  if (!passed) process.exitCode = 1;
}

await main();
