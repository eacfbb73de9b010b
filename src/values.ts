/** Small checks on plain values that several features need. */

/** A plain object (not null, not an array): what JSON calls an object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a UUID in its usual hex-and-hyphens spelling (any version, either case): what the database's ids look like. */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

/**
 * A copy of `text` that shares no memory with the string it was cut from. V8 keeps a substring of a long string
 * (a form field parsed out of a request body, say) as a view into the whole, so a field kept in a long-lived
 * cache would keep its whole request body alive with it.
 */
export function detachedCopy(text: string): string {
  return structuredClone(text);
}
