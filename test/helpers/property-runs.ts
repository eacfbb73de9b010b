/**
 * How many generated cases a property test tries: `runs`, or at most PROPERTY_RUNS when that is set. A mutation
 * run sets it (stryker.config.mjs): each mutant runs the test file again, and a few cases per property still
 * kill what a property can kill, while the table-driven tests beside it carry the exact cases.
 */
export function propertyRuns(runs: number): number {
  const cap = Number(process.env.PROPERTY_RUNS);
  return Number.isInteger(cap) && cap > 0 ? Math.min(runs, cap) : runs;
}
