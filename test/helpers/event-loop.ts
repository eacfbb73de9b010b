/**
 * Runs `work` while a 5 ms timer watches the event loop: the longest time it went without a turn, and how long the
 * work took, both in milliseconds.
 */
export async function longestHold<T>(work: () => Promise<T>): Promise<{ result: T; longest: number; took: number }> {
  const started = performance.now();
  let last = started;
  let longest = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  try {
    const result = await work();
    const ended = performance.now();
    return { result, longest: Math.max(longest, ended - last), took: ended - started };
  } finally {
    clearInterval(ticker);
  }
}
