// Fails when a test was skipped in every run whose report is given: a skip is expected only where another
// configuration runs the test (PostgreSQL-only tests on the embedded database, and the reverse). Each report is
// the TEST_REPORT of one `npm test` run.
// Usage: node scripts/check-skips.mjs report.json [report.json ...]
import { readFileSync } from 'node:fs';

const reports = process.argv.slice(2);
if (reports.length === 0) {
  console.error('Usage: node scripts/check-skips.mjs report.json [report.json ...]');
  process.exit(2);
}

const outcomes = new Map();
for (const path of reports) {
  for (const test of JSON.parse(readFileSync(path, 'utf8')).tests) {
    const key = `${test.file} › ${test.name.join(' › ')}`;
    const seen = outcomes.get(key) ?? { ran: false, reasons: [] };
    if (test.status === 'skip') seen.reasons.push(`${path}: ${test.reason || 'no reason given'}`);
    else seen.ran = true;
    outcomes.set(key, seen);
  }
}

const neverRun = [...outcomes].filter(([, seen]) => !seen.ran);
const skippedSomewhere = [...outcomes].filter(([, seen]) => seen.ran && seen.reasons.length > 0).length;
console.log(`${outcomes.size} tests and suites in ${reports.length} runs; ${skippedSomewhere} skipped in one configuration and run in another.`);
if (neverRun.length > 0) {
  console.error(`${neverRun.length} skipped in every run, so never tested:`);
  for (const [key, seen] of neverRun) console.error(`  ${key}\n    ${seen.reasons.join('\n    ')}`);
  process.exit(1);
}
