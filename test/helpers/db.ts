import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { openDatabase } from '../../src/db/index.js';
import { migrate } from '../../src/db/migrate.js';
import { pgliteDatabase } from '../../src/db/pglite.js';
import { pooledPglite } from './pglite-pool.js';
import { databaseTemplateKey, TEST_CACHE } from './templates.js';
import type { Database, Queryable, QueryResult } from '../../src/db/types.js';

export interface TestDatabase extends Database {
  /** The throwaway schema on PostgreSQL; undefined on in-memory PGlite. */
  readonly schema: string | undefined;
}

/**
 * A dump of a new PGlite cluster, with every migration applied when `migrated`, made by the first test process
 * that needs it and kept on disk under a key of the PGlite version and the migrations' source: a test database
 * starts from it instead of running initdb (seconds of CPU in WebAssembly) and every migration again.
 * Each start copies the whole dump into memory, so it is kept small: 1 MiB write-ahead log segments instead of
 * 16 (30 instead of 40 MB) and a checkpoint first, so the start replays no log.
 */
async function pgliteTemplate(migrated: boolean): Promise<Blob> {
  const path = join(TEST_CACHE, `pglite-small-wal-${databaseTemplateKey(migrated)}.tar`);
  try {
    return new Blob([readFileSync(path)]);
  } catch {
    // not made yet
  }
  const pg = await PGlite.create({ initDbStartParams: ['--wal-segsize=1'] });
  try {
    if (migrated) await migrate(await pgliteDatabase(pg));
    await pg.query('CHECKPOINT');
    const dump = Buffer.from(await (await pg.dumpDataDir('none')).arrayBuffer());
    mkdirSync(TEST_CACHE, { recursive: true });
    // Written aside and renamed, so a test process never reads half a template another one is writing.
    const partial = `${path}.${process.pid}`;
    writeFileSync(partial, dump);
    renameSync(partial, path);
    return new Blob([dump]);
  } finally {
    await pg.close();
  }
}

/**
 * A fresh, empty database for one test file: with DATABASE_URL, PostgreSQL in a uniquely named schema that
 * `close()` drops again; otherwise in-memory PGlite, handed on to the process's next file once closed
 * (pglite-pool.ts).
 */
export async function openTestDatabase(): Promise<TestDatabase> {
  return openFreshDatabase(false);
}

async function openFreshDatabase(migrated: boolean): Promise<TestDatabase> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const { db, close } = await pooledPglite(databaseTemplateKey(migrated), () => pgliteTemplate(migrated));
    return wrap(db, undefined, close);
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
  const db = await openFreshDatabase(true);
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
    query<Row extends object>(sql: string, params?: readonly unknown[]): Promise<QueryResult<Row>> {
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

/**
 * A platform registration as the registration store keeps it (issuer and client id, nothing to launch with):
 * enough for what only asks whether a platform is registered, such as importing its exams.
 */
export async function registeredPlatformRecord(db: Queryable, issuer: string, clientId: string): Promise<void> {
  await db.query("INSERT INTO ltijs_documents (collection, doc) VALUES ('platform', $1)", [JSON.stringify({ platformUrl: issuer, clientId, kid: randomUUID(), name: issuer })]);
}
