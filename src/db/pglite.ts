import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { PGlite, type Results } from '@electric-sql/pglite';
import { quoteSchema } from './postgres.js';
import type { Database, NoticeHandlers, Queryable, QueryResult } from './types.js';

export interface PgliteOptions {
  /** A directory (created if missing) to persist in, or `'memory'` for a throwaway in-memory database. */
  dataDir: string;
  /** Created if missing and used as search_path, as with PostgreSQL. */
  schema?: string;
  /** With `dataDir` `'memory'`: start from this dump of a data directory (`PGlite.dumpDataDir`) instead of an empty cluster. */
  template?: Blob;
}

function toResult<Row>(result: Results<Row>): QueryResult<Row> {
  return { rows: result.rows, rowCount: result.rowCount ?? result.affectedRows ?? result.rows.length };
}

/**
 * A `Database` on embedded PGlite: PostgreSQL in this process, one connection, one process per data directory.
 *
 * PGlite queues every query issued while `transaction()` runs until that transaction ends, so statements of
 * other callers never land inside it (test/unit/db/database.test.ts checks this). The one thing not to do is call
 * this database (rather than `tx`) from inside `work`: that call would wait for the transaction it is in.
 */
export async function openPglite(options: PgliteOptions): Promise<Database> {
  let pg: PGlite;
  if (options.dataDir === 'memory') {
    pg = await PGlite.create(options.template ? { loadDataDir: options.template } : {});
  } else {
    const dataDir = resolve(options.dataDir);
    mkdirSync(dataDir, { recursive: true });
    pg = await PGlite.create(dataDir);
  }
  return pgliteDatabase(pg, options.schema);
}

/** A `Database` on a PGlite instance already open (working in `schema` when given); closing it closes `pg`. */
export async function pgliteDatabase(pg: PGlite, schemaName?: string): Promise<Database> {
  const schema = schemaName === undefined ? undefined : quoteSchema(schemaName);
  if (schema !== undefined) {
    try {
      // The single connection keeps a session-level SET for its whole life.
      await pg.exec(`CREATE SCHEMA IF NOT EXISTS ${schema}; SET search_path TO ${schema}`);
    } catch (err) {
      await pg.close().catch(() => {});
      throw err;
    }
  }

  let closed = false;
  return {
    kind: 'pglite',
    async query<Row extends object>(sql: string, params?: readonly unknown[]): Promise<QueryResult<Row>> {
      return toResult(await pg.query<Row>(sql, params === undefined ? undefined : [...params]));
    },
    async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
      return pg.transaction((tx) =>
        work({
          async query<Row extends object>(sql: string, params?: readonly unknown[]): Promise<QueryResult<Row>> {
            return toResult(await tx.query<Row>(sql, params === undefined ? undefined : [...params]));
          },
        }),
      );
    },
    async ping(): Promise<void> {
      await pg.query('SELECT 1');
    },
    listen(channel: string, handlers: NoticeHandlers): () => Promise<void> {
      // One process, one connection: no notice can be missed, so there is never a gap.
      const unlisten = pg.listen(channel, (payload) => handlers.onNotice(payload));
      return async () => {
        if (closed) return;
        await (await unlisten.catch(() => async () => {}))();
      };
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await pg.close();
    },
  };
}
