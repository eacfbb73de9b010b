/** Small checks on plain values, and the shape of a checked input, that several features need. */

/** One problem of a checked input: the field it is in and what is expected there. */
export interface FieldProblem {
  /** The input field, e.g. a platform's issuer or deploymentIds, an account's apiKey. */
  field: string;
  /** In English, as the CLI and the logs show it. */
  message: string;
  /** Stable name of the problem, for a translated message (the admin console's `admin:problems.<code>`). */
  code?: string;
  /** The values the message names (example, the value received, a limit). */
  values?: Record<string, string | number>;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; problems: FieldProblem[] };

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

/** `value` and every object and array inside it frozen: a value shared by several readers that none may change. */
export function deepFrozen<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFrozen(inner);
    Object.freeze(value);
  }
  return value;
}

/** A property of a value that may be an object (a thrown value, a library's loosely typed object), if any. */
export function propertyOf(value: unknown, key: string): unknown {
  return (typeof value === 'object' && value !== null) || typeof value === 'function' ? Reflect.get(value, key) : undefined;
}

/** The own entries of a record with its key type kept (`Object.entries` widens keys to string). */
export function entriesOf<Key extends string, Value>(record: Readonly<Record<Key, Value>>): Array<[Key, Value]> {
  return Object.keys(record)
    .filter((key): key is Key => Object.hasOwn(record, key))
    .map((key) => [key, record[key]]);
}

/** The `code` an error carries (Node.js's `ENOENT`, PostgreSQL's SQLSTATE, jose's `ERR_JWT_EXPIRED`), if any. */
export function errorCode(error: unknown): unknown {
  return isRecord(error) || error instanceof Error ? Reflect.get(error, 'code') : undefined;
}

/** An error's message, or what was thrown in words. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Whether `value` is one of `choices`, which then gives it their type. */
export function isOneOf<Choice>(choices: readonly Choice[], value: unknown): value is Choice {
  return choices.some((choice) => choice === value);
}

/** A chunk of a byte stream (a `Buffer` unless the stream was given an encoding) as bytes. */
export function bytesOf(chunk: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  return chunk instanceof Uint8Array ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength) : Buffer.from(String(chunk));
}
