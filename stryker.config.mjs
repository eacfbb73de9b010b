// Mutation testing of the security core (`npm run test:mutation`, docs/testing.md): Stryker changes one piece of
// these files at a time (a condition, a comparison, a string) and runs the unit tests that cover it; a change that
// no test notices is a survivor. The unit tests run as plain Node.js processes (node:test with the TAP reporter,
// TypeScript through tsx), each test file counting as one test for the coverage analysis.
/** Each file of the security core and the unit test that covers it. */
const SOURCES = {
  'src/lti/token-validator.ts': 'test/unit/lti/token-validator.test.ts',
  'src/lti/roles.ts': 'test/unit/lti/roles.test.ts',
  'src/proctoring/contract.ts': 'test/unit/proctoring/contract.test.ts',
  'src/hosted/links.ts': 'test/unit/hosted/links.test.ts',
  'src/webhooks/verify.ts': 'test/unit/webhooks/verify.test.ts',
  'src/control/server.ts': 'test/unit/control/server.test.ts',
  'src/admin/sessions.ts': 'test/unit/admin/sessions.test.ts',
  'src/admin/sign-in-limits.ts': 'test/unit/admin/sign-in-limits.test.ts',
};

// `--mutate a.ts,b.ts:10-20` narrows the run to those files, and then only their tests run (the initial run
// included, which runs every test file once).
const mutateArgument = process.argv.find((_arg, i) => ['--mutate', '-m'].includes(process.argv[i - 1] ?? ''));
const asked = mutateArgument?.split(',').map((entry) => entry.replace(/:[\d-]+$/, ''));
const testFiles = asked ? asked.map((file) => SOURCES[file]).filter(Boolean) : Object.values(SOURCES);

// Property tests try a few generated cases per mutant instead of hundreds (test/helpers/property-runs.ts): each
// mutant runs its test file again, and the table-driven tests carry the exact cases.
process.env.PROPERTY_RUNS ??= '5';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: Object.keys(SOURCES),
  testRunner: 'tap',
  tap: {
    testFiles,
    nodeArgs: ['--import', 'tsx', '--test-reporter=tap', '-r', '{{hookFile}}', '{{testFile}}'],
    forceBail: true,
  },
  coverageAnalysis: 'perTest',
  // No type checker: a mutant that breaks the types still runs (tsx does not check them) and is killed or survives
  // like any other; `npm run typecheck` keeps the real code typed. Checking each mutant with the whole project's
  // TypeScript program costs more than running its tests.
  // Each test file boots Node.js, tsx and (for the console's files) an embedded database: give them time on a
  // busy machine.
  timeoutMS: 20000,
  dryRunTimeoutMinutes: 30,
  timeoutFactor: 2,
  thresholds: { high: 90, low: 85, break: 85 },
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  incrementalFile: 'reports/mutation/incremental.json',
  ignorePatterns: ['dist', 'data', 'coverage', 'reports', 'test-results', '.stryker-tmp*'],
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
