// A node:test reporter that writes one JSON document: every test and suite with its file, full name, outcome,
// skip reason and duration. scripts/run-tests.mjs reads it to print the skipped tests and the slowest files,
// scripts/check-skips.mjs to find tests no configuration ran, scripts/isolated-tests.mjs to pick tests to run alone.
// A file run in a group (scripts/run-tests.mjs) sits in a suite named by its path, which the report leaves out:
// its tests are reported as if the file had run alone.
import { relative } from 'node:path';

const NAME_FILTERED = 'test name does not match pattern';
const isGroupEntry = (file) => file?.endsWith('.group.mjs') ?? false;

// A failure's first lines, kept so that a run's end can repeat what failed after thousands of lines of output.
// node:test wraps a test's own error in one whose cause it is.
function failureOf(error) {
  const cause = error?.cause instanceof Error ? error.cause : error;
  const text = cause instanceof Error ? (cause.stack ?? `${cause.name}: ${cause.message}`) : String(cause ?? 'no error given');
  return text.split('\n').slice(0, 12).join('\n').slice(0, 2000);
}

/** The failed tests of a report's `tests`. */
export const failedTests = (tests) => tests.filter((test) => test.kind === 'test' && test.status === 'fail');

/** A failed test as the ends of runs print it: `prefix`, its file and names, then its error's lines, indented. */
export const describeFailure = (test, prefix) =>
  `${prefix}${test.file} › ${test.name.join(' › ')}${test.error ? `\n    ${test.error.split('\n').join('\n    ')}` : ''}`;

export default async function* report(source) {
  const tests = [];
  const open = new Map();
  const grouped = new Set();
  const failedFiles = new Set();
  for await (const event of source) {
    if (event.type !== 'test:start' && event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, file, skip, todo, details } = event.data;
    if (isGroupEntry(file)) {
      // The suite of a grouped file: it fails where the file does not load or a hook of its own fails.
      if (event.type === 'test:start') grouped.add(name);
      if (event.type === 'test:fail' && !failedFiles.has(name)) {
        tests.push({
          file: name,
          name: [`${name} (loading the file, or its hooks)`],
          kind: 'test',
          status: 'fail',
          durationMs: Math.round(details?.duration_ms ?? 0),
          error: failureOf(details?.error),
        });
      }
      continue;
    }
    const key = file ? relative(process.cwd(), file) : '(no file)';
    const nesting = grouped.has(key) ? event.data.nesting - 1 : event.data.nesting;
    const path = open.get(key) ?? [];
    if (event.type === 'test:start') {
      path.length = nesting;
      path.push(name);
      open.set(key, path);
      continue;
    }
    const skipped = skip !== undefined && skip !== false;
    if (skipped && skip === NAME_FILTERED) continue;
    if (event.type === 'test:fail') failedFiles.add(key);
    tests.push({
      file: key,
      name: [...path.slice(0, nesting), name],
      kind: details?.type === 'suite' ? 'suite' : 'test',
      status: event.type === 'test:fail' ? 'fail' : skipped ? 'skip' : todo !== undefined && todo !== false ? 'todo' : 'pass',
      ...(skipped ? { reason: skip === true ? '' : String(skip) } : {}),
      durationMs: Math.round(details?.duration_ms ?? 0),
      ...(event.type === 'test:fail' ? { error: failureOf(details?.error) } : {}),
    });
  }
  yield `${JSON.stringify({ node: process.version, tests }, null, 1)}\n`;
}
