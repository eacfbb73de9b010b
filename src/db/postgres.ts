import pg from 'pg';
import type { Database, Queryable, QueryResult } from './types.js';

export interface PostgresOptions {
  /** `postgres://user:password@host:port/database` */
  url: string;
  /** Created if missing and used as every connection's search_path; default: the server's (usually `public`). */
  schema?: string;
  /** Bound on opening one connection (TCP, TLS, authentication). Default 5000 ms. */
  connectTimeoutMs?: number;
  /** Pool size. Default 10. */
  max?: number;
  /** An idle pooled connection failed (server restart, network cut); the pool drops it and reconnects on demand. */
  onError?: (err: Error) => void;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 5000;

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
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary'
      ? parseInt8
      : pg.types.getTypeParser(oid, format === 'binary' ? 'binary' : 'text')) as typeof pg.types.getTypeParser,
};

function toResult<Row>(result: pg.QueryResult): QueryResult<Row> {
  return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
}

/** A `Database` on a node-postgres pool. Connections open lazily; the schema (if any) is created here. */
export async function openPostgres(options: PostgresOptions): Promise<Database> {
  const schema = options.schema === undefined ? undefined : quoteSchema(options.schema);
  const pool = new pg.Pool({
    connectionString: options.url,
    connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    max: options.max ?? 10,
    application_name: 'proctor-lti',
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
      const code = (err as { code?: unknown }).code;
      if (code !== '23505' && code !== '42P06') {
        await pool.end().catch(() => {});
        throw err;
      }
    }
  }

  let closed = false;
  return {
    kind: 'postgres',
    async query<Row>(sql: string, params?: readonly unknown[]): Promise<QueryResult<Row>> {
      return toResult<Row>(await pool.query(sql, params === undefined ? undefined : [...params]));
    },
    async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        const result = await work({
          async query<Row>(sql: string, params?: readonly unknown[]): Promise<QueryResult<Row>> {
            return toResult<Row>(await client.query(sql, params === undefined ? undefined : [...params]));
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
        throw err;
      } finally {
        client.release(broken);
      }
    },
    async ping(): Promise<void> {
      await pool.query('SELECT 1');
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}
