/** What `work` returned, the longest time the event loop went without a turn and how long the work took (ms). */
export interface Hold<T> {
  result: T;
  longest: number;
  took: number;
}

/**
 * Runs `work` while a 5 ms timer watches the event loop: the longest time it went without a turn, and how long the
 * work took, both in milliseconds.
 */
export async function longestHold<T>(work: () => Promise<T>): Promise<Hold<T>> {
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

/**
 * `longestHold` of `work`, measured again, up to `attempts` times in all, while `brief` says a run held the event
 * loop too long. On a busy machine a process waiting for a core looks like a hold in one run; a hold the code makes
 * is in every run. `work` must be repeatable.
 */
export async function leastOfHolds<T>(work: () => Promise<T>, brief: (hold: Hold<T>) => boolean, attempts = 3): Promise<Hold<T>> {
  let hold = await longestHold(work);
  for (let attempt = 1; attempt < attempts && !brief(hold); attempt += 1) hold = await longestHold(work);
  return hold;
}
