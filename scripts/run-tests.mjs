// Runs every test/**/*.test.ts file with node's test runner (each file in its own process).
// Node 20's --test does not expand globs or pick up .ts files itself, hence this small launcher.
// Usage: npm test [-- path-or-substring ...]
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

function findTests(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return findTests(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

const filters = process.argv.slice(2);
const files = findTests('test')
  .map((f) => relative('.', f))
  .filter((f) => filters.length === 0 || filters.some((pattern) => f.includes(pattern)))
  .sort();
if (files.length === 0) {
  console.error('No test files matched.');
  process.exit(1);
}
const concurrency = Number(process.env.TEST_CONCURRENCY ?? Math.max(2, availableParallelism()));
const child = spawn(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
