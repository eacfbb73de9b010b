// A node:test reporter that writes one JSON document: every test and suite with its file, full name, outcome,
// skip reason and duration. scripts/run-tests.mjs reads it to print the skipped tests and the slowest files,
// scripts/check-skips.mjs to find tests no configuration ran, scripts/isolated-tests.mjs to pick tests to run alone.
import { relative } from 'node:path';

const NAME_FILTERED = 'test name does not match pattern';

export default async function* report(source) {
  const tests = [];
  const open = new Map();
  for await (const event of source) {
    if (event.type !== 'test:start' && event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, nesting, file, skip, todo, details } = event.data;
    const key = file ? relative(process.cwd(), file) : '(no file)';
    const path = open.get(key) ?? [];
    if (event.type === 'test:start') {
      path.length = nesting;
      path.push(name);
      open.set(key, path);
      continue;
    }
    const skipped = skip !== undefined && skip !== false;
    if (skipped && skip === NAME_FILTERED) continue;
    tests.push({
      file: key,
      name: [...path.slice(0, nesting), name],
      kind: details?.type === 'suite' ? 'suite' : 'test',
      status: event.type === 'test:fail' ? 'fail' : skipped ? 'skip' : todo !== undefined && todo !== false ? 'todo' : 'pass',
      ...(skipped ? { reason: skip === true ? '' : String(skip) } : {}),
      durationMs: Math.round(details?.duration_ms ?? 0),
    });
  }
  yield `${JSON.stringify({ node: process.version, tests }, null, 1)}\n`;
}
