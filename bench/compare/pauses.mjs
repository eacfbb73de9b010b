// Preloaded (`node --import`) into both tools' processes by `bench/compare.ts --pauses`: writes each garbage
// collection and each stall of the event loop longer than STALL_MS to BENCH_PAUSES_FILE, one JSON line each with
// its wall-clock time, so that the bench can tell which pauses fell in which run. Neither tool's code changes.
import { appendFileSync } from 'node:fs';
import { constants, PerformanceObserver } from 'node:perf_hooks';

const file = process.env.BENCH_PAUSES_FILE;
const STALL_MS = 20;
const TICK_MS = 5;

if (file) {
  const lines = [];
  const flush = () => {
    if (lines.length > 0) appendFileSync(file, lines.splice(0).join(''));
  };
  const kinds = { [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major', [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor', [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental', [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak' };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      lines.push(`${JSON.stringify({ at: performance.timeOrigin + entry.startTime + entry.duration, ms: entry.duration, what: `gc ${kinds[entry.detail?.kind] ?? 'other'}` })}\n`);
    }
  }).observe({ entryTypes: ['gc'] });
  // A stall with CPU time for at least half its length ran code (or collected garbage); one with less waited for a core (the machine is busy).
  let expected = performance.now() + TICK_MS;
  let cpu = process.cpuUsage();
  setInterval(() => {
    const now = performance.now();
    const late = now - expected;
    const used = process.cpuUsage(cpu);
    if (late > STALL_MS) {
      const ran = (used.user + used.system) / 1000 > (late + TICK_MS) * 0.5;
      lines.push(`${JSON.stringify({ at: performance.timeOrigin + now, ms: late, what: ran ? 'stall running' : 'stall waiting' })}\n`);
    }
    cpu = process.cpuUsage();
    expected = now + TICK_MS;
  }, TICK_MS).unref();
  setInterval(flush, 500).unref();
}
