/**
 * What the test runner's process entry runs after the process's last test (scripts/run-tests.mjs), where it runs
 * the test files; undefined in a process that runs one file on its own. What a helper keeps for the next file of
 * its process (a browser, a spare database) is closed there.
 */
export function processEndClosers(): Array<() => Promise<void>> | undefined {
  const closers: unknown = Reflect.get(globalThis, Symbol.for('proctor-lti.tests.processEnd'));
  return Array.isArray(closers) ? closers : undefined;
}
