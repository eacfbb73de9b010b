// Runs every test/**/*.test.ts file with node's test runner, then prints the skipped tests with their reasons and
// the slowest files and those that used the most CPU. Node 20's --test does not expand globs or pick up .ts files itself, hence this small launcher.
// Test files share processes: each process runs a group of files one after the other, each file inside a suite
// of its own named by its path (its hooks and tests stay its own), so that loading the app, the embedded
// database's code and the browser is paid once per group, not once per file. A file that changes its process
// (its environment, its signal handlers) or waits on other processes for most of its time says so with a
// `// Test process: own` line and runs alone, as every file under test/e2e/ops/ and test/e2e/faults/ does.
// Usage: npm test [-- path-or-substring ...] [--exclude path-or-substring ...]
// Environment: TEST_CONCURRENCY (processes at a time), TEST_GROUP_SIZE (files per process, default 16; 1 runs
// every file alone), TEST_REPORT (keep the JSON report of every test at this path), TEST_RANDOMIZE=1 (tests in a
// random order within each file, where the Node.js version offers it; the seed is printed, TEST_RANDOM_SEED
// repeats an order).
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawn } from 'node:child_process';
import { availableParallelism, setPriority, tmpdir } from 'node:os';
import { describeFailure, failedTests } from './test-report.mjs';

function findTests(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return findTests(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

// Arguments after `--exclude` leave out the files whose path contains one of them.
const args = process.argv.slice(2);
const excludeAt = args.indexOf('--exclude');
const filters = excludeAt === -1 ? args : args.slice(0, excludeAt);
const exclusions = excludeAt === -1 ? [] : args.slice(excludeAt + 1);
const files = findTests('test')
  .map((f) => relative('.', f))
  .filter((f) => filters.length === 0 || filters.some((pattern) => f.includes(pattern)))
  .filter((f) => !exclusions.some((pattern) => f.includes(pattern)))
  .sort();
if (files.length === 0) {
  console.error('No test files matched.');
  process.exit(1);
}
const concurrency = Number(process.env.TEST_CONCURRENCY ?? Math.max(2, availableParallelism()));
const scratch = mkdtempSync(join(tmpdir(), 'proctor-lti-tests-'));
const reportPath = process.env.TEST_REPORT || join(scratch, 'report.json');
const cpuLog = join(scratch, 'cpu.jsonl');
const ordering = [];
if (process.env.TEST_RANDOMIZE === '1') {
  if (process.allowedNodeEnvironmentFlags.has('--test-randomize')) {
    const seed = process.env.TEST_RANDOM_SEED || String(Math.floor(Math.random() * 2 ** 31));
    ordering.push('--test-randomize', `--test-random-seed=${seed}`);
    console.log(`Tests in a random order within each file: TEST_RANDOM_SEED=${seed} repeats it.`);
  } else {
    console.log(`Node.js ${process.version} cannot run tests in a random order: in file order.`);
  }
}

const groupSize = Math.max(1, Number(process.env.TEST_GROUP_SIZE ?? 16));
const runsAlone = new Set(files.filter((file) => file.startsWith('test/e2e/ops/') || file.startsWith('test/e2e/faults/') || /^\/\/ Test process: own\b/m.test(readFileSync(file, 'utf8'))));
const ownProcess = (file) => runsAlone.has(file);
// Two lanes run side by side. The files that run alone (rolling restarts, lame ducks, a database stopped and
// started) spend most of their time waiting on other processes: they run one at a time in a lane of their own, so
// that their waiting does not hold one of the cores the groups would use. They also measure time (a health check,
// a lame duck, a deadline), so the groups' lane runs at a lower priority (nice 10, inherited by every process it
// starts, Chromium included): the groups take the cores whenever the files that run alone wait, and never delay
// them. The groups run TEST_CONCURRENCY at a time, costlier kinds first so that the last processes to finish are
// short ones: browser files, whole-app files, then unit and repository files. Within a kind, path order.
const KIND_ORDER = ['test/browser/', 'test/e2e/', 'test/unit/', 'test/repo/'];
const kindOf = (file) => Math.max(0, KIND_ORDER.findIndex((prefix) => file.startsWith(prefix)));
const groups = [];
for (const file of [...files].filter((file) => !ownProcess(file)).sort((a, b) => kindOf(a) - kindOf(b) || (a < b ? -1 : 1))) {
  const last = groups.at(-1);
  if (last && last.length < groupSize && kindOf(last[0]) === kindOf(file)) last.push(file);
  else groups.push([file]);
}
const alone = files.filter(ownProcess).map((file) => [file]);
// node --test runs its files in the order of their names: the entries are numbered.
const entriesOf = (lane, processGroups) =>
  processGroups.map((group, index) => {
    const entry = join(scratch, `${lane}-${String(index + 1).padStart(3, '0')}.group.mjs`);
    writeFileSync(entry, groupEntry(group));
    return entry;
  });

/** A process's entry for a group of test files: a suite per file, named by its path; closers run at the end. */
function groupEntry(group) {
  const lines = [
    "import { appendFileSync, readFileSync } from 'node:fs';",
    "import { after, before, describe } from 'node:test';",
    'const closers = [];',
    "globalThis[Symbol.for('proctor-lti.tests.processEnd')] = closers;",
    // CPU seconds of this process and of the processes it started that have ended (tool and CLI processes), from
    // /proc where there is one; elsewhere this process's own.
    'const cpu = () => {',
    "  try { const stat = readFileSync('/proc/self/stat', 'utf8'); const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100; }",
    '  catch { const used = process.cpuUsage(); return (used.user + used.system) / 1e6; }',
    '};',
    `const spent = (what, seconds) => appendFileSync(${JSON.stringify(cpuLog)}, JSON.stringify({ what, seconds }) + '\\n');`,
    'let loaded;',
    'before(() => { loaded = cpu(); spent("(loading test files)", loaded); });',
    ...group.map(
      (file) =>
        `describe(${JSON.stringify(file)}, () => { let at; before(() => { at = cpu(); }); after(() => spent(${JSON.stringify(file)}, cpu() - at)); return import(${JSON.stringify(pathToFileURL(resolve(file)).href)}); });`,
    ),
    'after(async () => { const at = cpu(); for (const close of closers.splice(0)) await close(); spent("(browsers, at the end of each process)", cpu() - at); });',
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * One node --test run of `entries`, `processes` at a time, its JSON report at `report`. Its spec output goes to
 * stdout as it comes, or, when `held`, is kept and written once the run has ended (two lanes' lines never mix).
 */
function runLane(entries, processes, report, held, niceness = 0) {
  const child = spawn(
    process.execPath,
    [
      '--import', 'tsx', '--import', './test/helpers/compile-cache.mjs', '--test', `--test-concurrency=${processes}`, ...ordering,
      '--test-reporter=spec', '--test-reporter-destination=stdout',
      '--test-reporter=./scripts/test-report.mjs', `--test-reporter-destination=${report}`,
      ...entries,
    ],
    { stdio: ['ignore', held ? 'pipe' : 'inherit', 'inherit'], env: { ...process.env, NODE_ENV: 'test' } },
  );
  // Set before node --test starts its first file: the processes it starts inherit it.
  if (niceness > 0 && child.pid !== undefined) setPriority(child.pid, niceness);
  const output = [];
  child.stdout?.on('data', (chunk) => output.push(chunk));
  return new Promise((resolveLane) =>
    child.on('close', (code, signal) => resolveLane({ status: code ?? (signal ? 1 : 0), output: Buffer.concat(output), report })),
  );
}

const started = Date.now();
const lanes = [];
if (groups.length > 0) lanes.push(runLane(entriesOf('groups', groups), concurrency, join(scratch, 'groups.json'), false, alone.length > 0 ? 10 : 0));
if (alone.length > 0) lanes.push(runLane(entriesOf('alone', alone), 1, join(scratch, 'alone.json'), lanes.length > 0));
const ended = await Promise.all(lanes);
for (const lane of ended) process.stdout.write(lane.output);
const tests = [];
let node = process.version;
for (const lane of ended) {
  try {
    const report = JSON.parse(readFileSync(lane.report, 'utf8'));
    node = report.node;
    tests.push(...report.tests);
  } catch (error) {
    console.error(`No test report (${error.message}).`);
    lane.status ||= 1;
  }
}
writeFileSync(reportPath, `${JSON.stringify({ node, tests }, null, 1)}\n`);
summarize(tests);
if (!process.env.TEST_REPORT) rmSync(scratch, { recursive: true, force: true });
process.exit(ended.some((lane) => lane.status !== 0) ? 1 : 0);

function summarize(tests) {
  const count = (status) => tests.filter((test) => test.kind === 'test' && test.status === status).length;
  const skipped = tests.filter((test) => test.status === 'skip');
  const leftOut = exclusions.length > 0 ? ` (left out: files under ${exclusions.join(', ')})` : '';
  console.log(`\n${files.length} files in ${((Date.now() - started) / 1000).toFixed(0)} s${leftOut}: ${count('pass')} passed, ${count('fail')} failed, ${skipped.length} skipped, ${count('todo')} todo.`);
  for (const test of skipped) console.log(`  skipped: ${test.file} › ${test.name.join(' › ')}${test.kind === 'suite' ? ' (the whole suite)' : ''}: ${test.reason || 'no reason given'}`);
  for (const test of failedTests(tests)) console.log(describeFailure(test, '  failed: '));
  const perFile = new Map();
  for (const test of tests) if (test.name.length === 1) perFile.set(test.file, (perFile.get(test.file) ?? 0) + test.durationMs);
  const slowest = [...perFile].sort((a, b) => b[1] - a[1]).slice(0, 10);
  console.log('Slowest files (their tests\' time, without loading):');
  for (const [file, ms] of slowest) console.log(`  ${(ms / 1000).toFixed(1).padStart(6)} s  ${file}`);
  costliest();
}

/**
 * CPU is what a run on a busy machine waits for: the files that used the most, each with the tool and CLI
 * processes it started (a browser's time shows in one line of its own, as each process's browser closes at its end).
 */
function costliest() {
  let lines;
  try {
    lines = readFileSync(cpuLog, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
  } catch {
    return;
  }
  const byWhat = new Map();
  for (const { what, seconds } of lines) byWhat.set(what, (byWhat.get(what) ?? 0) + seconds);
  const total = [...byWhat.values()].reduce((sum, seconds) => sum + seconds, 0);
  console.log(`Costliest files (CPU of the test processes and the processes they started, ${total.toFixed(0)} CPU-s in all):`);
  for (const [what, seconds] of [...byWhat].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${seconds.toFixed(1).padStart(6)} CPU-s  ${what}`);
}
