// Page-pattern benchmark: the slowest accepted patterns found, each compiled and matched against texts
// of the longest length the tool evaluates. It fails when one evaluation takes longer than the budget:
// a pattern that an instructor may save must never hold the process for long.
// Usage: npm run bench:patterns [-- --budget 250]
import { parseArgs } from 'node:util';
import { compilePagePattern, MAX_SUBJECT_LENGTH } from '../src/proctoring/patterns.js';

const { values } = parseArgs({ options: { budget: { type: 'string', default: '250' } } });
const BUDGET_MS = Number(values.budget);

// Nested and alternated repetitions close to the size bound, and the classic catastrophic ones.
const PATTERNS = [
  '^https://x\\.example/(a+)+$',
  '^(\\w+\\s?)*$',
  '(\\w*\\d*[a-z]*){1,130}q',
  '(.*){1,399}',
  '(x{1,30}){1,30}',
  '(a|b|c|d|e|f|g|h)*'.repeat(50) + 'z',
  '[\\s\\S]{0,999}z',
  '(.{100}){10}',
];
const SUBJECTS = ['a', 'ab', 'xyzq', 'a1', 'word '].map((unit) => unit.repeat(Math.ceil(MAX_SUBJECT_LENGTH / unit.length)).slice(0, MAX_SUBJECT_LENGTH - 1) + '!');

let failed = false;
for (const source of PATTERNS) {
  const compileStart = performance.now();
  const compiled = compilePagePattern(source);
  const compileMs = performance.now() - compileStart;
  if (!compiled.ok) {
    console.log(`${source.slice(0, 40).padEnd(42)} refused: ${compiled.reason}`);
    continue;
  }
  let worst = 0;
  for (const subject of SUBJECTS) {
    const started = performance.now();
    compiled.test(subject);
    worst = Math.max(worst, performance.now() - started);
  }
  const over = compileMs + worst > BUDGET_MS;
  failed ||= over;
  console.log(`${source.slice(0, 40).padEnd(42)} compile ${compileMs.toFixed(1)} ms, slowest match ${worst.toFixed(1)} ms${over ? '  OVER BUDGET' : ''}`);
}
if (failed) {
  console.error(`Some pattern took longer than ${BUDGET_MS} ms.`);
  process.exitCode = 1;
}
