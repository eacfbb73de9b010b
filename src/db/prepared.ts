import { createHash } from 'node:crypto';

/** Statement texts marked with `prepared`, and the name each is prepared under. */
const names = new Map<string, string>();

/** A result list that a column added later would change: `*`, `t.*`, `RETURNING *`. */
const WILDCARD_RESULT = /\b(?:SELECT|RETURNING)\s+(?:DISTINCT\s+)?(?:\w+\.)?\*/i;

/**
 * Marks a statement that runs on every launch: on PostgreSQL each pooled connection parses and plans it once and
 * then only binds and runs it, which takes about half the CPU of a short statement, on the server and in the tool.
 * The text must be fixed (no values spliced in per call) and name its result columns: a statement prepared before
 * a rolling deployment's migration added a column would otherwise fail with "cached plan must not change result
 * type" until its connection closed. PGlite runs the text as it is. Returns the text, to be passed to `query`.
 */
export function prepared(text: string): string {
  if (WILDCARD_RESULT.test(text)) throw new Error(`a prepared statement names its result columns, not *: ${text.slice(0, 120)}`);
  if (!names.has(text)) names.set(text, `proctor_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`);
  return text;
}

/** The name a statement marked with `prepared` is prepared under; undefined for any other statement. */
export function preparedName(text: string): string | undefined {
  return names.get(text);
}
