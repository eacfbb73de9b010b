// The in-memory PGlite databases of one test process, each started from a template dump (db.ts) and handed on from
// test file to test file: a start costs one to two seconds of CPU (a 30 MB data directory read and loaded), putting
// a database back as its template left it a few statements. A database goes back to the process's spares only when
// its schema is still the template's (tables, columns, indexes, constraints, functions, triggers, schemas, roles
// and settings compared); then every table is emptied, the rows the migrations seeded are written back with their
// sequences, and the session is discarded (settings, listeners, temporary tables, locks). Anything else, or a
// failure while resetting, closes it. The handle a file was given refuses every call once closed, so a late query
// of a closed app can never reach the next file's data.
// Only in a process the test runner started for a group of files (process-end.ts): a file run on its own gets a
// database of its own, closed with it.
import { PGlite } from '@electric-sql/pglite';
import { countingErrors } from '../../src/db/error-counting.js';
import { pgliteDatabase } from '../../src/db/pglite.js';
import type { Database, QueryResult, Queryable } from '../../src/db/types.js';
import { processEndClosers } from './process-end.js';

/** What a database looks like as its template made it, taken once per process and template. */
interface Baseline {
  shape: string;
  tables: string[];
  rows: Array<{ table: string; columns: string[]; json: string }>;
  sequences: Array<{ name: string; value: string; called: boolean }>;
}

const spares = new Map<string, PGlite[]>();
const baselines = new Map<string, Baseline>();
/** Spares kept per template; a file rarely holds more than one database at a time. */
const MAX_SPARES = 2;
const RESET_TIMEOUT_MS = 15_000;

/** Everything a test could change about the schema or the cluster's settings, as one comparable text. */
const SHAPE = `
  SELECT string_agg(item, E'\\n' ORDER BY item) AS shape FROM (
    SELECT 'column ' || table_schema || '.' || table_name || '.' || column_name || ' ' || data_type || ' ' || coalesce(column_default, '') || ' ' || is_nullable AS item
      FROM information_schema.columns WHERE table_schema NOT IN ('pg_catalog', 'information_schema')
    UNION ALL SELECT 'index ' || schemaname || '.' || indexname || ' ' || indexdef FROM pg_indexes WHERE schemaname NOT IN ('pg_catalog', 'information_schema')
    UNION ALL SELECT 'constraint ' || conrelid::regclass::text || '.' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint WHERE connamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
    UNION ALL SELECT 'function ' || p.oid::regprocedure::text || ' ' || md5(p.prosrc) FROM pg_proc p WHERE p.pronamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
    UNION ALL SELECT 'trigger ' || tgrelid::regclass::text || '.' || tgname || ' ' || tgenabled::text FROM pg_trigger WHERE NOT tgisinternal
    UNION ALL SELECT 'schema ' || nspname FROM pg_namespace
    UNION ALL SELECT 'relation ' || c.oid::regclass::text || ' ' || c.relkind::text FROM pg_class c WHERE c.relnamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace) AND c.relnamespace::regnamespace::text NOT LIKE 'pg_toast%' AND c.relpersistence <> 't'
    UNION ALL SELECT 'role ' || rolname FROM pg_roles
    UNION ALL SELECT 'setting ' || coalesce(setdatabase::text, '') || ' ' || coalesce(setrole::text, '') || ' ' || array_to_string(setconfig, ',') FROM pg_db_role_setting
  ) items`;

async function baselineOf(pg: PGlite): Promise<Baseline> {
  const shape = await shapeOf(pg);
  const tables = (await pg.query<{ name: string }>("SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1")).rows.map((row) => row.name);
  const rows: Baseline['rows'] = [];
  for (const table of tables) {
    const json = (await pg.query<{ json: string | null }>(`SELECT json_agg(t)::text AS json FROM ${table} t`)).rows[0]?.json;
    if (!json) continue;
    const columns = (
      await pg.query<{ name: string }>(
        "SELECT format('%I', attname) AS name FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = '' ORDER BY attnum",
        [table],
      )
    ).rows.map((row) => row.name);
    rows.push({ table, columns, json });
  }
  const sequences = (
    await pg.query<{ name: string; value: string | null; called: boolean }>(
      "SELECT format('%I.%I', schemaname, sequencename) AS name, last_value::text AS value, last_value IS NOT NULL AS called FROM pg_sequences WHERE schemaname NOT IN ('pg_catalog', 'information_schema')",
    )
  ).rows.map((row) => ({ name: row.name, value: row.value ?? '1', called: row.called }));
  return { shape, tables, rows, sequences };
}

async function shapeOf(pg: PGlite): Promise<string> {
  return (await pg.query<{ shape: string }>(SHAPE)).rows[0]?.shape ?? '';
}

/** Puts the database back as the template made it, or throws when it cannot be (its schema changed). */
async function reset(pg: PGlite, baseline: Baseline): Promise<void> {
  await pg.exec('DISCARD ALL');
  if ((await shapeOf(pg)) !== baseline.shape) throw new Error('the schema changed');
  await pg.transaction(async (tx) => {
    if (baseline.tables.length > 0) await tx.exec(`TRUNCATE ${baseline.tables.join(', ')} CASCADE`);
    // The seeded rows as they were, foreign keys and triggers left alone while they go back.
    await tx.exec('SET LOCAL session_replication_role = replica');
    for (const { table, columns, json } of baseline.rows) {
      const list = columns.join(', ');
      await tx.query(`INSERT INTO ${table} (${list}) OVERRIDING SYSTEM VALUE SELECT ${list} FROM json_populate_recordset(NULL::${table}, $1::json)`, [json]);
    }
    for (const { name, value, called } of baseline.sequences) await tx.query('SELECT setval($1::regclass, $2::bigint, $3)', [name, value, called]);
  });
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not done within ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

async function giveBack(key: string, pg: PGlite): Promise<void> {
  const kept = spares.get(key) ?? [];
  const baseline = baselines.get(key);
  try {
    if (!baseline || kept.length >= MAX_SPARES) throw new Error('not kept');
    await withTimeout(reset(pg, baseline), RESET_TIMEOUT_MS);
    kept.push(pg);
    spares.set(key, kept);
  } catch {
    await pg.close().catch(() => {});
  }
}

let closesAtProcessEnd = false;

/** A database from `template` (its cache key `key`): a spare of this process reset, or a new one. */
export async function pooledPglite(key: string, template: () => Promise<Blob>): Promise<{ db: Database; close(): Promise<void> }> {
  const closers = processEndClosers();
  if (!closers) {
    const db = countingErrors(await pgliteDatabase(await PGlite.create({ loadDataDir: await template() })));
    return { db, close: () => db.close() };
  }
  if (!closesAtProcessEnd) {
    closesAtProcessEnd = true;
    closers.push(async () => {
      for (const kept of spares.values()) for (const pg of kept.splice(0)) await pg.close().catch(() => {});
    });
  }
  let pg = spares.get(key)?.pop();
  if (!pg) {
    pg = await PGlite.create({ loadDataDir: await template() });
    // Taken from a database no file has used yet; without it nothing is handed on (giveBack closes).
    if (!baselines.has(key)) {
      try {
        baselines.set(key, await baselineOf(pg));
      } catch (error) {
        await pg.close().catch(() => {});
        throw error;
      }
    }
  }
  return lend(key, pg);
}

/** A handle on `pg` for one file: closing it gives `pg` back; after that every call is refused. */
function lend(key: string, pg: PGlite): Promise<{ db: Database; close(): Promise<void> }> {
  return pgliteDatabase(pg).then((opened) => {
    const inner = countingErrors(opened);
    let closed = false;
    const listening = new Set<() => Promise<void>>();
    const open = () => {
      if (closed) throw new Error('this test database was closed (its PGlite instance may serve another test file now)');
    };
    const db: Database = {
      kind: inner.kind,
      async query<Row extends object>(sql: string, params?: readonly unknown[]): Promise<QueryResult<Row>> {
        open();
        return inner.query<Row>(sql, params);
      },
      async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
        open();
        return inner.transaction(work);
      },
      async ping() {
        open();
        await inner.ping();
      },
      listen(channel, handlers) {
        open();
        const stop = inner.listen(channel, handlers);
        listening.add(stop);
        return async () => {
          listening.delete(stop);
          await stop();
        };
      },
      async close() {
        if (closed) return;
        closed = true;
        for (const stop of [...listening]) await stop().catch(() => {});
        listening.clear();
        await giveBack(key, pg);
      },
    };
    return { db, close: () => db.close() };
  });
}
