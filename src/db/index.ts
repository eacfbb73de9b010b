import { openPglite } from './pglite.js';
import { DEFAULT_CONNECT_TIMEOUT_MS, openPostgres } from './postgres.js';
import { DatabaseUnavailableError } from './errors.js';
import { countingErrors } from './error-counting.js';
import type { Database } from './types.js';
import { errorCode } from '../values.js';

export type { Database, Queryable, QueryResult } from './types.js';
export { DatabaseUnavailableError, isOutage } from './errors.js';

export interface OpenDatabaseOptions {
  /** PostgreSQL URL (DATABASE_URL). Without it, embedded PGlite in `dataDir`. */
  url?: string;
  /** PGlite data directory, or `'memory'`. Ignored when `url` is given. */
  dataDir: string;
  /** Schema to create if missing and work in (default: the server's search_path, usually `public`). */
  schema?: string;
  /** In-memory PGlite only: start from this dump of a data directory instead of an empty cluster. */
  pgliteTemplate?: Blob;
  /** PostgreSQL pool size (DATABASE_POOL_SIZE); default DEFAULT_POOL_SIZE. */
  poolSize?: number;
  /** A connection for schema changes: no statement timeout (see PostgresOptions.withoutTimeouts). */
  forSchemaChanges?: boolean;
  /** Bound on connecting and on the first `SELECT 1`. Default 5000 ms. */
  connectTimeoutMs?: number;
  /** An idle PostgreSQL connection failed; the pool has already dropped it. */
  onError?: (err: Error) => void;
}

/** Opens PostgreSQL (`url`) or PGlite (`dataDir`) and checks it answers, or throws `DatabaseUnavailableError`. */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const timeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  if (options.url) {
    const { url } = options;
    const target = describePostgresUrl(url);
    const secrets = passwordForms(url);
    return openChecked(
      () =>
        openPostgres({
          url,
          schema: options.schema,
          connectTimeoutMs: timeoutMs,
          onError: options.onError,
          max: options.forSchemaChanges ? 1 : options.poolSize,
          withoutTimeouts: options.forSchemaChanges,
        }),
      timeoutMs,
      (reason) => redact(`Cannot connect to ${target}: ${reason}`, secrets),
    );
  }
  const target = options.dataDir === 'memory' ? 'in-memory PGlite database' : `PGlite database in ${options.dataDir}`;
  return openChecked(
    () => openPglite({ dataDir: options.dataDir, schema: options.schema, template: options.pgliteTemplate }),
    // PGlite's first start in a new directory runs initdb, which takes a few seconds on a slow machine.
    Math.max(timeoutMs, 60_000),
    (reason) => `Cannot open the ${target}: ${reason}`,
  );
}

async function openChecked(
  open: () => Promise<Database>,
  timeoutMs: number,
  message: (reason: string) => string,
): Promise<Database> {
  let db: Database | undefined;
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  const attempt = (async () => {
    db = countingErrors(await open());
    await db.ping();
    return db;
  })();
  // pg's connection timeout covers connecting; this also covers a server that connects but never answers.
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs + 1000);
  });
  try {
    return await Promise.race([attempt, deadline]);
  } catch (err) {
    if (timedOut) {
      // Close whatever opens late, without waiting for it.
      attempt.then((late) => late.close()).catch(() => {});
    } else {
      await db?.close().catch(() => {});
    }
    throw new DatabaseUnavailableError(message(reasonOf(err)), { cause: err });
  } finally {
    clearTimeout(timer);
  }
}

function describePostgresUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DatabaseUnavailableError(
      'DATABASE_URL is not a valid URL (expected postgres://user:password@host:port/database)',
    );
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new DatabaseUnavailableError(
      `DATABASE_URL must start with postgres:// or postgresql:// (got ${parsed.protocol}//)`,
    );
  }
  const host = decode(parsed.hostname) || parsed.searchParams.get('host') || 'localhost';
  const port = parsed.port || parsed.searchParams.get('port') || '5432';
  const user = decode(parsed.username);
  const database = decode(parsed.pathname.replace(/^\//, '')) || user;
  const details = [database ? `database "${database}"` : undefined, user ? `user "${user}"` : undefined]
    .filter((part) => part !== undefined)
    .join(', ');
  return `PostgreSQL at ${host}:${port}${details ? ` (${details})` : ''}`;
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function passwordForms(url: string): string[] {
  try {
    const raw = new URL(url).password;
    return raw ? [raw, decode(raw)] : [];
  } catch {
    return [];
  }
}

function redact(text: string, secrets: readonly string[]): string {
  return secrets.reduce((result, secret) => result.split(secret).join('***'), text);
}

/** The driver's reason; node's AggregateError (every address of a host refused) has an empty message. */
function reasonOf(err: unknown): string {
  if (err instanceof DatabaseUnavailableError && err.cause !== undefined) return reasonOf(err.cause);
  if (err instanceof AggregateError && !err.message) {
    return [...new Set(err.errors.map(reasonOf))].join('; ');
  }
  if (err instanceof Error) {
    const code = errorCode(err);
    const message = err.message || err.name;
    return typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
  }
  return String(err);
}
