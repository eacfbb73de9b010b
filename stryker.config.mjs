// Mutation testing of the security core (`npm run test:mutation`, docs/testing.md): Stryker changes one piece of
// these files at a time (a condition, a comparison, a string) and runs the unit tests that cover it; a change that
// no test notices is a survivor. The unit tests run as plain Node.js processes (node:test with the TAP reporter,
// TypeScript through tsx), each test file counting as one test for the coverage analysis.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: [
    'src/lti/token-validator.ts',
    'src/lti/roles.ts',
    'src/proctoring/contract.ts',
    'src/hosted/links.ts',
    'src/webhooks/verify.ts',
    'src/control/server.ts',
    'src/admin/sessions.ts',
    'src/admin/sign-in-limits.ts',
  ],
  testRunner: 'tap',
  tap: {
    testFiles: [
      'test/unit/lti/token-validator.test.ts',
      'test/unit/lti/roles.test.ts',
      'test/unit/proctoring/contract.test.ts',
      'test/unit/hosted/links.test.ts',
      'test/unit/webhooks/verify.test.ts',
      'test/unit/control/server.test.ts',
      'test/unit/admin/sessions.test.ts',
      'test/unit/admin/sign-in-limits.test.ts',
    ],
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
