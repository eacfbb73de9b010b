/** Resolves after `ms` milliseconds: only for tests whose subject is the passing of time itself. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface WaitOptions {
  /** How long the condition may take before the wait fails. */
  timeoutMs?: number;
  /** How often the condition is checked. */
  intervalMs?: number;
}

/**
 * Checks `condition` until it holds and fails with `what` once `timeoutMs` has passed. A check that throws counts
 * as "not yet", and its last error is attached to the failure.
 */
export async function waitFor(what: string, condition: () => boolean | Promise<boolean>, { timeoutMs = 10_000, intervalMs = 20 }: WaitOptions = {}): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      if (await condition()) return;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`, lastError === undefined ? {} : { cause: lastError });
    await sleep(intervalMs);
  }
}

/**
 * A pace for a loop that puts load on the app: each call resolves once `intervalMs` has passed since the previous
 * call resolved. A test's load runs at a steady rate, never as fast as the machine allows: a loop at full speed
 * takes every core for as long as the test runs, from the app and from the tests beside it.
 */
export function pace(intervalMs: number): () => Promise<void> {
  let last = 0;
  return async () => {
    const wait = last + intervalMs - Date.now();
    if (wait > 0) await sleep(wait);
    last = Date.now();
  };
}
