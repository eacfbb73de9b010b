// Repeats, at the end of CI's output, every test that failed in the runs whose reports are given, with the first
// lines of its error: each run's own summary scrolls away under the next run's output.
// Usage: node scripts/list-failures.mjs report.json [report.json ...]
import { existsSync, readFileSync } from 'node:fs';
import { describeFailure, failedTests } from './test-report.mjs';

const reports = process.argv.slice(2);
if (reports.length === 0) {
  console.error('Usage: node scripts/list-failures.mjs report.json [report.json ...]');
  process.exit(2);
}

let failures = 0;
for (const path of reports) {
  if (!existsSync(path)) {
    console.log(`${path}: no report (the run did not end)`);
    continue;
  }
  const { node, tests } = JSON.parse(readFileSync(path, 'utf8'));
  const failed = failedTests(tests);
  failures += failed.length;
  console.log(`${path} (node ${node}): ${failed.length} failed`);
  for (const test of failed) console.log(describeFailure(test, '  '));
}
process.exit(failures > 0 ? 1 : 0);
