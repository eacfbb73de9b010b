import pg from 'pg';
import { watchDatabasePool } from '../metrics.js';
import { asOutage } from './errors.js';
import { preparedName } from './prepared.js';
import { DEFAULT_POOL_SIZE } from '../config.js';
import type { Database, NoticeHandlers, Queryable, QueryResult } from './types.js';
import { errorCode } from '../values.js';

export interface PostgresOptions {
  /** `postgres://user:password@host:port/database` */
  url: string;
  /** Created if missing and used as every connection's search_path; default: the server's (usually `public`). */
  schema?: string;
  /** Bound on opening one connection (TCP, TLS, authentication). Default 5000 ms. */
  connectTimeoutMs?: number;
  /** Bound on waiting for a pooled connection while all are busy (a burst), connecting included. Default 10 s. */
  acquireTimeoutMs?: number;
  /** Pool size. Default DEFAULT_POOL_SIZE. */
  max?: number;
  /**
   * For schema changes (`proctor-lti migrate`): no statement or query timeout, so that a long migration or a wait
   * for the migration lock is not cancelled as a stuck request would be.
   */
  withoutTimeouts?: boolean;
  /** An idle pooled connection failed (server restart, network cut); the pool drops it and reconnects on demand. */
  onError?: (err: Error) => void;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
/**
 * Waiting for a free pooled connection is not an outage: in a class-start burst every connection is busy for
 * a moment. node-postgres bounds that wait and the opening of a connection with one option
 * (`connectionTimeoutMillis`); the pool gets this longer bound and each connection its own, shorter one.
 */
export const DEFAULT_ACQUIRE_TIMEOUT_MS = 10_000;
/**
 * Client-side bound on one query: a server that keeps the socket open but stops answering (network partition,
 * frozen host) must fail the request with a 503 rather than hold it, and its pooled connection, indefinitely.
 */
export const QUERY_TIMEOUT_MS = 15_000;
/** Server-side bounds: a statement the server itself cancels, a transaction left idle is ended (releasing its locks). */
export const STATEMENT_TIMEOUT_MS = 10_000;
export const IDLE_IN_TRANSACTION_TIMEOUT_MS = 30_000;
/**
 * How long a pooled connection may sit unused before it is closed. node-postgres closes them after 10 s: a
 * class starting after a quiet quarter of a minute then first opened up to ten connections again, and its first
 * launches waited for them (twice the p95 of the launches that followed, in the launch bench). Five minutes keeps
 * the pool open through the pauses between exams and still gives connections back overnight.
 */
export const IDLE_CONNECTION_MS = 5 * 60_000;

const INT8_OID = 20;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Double-quotes a schema name after checking it is a plain identifier (it also goes into a startup option). */
export function quoteSchema(schema: string): string {
  if (!IDENTIFIER.test(schema)) throw new Error(`invalid schema name ${JSON.stringify(schema)}: use letters, digits and _`);
  return `"${schema}"`;
}

/**
 * bigint/bigserial/count(*) come back as numbers, as PGlite returns them (node-postgres would give strings),
 * so code tested on one driver behaves the same on the other. Values beyond 2^53 stay exact as BigInt.
 */
function parseInt8(value: string): number | bigint {
  const big = BigInt(value);
  return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
}

const types: pg.CustomTypesConfig = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary' ? parseInt8 : pg.types.getTypeParser(oid, format === 'binary' ? 'binary' : 'text'),
};

/**
 * A named (prepared) statement on the pool. Given as a `{name, text, values}` object, node-postgres copies the object
 * through its property descriptors on every call, about twenty times the cost of a query given as text
 * (docs/performance.md); built from its text, the query only gets its name added.
 */
async function namedQuery<Row extends object>(pool: pg.Pool, name: string, text: string, values: unknown[] | undefined): Promise<pg.QueryResult<Row>> {
  // The pool runs a submittable query as any other and resolves to its result; its typings only know client.query's answer.
  const result: unknown = await pool.query(Object.assign(new pg.Query(text, values), { name }));
  if (!isQueryResult<Row>(result)) throw new Error('node-postgres answered a named statement with something that is not a query result');
  return result;
}

function isQueryResult<Row extends object>(value: unknown): value is pg.QueryResult<Row> {
  return typeof value === 'object' && value !== null && 'rows' in value && Array.isArray(value.rows);
}

function toResult<Row extends object>(result: pg.QueryResult<Row>): QueryResult<Row> {
  return { rows: result.rows, rowCount: result.rowCount ?? 0 };
}

/** node-postgres's client with its own connect deadline (the pool's `connectionTimeoutMillis` is the acquire bound). */
function clientWithConnectTimeout(connectTimeoutMs: number): typeof pg.Client {
  return class extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      super({ ...(typeof config === 'string' ? { connectionString: config } : config), connectionTimeoutMillis: connectTimeoutMs });
    }
  };
}

/** A `Database` on a node-postgres pool. Connections open lazily; the schema (if any) is created here. */
export async function openPostgres(options: PostgresOptions): Promise<Database> {
  const schema = options.schema === undefined ? undefined : quoteSchema(options.schema);
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const pool = new pg.Pool({
    connectionString: options.url,
    Client: clientWithConnectTimeout(connectTimeoutMs),
    connectionTimeoutMillis: Math.max(options.acquireTimeoutMs ?? DEFAULT_ACQUIRE_TIMEOUT_MS, connectTimeoutMs),
    max: options.max ?? DEFAULT_POOL_SIZE,
    idleTimeoutMillis: IDLE_CONNECTION_MS,
    // Idle connections alone do not keep a process alive (the CLI, a test) that is otherwise done.
    allowExitOnIdle: true,
    ...(options.withoutTimeouts
      ? { statement_timeout: 0, application_name: 'proctor-lti (migrations)' }
      : { query_timeout: QUERY_TIMEOUT_MS, statement_timeout: STATEMENT_TIMEOUT_MS, application_name: 'proctor-lti' }),
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
    // A startup parameter, so every pooled connection has it before its first query.
    options: schema === undefined ? undefined : `-c search_path=${schema}`,
    types,
  });
  const onError = options.onError ?? (() => {});
  // Without a listener, an idle client's error would be an unhandled 'error' event and end the process.
  pool.on('error', (err) => onError(err));

  if (schema !== undefined) {
    try {
      await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    } catch (err) {
      // Two processes creating the same schema at once: the loser sees a duplicate, which is fine.
      const code = errorCode(err);
      if (code !== '23505' && code !== '42P06') {
        await pool.end().catch(() => {});
        throw err;
      }
    }
  }

  let closed = false;
  const listeners = new Set<() => Promise<void>>();
  const unwatch = watchDatabasePool(() => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }));
  return {
    kind: 'postgres',
    async query<Row extends object>(sql: string, params?: readonly unknown[]): Promise<QueryResult<Row>> {
      try {
        const values = params === undefined ? undefined : [...params];
        const name = preparedName(sql);
        return toResult(await (name === undefined ? pool.query<Row>(sql, values) : namedQuery<Row>(pool, name, sql, values)));
      } catch (err) {
        throw asOutage(err);
      }
    },
    async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (err) {
        throw asOutage(err);
      }
      let broken: Error | undefined;
      // A checked-out connection has no listener of the pool's: when the server ends it between two queries of
      // the transaction (a restart), its 'error' event would be unhandled and end the process.
      const onLost = (err: Error) => {
        broken = err;
      };
      client.on('error', onLost);
      try {
        await client.query('BEGIN');
        const result = await work({
          async query<Row extends object>(sql: string, params?: readonly unknown[]): Promise<QueryResult<Row>> {
            return toResult(await client.query<Row>(sql, params === undefined ? undefined : [...params]));
          },
        });
        await client.query('COMMIT');
        return result;
      } catch (err) {
        try {
          await client.query('ROLLBACK');
        } catch (rollbackErr) {
          // The connection is unusable: release(err) destroys it instead of returning it to the pool.
          broken = rollbackErr instanceof Error ? rollbackErr : new Error(String(rollbackErr));
        }
        throw asOutage(err);
      } finally {
        client.removeListener('error', onLost);
        client.release(broken);
      }
    },
    async ping(): Promise<void> {
      try {
        await pool.query('SELECT 1');
      } catch (err) {
        throw asOutage(err);
      }
    },
    listen(channel: string, handlers: NoticeHandlers): () => Promise<void> {
      const stop = listenOnOwnConnection({ url: options.url, connectTimeoutMs, channel, handlers });
      const stopOnce = async () => {
        if (listeners.delete(stopOnce)) await stop();
      };
      listeners.add(stopOnce);
      return stopOnce;
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      unwatch();
      await Promise.all([...listeners].map((stop) => stop()));
      await pool.end();
    },
  };
}

/** First and longest pause before the listening connection is opened again. */
export const LISTEN_RETRY_MS = { first: 500, max: 30_000 };

/**
 * LISTEN needs a connection of its own for as long as it listens (a pooled one would be handed to queries).
 * When that connection fails it is opened again after a growing pause, and `onGap` tells that notices sent in
 * between were missed.
 */
function listenOnOwnConnection(options: { url: string; connectTimeoutMs: number; channel: string; handlers: NoticeHandlers }): () => Promise<void> {
  if (!IDENTIFIER.test(options.channel)) throw new Error(`invalid channel name ${JSON.stringify(options.channel)}`);
  const { handlers } = options;
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let pauseMs = LISTEN_RETRY_MS.first;
  let connectedBefore = false;

  const reconnectLater = (err: Error) => {
    handlers.onError?.(err);
    client?.removeAllListeners('notification');
    client?.end().catch(() => {});
    client = undefined;
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, pauseMs);
    retry.unref();
    pauseMs = Math.min(pauseMs * 2, LISTEN_RETRY_MS.max);
  };

  async function connect(): Promise<void> {
    const next = new pg.Client({
      connectionString: options.url,
      connectionTimeoutMillis: options.connectTimeoutMs,
      application_name: 'proctor-lti (change notices)',
      keepAlive: true,
    });
    client = next;
    let failed = false;
    // An error before or after LISTEN (server restart, network cut) ends this connection: open another later.
    next.on('error', (err) => {
      if (failed || client !== next) return;
      failed = true;
      reconnectLater(err);
    });
    next.on('notification', (message) => {
      if (message.channel === options.channel) handlers.onNotice(message.payload ?? '');
    });
    try {
      await next.connect();
      await next.query(`LISTEN "${options.channel}"`);
    } catch (err) {
      if (!failed && client === next) {
        failed = true;
        reconnectLater(err instanceof Error ? err : new Error(String(err)));
      }
      return;
    }
    if (stopped) {
      await next.end().catch(() => {});
      return;
    }
    pauseMs = LISTEN_RETRY_MS.first;
    if (connectedBefore) handlers.onGap();
    connectedBefore = true;
  }

  void connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    const current = client;
    client = undefined;
    current?.removeAllListeners('notification');
    await current?.end().catch(() => {});
  };
}
