// Runs a random sample of single tests, each alone in a fresh process (its file's hooks, no other test before it),
// and fails if one of them fails or does not run: a test that passes only after another test's state is found
// here. The tests are picked from the report of a whole run (TEST_REPORT of `npm test`).
// Usage: node scripts/isolated-tests.mjs report.json [--count 20] [--seed N]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { count: { type: 'string', default: '20' }, seed: { type: 'string' } } });
if (positionals.length !== 1) {
  console.error('Usage: node scripts/isolated-tests.mjs report.json [--count 20] [--seed N]');
  process.exit(2);
}
const seed = Number(values.seed ?? Math.floor(Math.random() * 2 ** 31));
const count = Number(values.count);
const concurrency = Number(process.env.TEST_CONCURRENCY ?? 2);

/** mulberry32: a small seeded generator, so a failing sample can be drawn again with --seed. */
function generator(state) {
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const candidates = JSON.parse(readFileSync(positionals[0], 'utf8')).tests.filter((test) => test.kind === 'test' && test.status === 'pass');
const random = generator(seed);
for (let i = candidates.length - 1; i > 0; i -= 1) {
  const j = Math.floor(random() * (i + 1));
  [candidates[i], candidates[j]] = [candidates[j], candidates[i]];
}
const sample = candidates.slice(0, count);
console.log(`${sample.length} of ${candidates.length} tests, each alone (--seed ${seed} draws the same sample).`);

// Node 22 and later match a name pattern against the whole path of suite and test names; Node 20 against the
// test's own name.
const wholePath = Number(process.versions.node.split('.')[0]) >= 22;
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const scratch = mkdtempSync(join(tmpdir(), 'proctor-lti-isolated-'));

async function runAlone(test, index) {
  const report = join(scratch, `${index}.json`);
  const pattern = `^${escape(wholePath ? test.name.join(' ') : test.name.at(-1))}$`;
  const args = ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=./scripts/test-report.mjs', `--test-reporter-destination=${report}`, `--test-name-pattern=${pattern}`, test.file];
  const output = [];
  const code = await new Promise((resolve) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, NODE_ENV: 'test' }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('exit', (exitCode) => resolve(exitCode));
  });
  let results = [];
  try {
    results = JSON.parse(readFileSync(report, 'utf8')).tests;
  } catch {
    // no report: the file did not load; the exit code says so
  }
  const same = (other) => other.file === test.file && other.name.join('\u0000') === test.name.join('\u0000');
  const target = results.find(same);
  const failed = results.filter((other) => other.status === 'fail');
  const ok = code === 0 && target?.status === 'pass' && failed.length === 0;
  const label = `${test.file} › ${test.name.join(' › ')}`;
  console.log(`${ok ? 'ok    ' : 'FAILED'} ${label}`);
  if (!ok) {
    console.log(`  ${target ? `it ${target.status === 'pass' ? 'passed' : target.status === 'skip' ? `was skipped: ${target.reason}` : 'failed'}` : 'it did not run'}; alone: node --import tsx --test --test-name-pattern='${pattern}' ${test.file}`);
    console.log(Buffer.concat(output).toString().split('\n').slice(-40).map((line) => `  | ${line}`).join('\n'));
  }
  return ok;
}

const queue = sample.map((test, index) => () => runAlone(test, index));
const results = [];
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    for (let next = queue.shift(); next; next = queue.shift()) results.push(await next());
  }),
);
rmSync(scratch, { recursive: true, force: true });
const failures = results.filter((ok) => !ok).length;
console.log(`${results.length - failures} of ${results.length} passed alone.`);
process.exit(failures > 0 ? 1 : 0);
