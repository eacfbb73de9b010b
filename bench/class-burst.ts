// The class-start burst with the tool in its own process, as in production: a class of N students each run the
// whole browser flow (login initiation → LMS authorization → id_token POST → the proctoring URL) at the same
// moment, then one student launches M times at once from one browser. The Canvas-like demo LMS and the Launch
// API emulator (answering each call after --upstream-delay-ms) run in a second process
// (bench/compare/upstream.ts), the browsers in this one, so the tool's CPU and memory are its own. The tool runs
// on a fresh PostgreSQL database when DATABASE_URL is set, else on the embedded database in a temporary folder.
// The tool runs compiled, as the image runs it (--tsx: through tsx).
// Usage: npm run bench:burst [-- --students 1000 --same-user 50 --upstream-delay-ms 50 --tsx]
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Agent } from 'undici';
import type { LoginInitiation } from '../src/sandbox/demo-lms/index.js';
import { SANDBOX_ACCOUNT } from '../src/sandbox/index.js';
import type { CandidateSummary, UpstreamInfo } from './compare/upstream.js';
import { freePort, processStats, start, stop, toolServerArgs } from './compare/processes.js';
import { browserLaunch, CookieJar, median, mib, ms, percentile, timedLaunch } from './flow.js';

const { values } = parseArgs({
  options: {
    students: { type: 'string', default: '1000' },
    'same-user': { type: 'string', default: '50' },
    'upstream-delay-ms': { type: 'string', default: '50' },
    tsx: { type: 'boolean', default: false },
  },
});
const STUDENTS = Number(values.students);
const SAME_USER = Number(values['same-user']);
const DELAY_MS = Number(values['upstream-delay-ms']);
for (const [name, value] of [['--students', STUDENTS], ['--same-user', SAME_USER]] as const) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
}
if (!Number.isInteger(DELAY_MS) || DELAY_MS < 0) throw new Error('--upstream-delay-ms must be a non-negative integer');

const WARM_UP = 10;
const SERVER_URL = process.env.DATABASE_URL;

interface Burst {
  ok: number;
  times: number[];
  failures: Map<string, number>;
  wallMs: number;
  cpuMs: number;
  peakRss: number;
  candidates: CandidateSummary;
}

/** Every launch started at the same moment; the tool process's CPU time and peak memory measured around it. */
async function burst(pid: number, logins: LoginInitiation[], jarOf: (index: number) => CookieJar, dispatcher: Agent, sessionPrefix: string, upstream: string): Promise<Burst> {
  const from = ((await (await fetch(`${upstream}/bench/candidates?from=0`)).json()) as CandidateSummary).total;
  const before = processStats(pid);
  const times: number[] = [];
  const failures = new Map<string, number>();
  const started = performance.now();
  await Promise.all(logins.map((login, index) => timedLaunch(() => browserLaunch(login, jarOf(index), dispatcher, sessionPrefix, 0), times, failures)));
  const wallMs = performance.now() - started;
  const after = processStats(pid);
  const candidates = (await (await fetch(`${upstream}/bench/candidates?from=${from}`)).json()) as CandidateSummary;
  return { ok: times.length, times, failures, wallMs, cpuMs: after.cpuMs - before.cpuMs, peakRss: after.peakRss, candidates };
}

function report(label: string, result: Burst, expectedUsers: number): boolean {
  const { times } = result;
  console.log(`  ${label}`);
  console.log(`    succeeded        ${result.ok} / ${result.ok + [...result.failures.values()].reduce((a, b) => a + b, 0)}`);
  console.log(`    launch time      median ${ms(median(times))}, p95 ${ms(percentile(times, 95))}, p99 ${ms(percentile(times, 99))}, max ${ms(Math.max(...times, 0))}`);
  console.log(`    wall time        ${ms(result.wallMs)} (${(result.ok / (result.wallMs / 1000)).toFixed(1)} launches/s)`);
  console.log(`    tool process     ${(result.cpuMs / Math.max(1, result.ok)).toFixed(1)} ms CPU per launch, peak RSS ${mib(result.peakRss)}`);
  const c = result.candidates;
  console.log(`    Launch API       ${c.requests} candidate requests (${Object.entries(c.statuses).map(([status, count]) => `${status}×${count}`).join(', ') || '-'}), ${c.users} students, ${c.attempts} attempts`);
  for (const [message, count] of [...result.failures].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log(`    FAILED ${count}× ${message}`);
  return result.failures.size === 0 && c.users === expectedUsers;
}

async function main(): Promise<void> {
  const admin = SERVER_URL ? new pg.Client({ connectionString: SERVER_URL }) : undefined;
  await admin?.connect();
  const database = `bench_burst_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const databaseUrl = () => {
    const url = new URL(SERVER_URL!);
    url.pathname = `/${database}`;
    return url.href;
  };
  const children: ChildProcess[] = [];
  const dispatcher = new Agent({ connections: null, keepAliveTimeout: 10_000 });
  let passed = true;
  try {
    if (admin) await admin.query(`CREATE DATABASE "${database}"`);
    const ports = { upstream: await freePort(), tool: await freePort() };
    const toolBase = `http://127.0.0.1:${ports.tool}`;
    const upstreamBase = `http://127.0.0.1:${ports.upstream}`;
    children.push(
      await start('upstream', ['--import', 'tsx', 'bench/compare/upstream.ts'], {
        UPSTREAM_PORT: String(ports.upstream),
        CLASS_SIZE: String(Math.ceil((STUDENTS + WARM_UP + 1) * 1.1) + 20),
        PROCTORING_DELAY_MS: String(DELAY_MS),
        TOOLS: JSON.stringify({ tool: { loginUrl: `${toolBase}/lti/login`, launchUrl: `${toolBase}/lti/launch`, jwksUrl: `${toolBase}/lti/keys` } }),
      }),
    );
    const proctoring = `${upstreamBase}/proctoring`;
    const toolEnv: Record<string, string> = {
      // Production refuses plain http and the embedded database; the code paths are the same.
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      PORT: String(ports.tool),
      PUBLIC_URL: toolBase,
      ENCRYPTION_KEY: 'burst-bench-encryption-key-0123456789abcdef',
      PROCTORING_BASE_URL: proctoring,
      PROCTORING_REGION: SANDBOX_ACCOUNT.region,
      PROCTORING_CONSUMER_KEY: SANDBOX_ACCOUNT.consumerKey,
      PROCTORING_SECRET: SANDBOX_ACCOUNT.secret,
      UPSTREAM_URL: upstreamBase,
    };
    if (admin) toolEnv.DATABASE_URL = databaseUrl();
    const env = { ...toolEnv };
    // The embedded database when no server is given: the child must not inherit an empty DATABASE_URL either.
    const tool = await start('proctor-lti', toolServerArgs(resolve(import.meta.dirname, '..'), { tsx: values.tsx }), env, admin ? [] : ['DATABASE_URL']);
    children.push(tool);
    const info = (await (await fetch(`${upstreamBase}/bench/info?lms=tool`)).json()) as UpstreamInfo;
    const initiate = async (members: string[]) =>
      (await (await fetch(`${upstreamBase}/bench/initiate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ lms: 'tool', members }) })).json()) as LoginInitiation[];
    const sessionPrefix = `${proctoring}/session/`;

    console.log(
      `Class-start burst: ${STUDENTS} students at once, then one student ${SAME_USER} times at once; Launch API delay ${DELAY_MS} ms; ` +
        `the tool in its own process${values.tsx ? ' through tsx' : ', compiled,'} on ${admin ? 'PostgreSQL' : 'the embedded database (PGlite)'}; Node ${process.version}, ${cpus().length} CPUs; load average ${loadavg().map((v) => v.toFixed(2)).join(' ')}`,
    );
    const learners = info.learners;
    if (learners.length < STUDENTS + WARM_UP + 1) throw new Error(`the demo class has ${learners.length} active learners, fewer than needed`);
    const warm = await burst(tool.pid!, await initiate(learners.slice(0, WARM_UP)), () => new CookieJar(false), dispatcher, sessionPrefix, upstreamBase);
    if (warm.ok !== WARM_UP) throw new Error(`the warm-up launches failed: ${[...warm.failures.keys()].join('; ')}`);

    const classLogins = await initiate(learners.slice(WARM_UP, WARM_UP + STUDENTS));
    passed = report(`${STUDENTS} students at once`, await burst(tool.pid!, classLogins, () => new CookieJar(false), dispatcher, sessionPrefix, upstreamBase), STUDENTS) && passed;

    const one = learners[WARM_UP + STUDENTS]!;
    const jar = new CookieJar(false);
    const same = await burst(tool.pid!, await initiate(Array.from({ length: SAME_USER }, () => one)), () => jar, dispatcher, sessionPrefix, upstreamBase);
    passed = report(`one student, ${SAME_USER} launches at once in one browser`, same, 1) && same.candidates.attempts === 1 && passed;
    console.log(`  load average at the end ${loadavg().map((v) => v.toFixed(2)).join(' ')}`);
  } finally {
    await dispatcher.close();
    for (const child of children.reverse()) await stop(child);
    if (admin) {
      await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      await admin.end();
    }
  }
  if (!passed) {
    console.log('FAILED: not every launch reached the proctoring service, or a student got more than one attempt');
    process.exitCode = 1;
  }
}

await main();
