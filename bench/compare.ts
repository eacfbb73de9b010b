// Side-by-side launch bench: this tool against a bare ltijs tool (bench/bare-ltijs/), each in its own
// process on its own freshly created PostgreSQL database, both launched by the same Canvas-like demo LMS
// and calling the same Launch API emulator, which run in a third process (bench/compare/upstream.ts). This
// process plays the browsers: the full flow for each launch (login initiation → LMS authorization →
// id_token POST → the tool's own redirects → the proctoring URL, with cookies), distinct students at a
// fixed concurrency, the two tools in interleaved rounds. Server CPU per launch comes from each tool
// process's own CPU time (/proc/<pid>/stat), RSS from /proc/<pid>/status. "first N ≤" is the slowest of a
// run's first N launches (N = the concurrency): they meet the tool as the pause before the run left it.
// Under each run, how busy the machine was (/proc/stat) and the shares of its CPU capacity taken by the tool,
// by the LMS and Launch API process, and by this process: at 100 % busy, every process waits for the others.
// Usage: npm run bench:compare [-- --students 300 --concurrency 20 --rounds 5 --same-user 200
//   --delay-ms 0 --warm-up auto --profile <dir> --against <checkout> --tsx --steps --bare-without-notice]  (DATABASE_URL: the server to create the databases on)
// The tool runs as the image runs it: compiled JavaScript (tsconfig.bench.json, into dist/) on plain node, as the
// bare tool does; --tsx runs the TypeScript through tsx instead (source maps on, as in development).
// --steps prints under each measured run the median time of each HTTP exchange of a launch and those of its
// slowest launches: where the tail is spent (the tool's answers, or the LMS's).
// --against runs this tool from another checkout (a git worktree of the commit to compare with, its
// node_modules in place) where the bare tool would run: the same flow and figures, for measuring a change.
// The bare tool shows a learner's first launch of an exam a privacy notice, as this tool does (the same work:
// a page and its button's POST); --bare-without-notice leaves it out (the bare tool of before the notice).
// --node-flags=<flags> starts this tool's process (not the one compared with) with those Node.js/V8 flags, e.g.
// --node-flags=--max-semi-space-size=32 with --against a worktree of the same commit: a runtime setting's effect.
// --pauses preloads bench/compare/pauses.mjs into both tools and prints, after the rounds, each run's garbage
// collections and event-loop stalls over 20 ms: what a tail is made of, when it is the tools' own pauses.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Agent } from 'undici';
import type { LoginInitiation } from '../src/sandbox/demo-lms/index.js';
import { SANDBOX_ACCOUNT } from '../src/sandbox/index.js';
import type { UpstreamInfo } from './compare/upstream.js';
import { browserLaunch, CookieJar, median, mib, ms, percentile, type StepTimes, timedLaunch } from './flow.js';
import { freePort, machineCpu, processStats, start, stop, toolServerArgs } from './compare/processes.js';

const { values } = parseArgs({
  options: {
    students: { type: 'string', default: '300' },
    concurrency: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '5' },
    'same-user': { type: 'string', default: '200' },
    'delay-ms': { type: 'string', default: '0' },
    'warm-up': { type: 'string', default: 'auto' },
    profile: { type: 'string' },
    against: { type: 'string' },
    'node-flags': { type: 'string', default: '' },
    tsx: { type: 'boolean', default: false },
    steps: { type: 'boolean', default: false },
    'bare-without-notice': { type: 'boolean', default: false },
    pauses: { type: 'boolean', default: false },
  },
});
const STUDENTS = Number(values.students);
const CONCURRENCY = Number(values.concurrency);
const ROUNDS = Number(values.rounds);
const SAME_USER = Number(values['same-user']);
const DELAY_MS = Number(values['delay-ms']);
/** Whether the bare tool shows a learner's first launch of an exam a privacy notice first, as this tool does. */
const BARE_NOTICE = !values['bare-without-notice'];
/**
 * Launches each tool serves before the measured rounds: a fixed number, or by default (`auto`) batches of
 * WARM_UP_BATCH until its CPU per launch has stopped falling (see warmUp).
 */
const WARM_UP = values['warm-up'] === 'auto' ? 'auto' : Number(values['warm-up']);
const WARM_UP_BATCH = 200;
const WARM_UP_MIN = 2000;
const WARM_UP_MAX = 4000;
for (const [name, value] of [['--students', STUDENTS], ['--concurrency', CONCURRENCY], ['--rounds', ROUNDS], ['--same-user', SAME_USER], ['--warm-up', WARM_UP === 'auto' ? 1 : WARM_UP]] as const) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
}
if (!Number.isInteger(DELAY_MS) || DELAY_MS < 0) throw new Error('--delay-ms must be a non-negative integer');

/** The Node.js major of the production image (deploy/Dockerfile's base image), if it names one. */
function productionNodeMajor(): string | undefined {
  return /^FROM node:(\d+)/m.exec(readFileSync(new URL('../deploy/Dockerfile', import.meta.url), 'utf8'))?.[1];
}

/** The goal, as ratios of this tool's figure to the bare tool's. */
const TARGETS = { throughput: 1.5, p99: 0.7, cpu: 0.5 };
const SERVER_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

type Name = 'tool' | 'bare';
const NAMES: readonly Name[] = ['tool', 'bare'];
/** The other checkout that runs in the bare tool's place, if any. */
const AGAINST = values.against === undefined ? undefined : resolve(values.against);
if (AGAINST !== undefined && !existsSync(join(AGAINST, 'bench/compare/tool-server.ts'))) throw new Error(`--against: ${AGAINST} is not a checkout of this tool`);
const LABEL: Record<Name, string> = { tool: 'proctor-lti', bare: AGAINST === undefined ? 'bare ltijs' : `vs ${basename(AGAINST)}`.slice(0, 12) };

interface RunResult {
  ok: number;
  failed: number;
  times: number[];
  wallMs: number;
  cpuMs: number;
  rss: number;
  peakRss: number;
  failures: Map<string, number>;
  /** The slowest of the first `concurrency` launches, those that meet the tool as it was after a pause. */
  firstWaveMaxMs: number;
  /** Each successful launch's exchange times, when --steps asks for them. */
  steps: StepTimes[];
  /** Shares of the machine's CPU capacity during the run: all its work, the tool's, the LMS and Launch API's, this process's. */
  machine: { busy: number; tool: number; upstream: number; browsers: number };
  /** When the run began and ended, wall clock (ms since the epoch): which pauses fell in it. */
  window: { from: number; to: number };
}

/** The LMS and Launch API process, measured alongside each run. */
let upstreamPid: number | undefined;

/** Runs the launches with at most `concurrency` in flight, measuring the tool process meanwhile. */
async function run(pid: number, logins: LoginInitiation[], jarOf: (index: number) => CookieJar, sessionPrefix: string, toolRedirects: number, dispatcher: Agent): Promise<RunResult> {
  const before = processStats(pid);
  const upstream = upstreamPid === undefined ? undefined : { pid: upstreamPid, before: processStats(upstreamPid).cpuMs };
  const machineBefore = machineCpu();
  const browsersBefore = process.cpuUsage();
  const times: number[] = [];
  const steps: StepTimes[] = [];
  const failures = new Map<string, number>();
  let next = 0;
  let firstWaveMaxMs = 0;
  const from = Date.now();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(CONCURRENCY, logins.length) }, async () => {
      for (let index = next++; index < logins.length; index = next++) {
        const launchStarted = performance.now();
        const launchSteps: StepTimes | undefined = values.steps ? [] : undefined;
        const succeeded = await timedLaunch(() => browserLaunch(logins[index]!, jarOf(index), dispatcher, sessionPrefix, toolRedirects, launchSteps), times, failures);
        if (launchSteps && succeeded) steps.push(launchSteps);
        if (index < CONCURRENCY) firstWaveMaxMs = Math.max(firstWaveMaxMs, performance.now() - launchStarted);
      }
    }),
  );
  const wallMs = performance.now() - started;
  const after = processStats(pid);
  const cpuMs = after.cpuMs - before.cpuMs;
  const browsers = process.cpuUsage(browsersBefore);
  const machineAfter = machineCpu();
  const capacityMs = machineAfter.totalMs - machineBefore.totalMs || 1;
  const machine = {
    busy: (machineAfter.busyMs - machineBefore.busyMs) / capacityMs,
    tool: cpuMs / capacityMs,
    upstream: upstream ? (processStats(upstream.pid).cpuMs - upstream.before) / capacityMs : 0,
    browsers: (browsers.user + browsers.system) / 1000 / capacityMs,
  };
  return { ok: times.length, failed: logins.length - times.length, times, wallMs, cpuMs, rss: after.rss, peakRss: after.peakRss, failures, firstWaveMaxMs, machine, steps, window: { from, to: Date.now() } };
}

/**
 * Warms both tools up in alternating batches until each one's CPU per launch has stopped falling: at least
 * WARM_UP_MIN launches, then three batches in a row that are not 5 % cheaper than its cheapest batch before them,
 * or WARM_UP_MAX launches. V8 is still optimising functions of the request path for the first time after a
 * thousand launches (this tool's CPU per launch fell from 5.5 to 3.1 ms between its 1,400th and 2,600th launch
 * on Node 24, while the noise of a busy machine could make three batches look flat before that), so a fixed,
 * short warm-up leaves part of that in the measured rounds; the class-start burst bench measures a cold tool.
 * Returns each tool's CPU per launch by batch.
 */
async function warmUp(batch: (name: Name, members: string[]) => Promise<number>, take: (count: number) => (name: Name) => string[]): Promise<Record<Name, number[]>> {
  const trace: Record<Name, number[]> = { tool: [], bare: [] };
  const flat: Record<Name, number> = { tool: 0, bare: 0 };
  const settled = (name: Name) => (flat[name] >= 3 && trace[name].length * WARM_UP_BATCH >= WARM_UP_MIN) || trace[name].length * WARM_UP_BATCH >= WARM_UP_MAX;
  while (!NAMES.every(settled)) {
    const members = take(WARM_UP_BATCH);
    for (const name of NAMES.filter((each) => !settled(each))) {
      const cheapest = Math.min(...trace[name]);
      const cpu = await batch(name, members(name));
      flat[name] = cpu < cheapest * 0.95 ? 0 : flat[name] + 1;
      trace[name].push(cpu);
    }
  }
  return trace;
}

const throughput = (r: { ok: number; wallMs: number }) => r.ok / (r.wallMs / 1000);
const percent = (share: number) => `${Math.round(share * 100)} %`;
const line = (r: RunResult) =>
  `${throughput(r).toFixed(1).padStart(6)}/s  p50 ${ms(percentile(r.times, 50)).padStart(7)}  p95 ${ms(percentile(r.times, 95)).padStart(7)}  p99 ${ms(percentile(r.times, 99)).padStart(7)}  first ${CONCURRENCY} ≤ ${ms(r.firstWaveMaxMs).padStart(7)}  CPU ${(r.cpuMs / Math.max(1, r.ok)).toFixed(1).padStart(5)} ms/launch  RSS ${mib(r.rss)} (peak ${mib(r.peakRss)})${r.failed ? `  FAILED ${r.failed}` : ''}\n` +
  `${''.padStart(19)}machine ${percent(r.machine.busy)} busy: the tool ${percent(r.machine.tool)}, LMS and Launch API ${percent(r.machine.upstream)}, browsers ${percent(r.machine.browsers)}`;
/** Under --steps: each exchange's median, then the exchanges of the five slowest launches. */
const showSteps = (r: RunResult) => {
  if (r.steps.length === 0) return;
  const count = Math.max(...r.steps.map((launch) => launch.length));
  const names = ['login', 'LMS', 'id_token', ...Array.from({ length: count - 3 }, (_, hop) => `redirect ${hop + 1}`)];
  const total = (launch: StepTimes) => launch.reduce((sum, value) => sum + value, 0);
  const slowest = [...r.steps].sort((a, b) => total(b) - total(a)).slice(0, 5);
  const each = (launch: StepTimes) => launch.map((value) => value.toFixed(0)).join(' + ');
  console.log(`${''.padStart(19)}ms per exchange (${names.join(', ')}): median ${names.map((_, i) => median(r.steps.map((launch) => launch[i] ?? 0)).toFixed(0)).join(' + ')}; slowest ${slowest.map(each).join(' | ')}`);
};
interface Pause {
  at: number;
  ms: number;
  what: string;
}
/** Under --pauses: a run's garbage collections by kind and its event-loop stalls, from the tool's pauses file. */
const pausesLine = (r: RunResult, pauses: readonly Pause[]) => {
  const inRun = pauses.filter((pause) => pause.at >= r.window.from && pause.at <= r.window.to);
  const kinds = [...new Set(inRun.map((pause) => pause.what))].sort();
  if (kinds.length === 0) return 'no collection, no stall';
  return kinds
    .map((kind) => {
      const of = inRun.filter((pause) => pause.what === kind).map((pause) => pause.ms);
      return `${kind} ${of.length}× (${of.reduce((sum, value) => sum + value, 0).toFixed(0)} ms, longest ${Math.max(...of).toFixed(0)})`;
    })
    .join(', ');
};
const showFailures = (r: RunResult) => {
  for (const [message, count] of [...r.failures].sort((a, b) => b[1] - a[1]).slice(0, 5)) console.log(`      ${count}× ${message}`);
};

async function main(): Promise<void> {
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  const suffix = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const databases: Record<Name, string> = { tool: `bench_tool_${suffix}`, bare: `bench_bare_${suffix}` };
  const databaseUrl = (name: string) => {
    const url = new URL(SERVER_URL);
    url.pathname = `/${name}`;
    return url.href;
  };
  const children: ChildProcess[] = [];
  const pausesDir = values.pauses ? mkdtempSync(join(tmpdir(), 'proctor-lti-pauses-')) : undefined;
  const pausesFile = (name: Name) => (pausesDir === undefined ? undefined : join(pausesDir, `${name}.jsonl`));
  const pausesPreload = pausesDir === undefined ? [] : ['--import', resolve(import.meta.dirname, 'compare/pauses.mjs')];
  /** The environment that tells a tool's preload where to write its pauses, under --pauses. */
  const pausesEnv = (name: Name): Record<string, string> => {
    const file = pausesFile(name);
    return file === undefined ? {} : { BENCH_PAUSES_FILE: file };
  };
  const readPauses = (name: Name): Pause[] => {
    const file = pausesFile(name);
    if (file === undefined || !existsSync(file)) return [];
    return readFileSync(file, 'utf8').split('\n').filter((text) => text !== '').map((text) => JSON.parse(text) as Pause);
  };
  const dispatcher = new Agent({ connections: null, keepAliveTimeout: 10_000 });
  let passed = true;
  try {
    for (const name of NAMES) await admin.query(`CREATE DATABASE "${databases[name]}"`);
    const ports = { upstream: await freePort(), tool: await freePort(), bare: await freePort() };
    const toolBase = `http://127.0.0.1:${ports.tool}`;
    const bareBase = `http://127.0.0.1:${ports.bare}`;
    const upstreamBase = `http://127.0.0.1:${ports.upstream}`;
    const classSize = (ROUNDS * STUDENTS + (WARM_UP === 'auto' ? WARM_UP_MAX : WARM_UP) + 10) * 2;
    const upstream = await start('upstream', ['--import', 'tsx', 'bench/compare/upstream.ts'], {
      UPSTREAM_PORT: String(ports.upstream),
      CLASS_SIZE: String(classSize),
      PROCTORING_DELAY_MS: String(DELAY_MS),
      TOOLS: JSON.stringify({
        tool: { loginUrl: `${toolBase}/lti/login`, launchUrl: `${toolBase}/lti/launch`, jwksUrl: `${toolBase}/lti/keys` },
        bare:
          AGAINST === undefined
            ? { loginUrl: `${bareBase}/login`, launchUrl: `${bareBase}/`, jwksUrl: `${bareBase}/keys` }
            : { loginUrl: `${bareBase}/lti/login`, launchUrl: `${bareBase}/lti/launch`, jwksUrl: `${bareBase}/lti/keys` },
      }),
    });
    children.push(upstream);
    upstreamPid = upstream.pid;
    const proctoring = `${upstreamBase}/proctoring`;
    const profileArgs = values.profile ? (mkdirSync(values.profile, { recursive: true }), ['--cpu-prof', '--cpu-prof-dir', values.profile]) : [];
    const nodeFlags = values['node-flags'].split(/\s+/).filter((flag) => flag !== '');
    const toolServer = (label: string, checkout: string, lms: Name, port: number, database: string, extraArgs: string[] = []) =>
      start(label, [...pausesPreload, ...extraArgs, ...toolServerArgs(checkout, { tsx: values.tsx })], {
        ...pausesEnv(lms),
        NODE_ENV: 'development',
        LOG_LEVEL: 'info',
        PORT: String(port),
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        DATABASE_URL: databaseUrl(database),
        ENCRYPTION_KEY: 'compare-bench-encryption-key-0123456789abcdef',
        PROCTORING_BASE_URL: proctoring,
        PROCTORING_REGION: SANDBOX_ACCOUNT.region,
        PROCTORING_CONSUMER_KEY: SANDBOX_ACCOUNT.consumerKey,
        PROCTORING_SECRET: SANDBOX_ACCOUNT.secret,
        UPSTREAM_URL: upstreamBase,
        BENCH_LMS: lms,
        // Every launch comes from this one address: the limiters still count each request, but a long warm-up
        // must not reach the 5,000 logins per address and window an exam hall behind one NAT is allowed.
        RATE_LIMIT_LOGIN: '1000000',
        RATE_LIMIT_LAUNCH: '1000000',
      });
    const tool = await toolServer('proctor-lti', resolve(import.meta.dirname, '..'), 'tool', ports.tool, databases.tool, [...nodeFlags, ...profileArgs]);
    children.push(tool);
    const bareInfo = (await (await fetch(`${upstreamBase}/bench/info?lms=bare`)).json()) as UpstreamInfo;
    const bare =
      AGAINST === undefined
        ? await start('bare ltijs', [...pausesPreload, 'bench/bare-ltijs/server.mjs'], {
            ...pausesEnv('bare'),
            PORT: String(ports.bare),
            DATABASE_URL: databaseUrl(databases.bare),
            LMS_ISSUER: bareInfo.registration.issuer,
            LMS_CLIENT_ID: bareInfo.registration.clientId,
            LMS_AUTH_URL: bareInfo.registration.authUrl,
            LMS_TOKEN_URL: bareInfo.registration.tokenUrl,
            LMS_JWKS_URL: bareInfo.registration.jwksUrl,
            PROCTORING_BASE_URL: proctoring,
            PROCTORING_CONSUMER_KEY: SANDBOX_ACCOUNT.consumerKey,
            PROCTORING_SECRET: SANDBOX_ACCOUNT.secret,
            BARE_NOTICE: BARE_NOTICE ? '1' : '0',
          })
        : await toolServer(LABEL.bare, AGAINST, 'bare', ports.bare, databases.bare);
    children.push(bare);
    const pids: Record<Name, number> = { tool: tool.pid!, bare: bare.pid! };
    const toolRedirects: Record<Name, number> = { tool: 0, bare: AGAINST === undefined ? 1 : 0 };
    const learners: Record<Name, string[]> = {
      tool: ((await (await fetch(`${upstreamBase}/bench/info?lms=tool`)).json()) as UpstreamInfo).learners,
      bare: bareInfo.learners,
    };
    const sessionPrefix = `${proctoring}/session/`;
    const initiate = async (name: Name, members: string[]) =>
      (await (
        await fetch(`${upstreamBase}/bench/initiate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ lms: name, members }) })
      ).json()) as LoginInitiation[];
    let cursor = 0;
    const take = (count: number) => {
      const slice = [cursor, cursor + count] as const;
      cursor += count;
      return (name: Name) => learners[name].slice(...slice);
    };

    console.log(
      `Launch comparison: proctor-lti against ${AGAINST === undefined ? 'bare ltijs' : `proctor-lti from ${AGAINST}`}, ${STUDENTS} distinct students per round at concurrency ${CONCURRENCY}, ${ROUNDS} interleaved rounds, ` +
        `Launch API delay ${DELAY_MS} ms; ${AGAINST === undefined ? `the bare tool ${BARE_NOTICE ? 'with' : 'without'} the privacy notice; ` : ''}${values.tsx ? 'the tool through tsx' : 'the tool compiled'}${nodeFlags.length > 0 ? ` with ${nodeFlags.join(' ')}` : ''}; Node ${process.version}, ${cpus().length} CPUs, PostgreSQL; load average ${loadavg().map((v) => v.toFixed(2)).join(' ')}`,
    );
    // Warm-up, not measured: each tool fetches the LMS's keys, opens its pool, and runs its code paths often
    // enough for V8 to have optimised the hot ones, as in a server that has been up for a while.
    const warmBatch = async (name: Name, members: string[]) => {
      const warm = await run(pids[name], await initiate(name, members), () => new CookieJar(false), sessionPrefix, toolRedirects[name], dispatcher);
      if (warm.failed > 0) {
        showFailures(warm);
        throw new Error(`${LABEL[name]}: the warm-up launches failed`);
      }
      return warm.cpuMs / warm.ok;
    };
    if (WARM_UP === 'auto') {
      const warmed = await warmUp(warmBatch, (count) => take(count));
      for (const name of NAMES) {
        const trace = warmed[name];
        console.log(`  warm-up ${LABEL[name].padEnd(12)} ${trace.length * WARM_UP_BATCH} launches, CPU per launch by batch of ${WARM_UP_BATCH}: ${trace.map((cpu) => cpu.toFixed(1)).join(' ')} ms`);
      }
    } else {
      const warmMembers = take(WARM_UP);
      for (const name of NAMES) await warmBatch(name, warmMembers(name));
    }

    const results: Record<Name, RunResult[]> = { tool: [], bare: [] };
    for (let round = 0; round < ROUNDS; round++) {
      const members = take(STUDENTS);
      const order: Name[] = round % 2 === 0 ? ['tool', 'bare'] : ['bare', 'tool'];
      console.log(`  round ${round + 1} (load average ${loadavg()[0]!.toFixed(2)})`);
      for (const name of order) {
        const logins = await initiate(name, members(name));
        const result = await run(pids[name], logins, () => new CookieJar(false), sessionPrefix, toolRedirects[name], dispatcher);
        results[name].push(result);
        console.log(`    ${LABEL[name].padEnd(12)} ${line(result)}`);
        showSteps(result);
        showFailures(result);
        if (result.failed > 0) passed = false;
      }
    }

    console.log(`  one student, ${SAME_USER} launches at concurrency ${CONCURRENCY} in one browser`);
    const repeater = take(1);
    const same: Partial<Record<Name, RunResult>> = {};
    for (const name of NAMES) {
      const [member] = repeater(name);
      const logins = await initiate(name, Array.from({ length: SAME_USER }, () => member!));
      const jar = new CookieJar(false);
      const result = await run(pids[name], logins, () => jar, sessionPrefix, toolRedirects[name], dispatcher);
      same[name] = result;
      console.log(`    ${LABEL[name].padEnd(12)} lost ${result.failed} of ${SAME_USER}; ${line(result)}`);
      showFailures(result);
    }
    if ((same.tool?.failed ?? 1) > 0) passed = false;

    if (pausesDir !== undefined) {
      // The preload writes its lines every 500 ms.
      await new Promise((resolveWait) => setTimeout(resolveWait, 600));
      const pauses: Record<Name, Pause[]> = { tool: readPauses('tool'), bare: readPauses('bare') };
      console.log('  pauses in each run (garbage collections by kind; event-loop stalls over 20 ms)');
      for (let round = 0; round < ROUNDS; round++) {
        for (const name of NAMES) console.log(`    round ${round + 1} ${LABEL[name].padEnd(12)} ${pausesLine(results[name][round]!, pauses[name])}`);
      }
    }

    const pooled = (name: Name) => {
      const runs = results[name];
      const ok = runs.reduce((sum, r) => sum + r.ok, 0);
      return {
        throughput: ok / (runs.reduce((sum, r) => sum + r.wallMs, 0) / 1000),
        p50: percentile(runs.flatMap((r) => r.times), 50),
        p95: percentile(runs.flatMap((r) => r.times), 95),
        p99: percentile(runs.flatMap((r) => r.times), 99),
        cpu: runs.reduce((sum, r) => sum + r.cpuMs, 0) / Math.max(1, ok),
        peakRss: Math.max(...runs.map((r) => r.peakRss)),
      };
    };
    const t = pooled('tool');
    const b = pooled('bare');
    console.log(`  all ${ROUNDS} rounds pooled`);
    for (const [name, p] of [['tool', t], ['bare', b]] as const) {
      console.log(`    ${LABEL[name].padEnd(12)} ${p.throughput.toFixed(1).padStart(6)}/s  p50 ${ms(p.p50).padStart(7)}  p95 ${ms(p.p95).padStart(7)}  p99 ${ms(p.p99).padStart(7)}  CPU ${p.cpu.toFixed(1).padStart(5)} ms/launch  peak RSS ${mib(p.peakRss)}`);
    }
    const perRound = (f: (r: RunResult) => number) => median(results.tool.map((r, i) => f(r) / f(results.bare[i]!)));
    const ratios = [
      ['throughput', t.throughput / b.throughput, perRound(throughput), TARGETS.throughput, (v: number) => v >= TARGETS.throughput, '≥'],
      ['p99', t.p99 / b.p99, perRound((r) => percentile(r.times, 99)), TARGETS.p99, (v: number) => v <= TARGETS.p99, '≤'],
      ['CPU per launch', t.cpu / b.cpu, perRound((r) => r.cpuMs / Math.max(1, r.ok)), TARGETS.cpu, (v: number) => v <= TARGETS.cpu, '≤'],
    ] as const;
    console.log(`  proctor-lti / ${LABEL.bare} (pooled; median of the rounds)    ${AGAINST === undefined ? 'target' : '(the targets are against bare ltijs)'}`);
    for (const [label, value, roundMedian, target, met, sign] of ratios) {
      const verdict = AGAINST === undefined ? `${sign} ${target}×  ${met(value) ? 'met' : 'NOT MET'}` : '';
      console.log(`    ${label.padEnd(16)} ${value.toFixed(2)}× (${roundMedian.toFixed(2)}×)`.padEnd(58) + verdict);
    }
    console.log(`    same-user losses  proctor-lti ${same.tool?.failed ?? '?'}, ${LABEL.bare} ${same.bare?.failed ?? '?'}          0  ${same.tool?.failed === 0 ? 'met' : 'NOT MET'}`);
    console.log(`  load average at the end ${loadavg().map((v) => v.toFixed(2)).join(' ')}`);
    const imageMajor = productionNodeMajor();
    if (imageMajor !== undefined && imageMajor !== process.versions.node.split('.')[0]) {
      console.log(`  the production image runs Node ${imageMajor}; bash bench/on-node.sh ${imageMajor} bench/compare.ts measures both tools on it`);
    }
  } finally {
    await dispatcher.close();
    for (const child of children.reverse()) await stop(child);
    for (const name of NAMES) await admin.query(`DROP DATABASE IF EXISTS "${databases[name]}" WITH (FORCE)`);
    await admin.end();
    if (pausesDir !== undefined) rmSync(pausesDir, { recursive: true, force: true });
  }
  if (!passed) {
    console.log('FAILED: not every launch reached the proctoring service');
    process.exitCode = 1;
  }
}

await main();
