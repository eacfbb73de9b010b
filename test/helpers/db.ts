import { randomBytes } from 'node:crypto';
import { openDatabase } from '../../src/db/index.js';
import { migrate } from '../../src/db/migrate.js';
import type { Database, Queryable, QueryResult } from '../../src/db/types.js';

export interface TestDatabase extends Database {
  /** The throwaway schema on PostgreSQL; undefined on in-memory PGlite. */
  readonly schema: string | undefined;
}

/**
 * A fresh, empty database for one test file: with DATABASE_URL, PostgreSQL in a uniquely named schema that
 * `close()` drops again; otherwise in-memory PGlite.
 */
export async function openTestDatabase(): Promise<TestDatabase> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const db = await openDatabase({ dataDir: 'memory' });
    return wrap(db, undefined, () => db.close());
  }
  const schema = `test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const db = await openDatabase({ url, dataDir: 'memory', schema });
  return wrap(db, schema, async () => {
    try {
      await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    } finally {
      await db.close();
    }
  });
}

/** `openTestDatabase()` with every migration applied. */
export async function migratedTestDatabase(): Promise<TestDatabase> {
  const db = await openTestDatabase();
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}

/**
 * A second, independent handle on the same data (its own pool on the same schema), as another replica would
 * have. PGlite is single-connection: there it is the same database, and its `close()` leaves it open.
 */
export async function openSecondHandle(db: TestDatabase): Promise<Database> {
  const url = process.env.DATABASE_URL;
  if (!url || db.schema === undefined) return wrap(db, db.schema, async () => {});
  return openDatabase({ url, dataDir: 'memory', schema: db.schema });
}

function wrap(db: Database, schema: string | undefined, close: () => Promise<void>): TestDatabase {
  return {
    kind: db.kind,
    schema,
    query<Row>(sql: string, params?: readonly unknown[]): Promise<QueryResult<Row>> {
      return db.query<Row>(sql, params);
    },
    transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
      return db.transaction(work);
    },
    ping: () => db.ping(),
    listen: (channel, handlers) => db.listen(channel, handlers),
    close,
  };
}
