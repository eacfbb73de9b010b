import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Database, Queryable } from '../../db/types.js';
import { readGeneration } from '../../db/read-cache.js';
import { isOneOf } from '../../values.js';

/**
 * ltijs 5.9.9's database plugin contract, on our PostgreSQL/PGlite layer.
 *
 * ltijs calls `setup`, `Close`, `Get`, `Insert`, `Replace`, `Modify` and `Delete` on `database.plugin`; the
 * reference is its Mongo implementation, node_modules/ltijs/dist/Utils/Database.js, whose behaviour this class
 * follows: same arguments, return values and errors, same encryption (rows written with an ENCRYPTIONKEY hold
 * the `index` fields in clear plus `iv` and `data`), same lifetimes as its TTL indexes. Differences, each on
 * purpose: every field ltijs passes is kept (Mongo's schemas drop unknown ones); `Replace` is atomic even under
 * concurrent calls and keeps the query's fields in the row it writes (see there); an encrypted `Modify` applies
 * every field of the modification, not only the first one.
 *
 * Documents live in the table `ltijs_documents` (migration 0001_ltijs_store), one jsonb row each. Queries are
 * top-level equality, as ltijs uses them; a null or undefined value matches a missing or null field, as the
 * Mongo driver treats it (so `Delete('publickey', { kid: undefined })` deletes no key that has a kid).
 */

/** The collections ltijs 5.9.9 uses. */
export const LTIJS_COLLECTIONS = [
  'platform',
  'platformStatus',
  'publickey',
  'privatekey',
  'accesstoken',
  'idtoken',
  'contexttoken',
  'nonce',
  'state',
] as const;
export type LtijsCollection = (typeof LTIJS_COLLECTIONS)[number];

/** The `expires` of ltijs's Mongo schemas, in seconds after a document is written. */
export const LTIJS_TTL_SECONDS: Readonly<Partial<Record<LtijsCollection, number>>> = {
  idtoken: 24 * 3600,
  contexttoken: 24 * 3600,
  accesstoken: 3600,
  nonce: 10,
  state: 600,
};

export type LtijsDocument = Record<string, unknown>;
/** ltijs passes its ENCRYPTIONKEY, or `false` for documents it keeps in clear. */
export type LtijsEncryptionKey = string | false | null | undefined;

export interface LtijsStoreOptions {
  /** Overrides of LTIJS_TTL_SECONDS per collection. */
  ttlSeconds?: Partial<Record<LtijsCollection, number>>;
  /**
   * Earlier values of the encryption key (ENCRYPTION_KEY's older entries during a key rotation): documents
   * they encrypted still decrypt. ltijs itself only knows its one key, which new documents are written with.
   */
  olderKeys?: readonly string[];
  /**
   * How long a read of the collections ltijs reads on every launch and rarely writes (platform, platformStatus,
   * publickey, privatekey) is reused in this process; 0 (the default) reads the database every time. A write
   * through this store empties that collection's reads at once; a change made by another process (a replica,
   * the CLI on PostgreSQL) as soon as its change notice arrives (db/change-notices.ts), or after at most this long.
   */
  cacheSeconds?: number;
  /** True for a query known to match no document without asking the database (its Get answers `false`). */
  knownAbsent?: (collection: LtijsCollection, query: LtijsDocument | undefined) => boolean;
}

/** An idtoken or contexttoken replace prepared but not yet written (`heldReplace`, `writeHeldReplaces`). */
export interface HeldReplace {
  collection: LtijsCollection;
  query: LtijsDocument;
  doc: LtijsDocument;
  ttl: number | null;
}

/** The collections whose reads `cacheSeconds` keeps: read by every login and launch, written by administrators. */
export const CACHED_COLLECTIONS: ReadonlySet<LtijsCollection> = new Set(['platform', 'platformStatus', 'publickey', 'privatekey']);

type StoredRow = { doc: LtijsDocument; created_at: Date };

/**
 * The collections every launch replaces and ltijs never modifies: their rows carry the key of the query that
 * replaced them (`replace_key`, unique per collection, migration 0015), so a Replace is one statement.
 */
const KEYED_COLLECTIONS: ReadonlySet<LtijsCollection> = new Set(['idtoken', 'contexttoken']);

/** First key of the advisory locks that serialise `Replace` per (collection, query). */
const REPLACE_LOCK = 0x6c74696a;

const TABLE = 'ltijs_documents';
const LIVE = '(expires_at IS NULL OR expires_at > now())';

export class LtijsStore {
  readonly #db: Database;
  readonly #ttl: Partial<Record<LtijsCollection, number>>;
  readonly #olderKeys: readonly string[];
  readonly #cacheMs: number;
  readonly #knownAbsent: LtijsStoreOptions['knownAbsent'];
  /** Per cached collection: the rows each query read, and when they stop being reused. */
  readonly #reads = new Map<LtijsCollection, Map<string, { rows: Promise<StoredRow[]>; until: number; generation: number }>>();
  #deployed = false;

  constructor(db: Database, options: LtijsStoreOptions = {}) {
    this.#db = db;
    this.#ttl = { ...LTIJS_TTL_SECONDS, ...options.ttlSeconds };
    this.#olderKeys = options.olderKeys ?? [];
    this.#cacheMs = Math.max(0, (options.cacheSeconds ?? 0) * 1000);
    this.#knownAbsent = options.knownAbsent;
  }

  /** Called by `lti.deploy()`. Fails there, not at the first launch, when the database or migration is missing. */
  async setup(): Promise<true> {
    try {
      await this.#db.query(`SELECT 1 FROM ${TABLE} LIMIT 1`);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new Error(`ltijs store unavailable (has migration 0001_ltijs_store run?): ${reason}`, { cause: err });
    }
    this.#deployed = true;
    return true;
  }

  /** Called by `lti.close()`. The database is shared with the rest of the tool: its owner closes it, not ltijs. */
  async Close(): Promise<true> {
    this.#deployed = false;
    return true;
  }

  /** The matching documents, oldest first, decrypted when a key is given; `false` when none match. */
  async Get(
    ENCRYPTIONKEY: LtijsEncryptionKey,
    collection: string,
    query?: LtijsDocument,
  ): Promise<LtijsDocument[] | false> {
    this.#checkDeployed();
    const name = checkCollection(collection);
    if (this.#knownAbsent?.(name, query)) return false;
    const rows = await this.#read(name, query);
    if (rows.length === 0) return false;
    const hasCreatedAt = this.#ttl[name] !== undefined;
    return Promise.all(
      rows.map(async ({ doc, created_at: createdAt }) => {
        if (!ENCRYPTIONKEY) {
          // Mongo's documents of expiring collections carry their createdAt (a Date). A copy: the caller may change it.
          return hasCreatedAt && doc.createdAt === undefined ? { ...structuredClone(doc), createdAt } : structuredClone(doc);
        }
        const decrypted = JSON.parse(await this.Decrypt(...encryptedParts(doc, name), ENCRYPTIONKEY)) as LtijsDocument;
        // As Mongo's Get: milliseconds, which ltijs's access-token cache subtracts from Date.now().
        if (hasCreatedAt) decrypted.createdAt = createdAt.getTime();
        return decrypted;
      }),
    );
  }

  async Insert(
    ENCRYPTIONKEY: LtijsEncryptionKey,
    collection: string,
    item: LtijsDocument,
    index?: LtijsDocument,
  ): Promise<true> {
    return this.#write(collection, Boolean(item) && (!ENCRYPTIONKEY || Boolean(index)), async (name) => {
      await insert(this.#db, name, await this.#stored(ENCRYPTIONKEY, item, index), this.#ttl[name] ?? null);
    });
  }

  /**
   * Upsert: the first document matching `query` becomes `item` (or is created), atomically: concurrent launches
   * of one user all replace the same idtoken and contexttoken rows and none fails or leaves a duplicate
   * (ltijs-sequelize's unguarded delete-then-insert lost a third of them). idtoken and contexttoken, written by
   * launches: one INSERT … ON CONFLICT on the query's key (`writeHeldReplaces`); the other collections: one transaction serialised
   * by an advisory lock on (collection, query). The query's own fields are kept in the row so the next Replace
   * finds it again.
   */
  async Replace(
    ENCRYPTIONKEY: LtijsEncryptionKey,
    collection: string,
    query: LtijsDocument,
    item: LtijsDocument,
    index?: LtijsDocument,
  ): Promise<true> {
    return this.#write(collection, Boolean(item) && (!ENCRYPTIONKEY || Boolean(index)), async (name) => {
      const doc = { ...scalarFields(query), ...(await this.#stored(ENCRYPTIONKEY, item, index)) };
      const ttl = this.#ttl[name] ?? null;
      if (KEYED_COLLECTIONS.has(name)) {
        await this.writeHeldReplaces([{ collection: name, query: query ?? {}, doc, ttl }]);
        return;
      }
      await this.#db.transaction(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock($1::int, hashtext($2::text))', [
          REPLACE_LOCK,
          canonicalJson([name, query ?? {}]),
        ]);
        // One statement: the first match (expired ones count too: replacing one renews it) becomes the document,
        // or it is inserted. A concurrent Delete (which does not take the lock) may have removed the match
        // meanwhile: then the update changes no row and the document is inserted.
        const params: unknown[] = [name, JSON.stringify(doc), ttl];
        const where = matchQuery(query, params);
        await tx.query(
          `WITH keep AS (SELECT min(id) AS id FROM ${TABLE} WHERE collection = $1 AND ${where}),
                updated AS (
                  UPDATE ${TABLE} SET doc = $2::text::jsonb, created_at = now(),
                    expires_at = now() + $3::double precision * interval '1 second'
                  WHERE id = (SELECT id FROM keep) RETURNING id)
           INSERT INTO ${TABLE} (collection, doc, expires_at)
           SELECT $1, $2::text::jsonb, now() + $3::double precision * interval '1 second'
           WHERE NOT EXISTS (SELECT 1 FROM updated)`,
          params,
        );
      });
    });
  }

  /**
   * An unencrypted idtoken or contexttoken `Replace`, prepared and not written: the tool's launch route holds its
   * session's two until the answer needs them (a launch answered with a redirect never writes them), then
   * writes both in one statement (`writeHeldReplaces`).
   */
  heldReplace(collection: 'idtoken' | 'contexttoken', query: LtijsDocument, item: LtijsDocument): HeldReplace {
    this.#checkDeployed();
    return { collection, query, doc: { ...scalarFields(query), ...item }, ttl: this.#ttl[collection] ?? null };
  }

  /**
   * Writes idtoken and contexttoken replaces in one statement. Each key's row is updated in place, or inserted;
   * any other match (a row written before the key existed) is removed in the same statement. Concurrent replaces
   * of one query meet on the unique key.
   */
  async writeHeldReplaces(replaces: readonly HeldReplace[]): Promise<void> {
    if (replaces.length === 0) return;
    this.#checkDeployed();
    const params: unknown[] = [];
    const parts = replaces.map((replace, i) => {
      params.push(replace.collection, JSON.stringify(replace.doc), replace.ttl, canonicalJson([replace.collection, replace.query]));
      const [collection, doc, ttl, key] = [params.length - 3, params.length - 2, params.length - 1, params.length];
      const where = matchQuery(replace.query, params);
      return `stale${i} AS (DELETE FROM ${TABLE} WHERE collection = $${collection} AND ${where} AND replace_key IS DISTINCT FROM $${key}),
        replaced${i} AS (
          INSERT INTO ${TABLE} (collection, doc, expires_at, replace_key)
          VALUES ($${collection}, $${doc}::text::jsonb, now() + $${ttl}::double precision * interval '1 second', $${key})
          ON CONFLICT (collection, replace_key) WHERE replace_key IS NOT NULL
          DO UPDATE SET doc = excluded.doc, created_at = now(), expires_at = excluded.expires_at)`;
    });
    await this.#db.query(`WITH ${parts.join(',\n')} SELECT 1`, params);
  }

  /** Sets the fields of `modification` on the first live document matching `query`; no match is no change. */
  async Modify(
    ENCRYPTIONKEY: LtijsEncryptionKey,
    collection: string,
    query: LtijsDocument,
    modification: LtijsDocument,
  ): Promise<true> {
    return this.#write(collection, Boolean(query) && Boolean(modification), async (name) => {
      const params: unknown[] = [name];
      const where = matchQuery(query, params);
      const firstMatch = `SELECT id FROM ${TABLE} WHERE collection = $1 AND ${LIVE} AND ${where} ORDER BY id LIMIT 1`;
      await this.#modify(ENCRYPTIONKEY, name, params, firstMatch, modification);
    });
  }

  async #modify(ENCRYPTIONKEY: LtijsEncryptionKey, name: LtijsCollection, params: unknown[], firstMatch: string, modification: LtijsDocument): Promise<void> {
    if (!ENCRYPTIONKEY) {
      await this.#db.query(
        `UPDATE ${TABLE} SET doc = doc || $${params.length + 1}::text::jsonb WHERE id = (${firstMatch})`,
        [...params, JSON.stringify(modification)],
      );
      return;
    }
    await this.#db.transaction(async (tx) => {
      const { rows } = await tx.query<{ id: number | bigint; doc: LtijsDocument }>(
        `SELECT id, doc FROM ${TABLE} WHERE id = (${firstMatch}) FOR UPDATE`,
        params,
      );
      const row = rows[0];
      if (!row) return;
      const current = JSON.parse(await this.Decrypt(...encryptedParts(row.doc, name), ENCRYPTIONKEY)) as LtijsDocument;
      const encrypted = await this.Encrypt(JSON.stringify({ ...current, ...modification }), ENCRYPTIONKEY);
      await tx.query(`UPDATE ${TABLE} SET doc = doc || $2::text::jsonb WHERE id = $1`, [
        row.id,
        JSON.stringify(encrypted),
      ]);
    });
  }

  /** Deletes every document matching `query` (`{}` matches the whole collection, as in Mongo). */
  async Delete(collection: string, query: LtijsDocument): Promise<true> {
    return this.#write(collection, Boolean(query), async (name) => {
      const params: unknown[] = [name];
      const where = matchQuery(query, params);
      await this.#db.query(`DELETE FROM ${TABLE} WHERE collection = $1 AND ${where}`, params);
    });
  }

  /** AES-256-CBC under SHA-256(secret), hex-encoded: the format of ltijs's Mongo store. */
  async Encrypt(data: string, secret: string): Promise<{ iv: string; data: string }> {
    const key = createHash('sha256').update(secret).digest();
    const iv = randomBytes(16);
    const cipher = createCipheriv('aes-256-cbc', key, iv);
    const encrypted = Buffer.concat([cipher.update(data), cipher.final()]);
    return { iv: iv.toString('hex'), data: encrypted.toString('hex') };
  }

  /** Decrypts with `secret`, or else with an older key (see LtijsStoreOptions.olderKeys). */
  async Decrypt(data: string, iv: string, secret: string): Promise<string> {
    return decryptWithAnyKey(data, iv, [secret, ...this.#olderKeys]);
  }

  /** Deletes expired documents (reads already skip them); returns how many. Run it now and then. */
  async purgeExpired(): Promise<number> {
    const { rowCount } = await this.#db.query(`DELETE FROM ${TABLE} WHERE expires_at <= now()`);
    return rowCount;
  }

  async #stored(key: LtijsEncryptionKey, item: LtijsDocument, index?: LtijsDocument): Promise<LtijsDocument> {
    if (!key) return item;
    const encrypted = await this.Encrypt(JSON.stringify(item), key);
    return { ...index, iv: encrypted.iv, data: encrypted.data };
  }

  /** The live rows matching `query`, oldest first; reused for `cacheSeconds` in the cached collections. */
  #read(name: LtijsCollection, query: LtijsDocument | undefined): Promise<StoredRow[]> {
    const params: unknown[] = [name];
    const where = matchQuery(query, params);
    const load = async () =>
      (await this.#db.query<StoredRow>(`SELECT doc, created_at FROM ${TABLE} WHERE collection = $1 AND ${LIVE} AND ${where} ORDER BY id`, params)).rows;
    if (this.#cacheMs === 0 || !CACHED_COLLECTIONS.has(name)) return load();
    const reads = this.#reads.get(name) ?? new Map<string, { rows: Promise<StoredRow[]>; until: number; generation: number }>();
    this.#reads.set(name, reads);
    const key = canonicalJson(query ?? {});
    const now = Date.now();
    const cached = reads.get(key);
    const generation = readGeneration();
    if (cached && cached.until > now && cached.generation === generation) return cached.rows;
    // Concurrent launches share one read; a failed read is not kept.
    const rows = load();
    const entry = { rows, until: now + this.#cacheMs, generation };
    reads.set(key, entry);
    rows.catch(() => {
      if (reads.get(key) === entry) reads.delete(key);
    });
    return rows;
  }

  /**
   * One write: checks that the store is deployed and the call `complete` (ltijs's MISSING_PARAMS otherwise), runs
   * `write` on the checked collection and forgets that collection's cached reads, whether or not it succeeded.
   */
  async #write(collection: string, complete: boolean, write: (name: LtijsCollection) => Promise<void>): Promise<true> {
    this.#checkDeployed();
    if (!collection || !complete) throw new Error('MISSING_PARAMS');
    const name = checkCollection(collection);
    try {
      await write(name);
    } finally {
      this.#forget(name);
    }
    return true;
  }

  /** A write to a collection: its reads are read again. */
  #forget(name: LtijsCollection): void {
    this.#reads.delete(name);
  }

  #checkDeployed(): void {
    if (!this.#deployed) throw new Error('PROVIDER_NOT_DEPLOYED');
  }
}

function decryptWith(data: string, iv: string, secret: string): string {
  const key = createHash('sha256').update(secret).digest();
  const decipher = createDecipheriv('aes-256-cbc', key, Buffer.from(iv, 'hex'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'hex')), decipher.final()]).toString();
}

/**
 * CBC has no authentication: a wrong key fails the padding check almost always, and the rare wrong key that
 * passes it yields bytes that are not JSON (every document ltijs encrypts is JSON). The first key giving JSON wins.
 */
function decryptWithAnyKey(data: string, iv: string, keys: readonly string[]): string {
  let lastError: unknown;
  for (const key of keys) {
    try {
      const text = decryptWith(data, iv, key);
      JSON.parse(text);
      return text;
    } catch (error) {
      lastError = error;
    }
  }
  throw new Error('an encrypted ltijs document opens with none of the encryption keys', { cause: lastError });
}

/**
 * Whether one of `keys` decrypts the tool's private LTI keys (ltijs's `privatekey` documents): undefined when
 * there is none yet.
 */
export async function opensLtijsDocuments(db: Queryable, keys: readonly string[]): Promise<boolean | undefined> {
  const { rows } = await db.query<{ iv: string; data: string }>(
    `SELECT doc->>'iv' AS iv, doc->>'data' AS data FROM ${TABLE}
     WHERE collection = 'privatekey' AND jsonb_typeof(doc->'iv') = 'string' AND jsonb_typeof(doc->'data') = 'string'
     ORDER BY id LIMIT 1`,
  );
  const row = rows[0];
  if (!row) return undefined;
  try {
    decryptWithAnyKey(row.data, row.iv, keys);
    return true;
  } catch {
    return false;
  }
}

/**
 * Re-encrypts every encrypted ltijs document with `keys[0]` (the newest key), reading it with any of `keys`.
 * Run inside one transaction by the key-rotation command; returns how many documents were rewritten.
 */
export async function reencryptLtijsDocuments(tx: Queryable, keys: readonly string[]): Promise<number> {
  const newest = keys[0];
  if (!newest) throw new Error('no encryption key');
  const { rows } = await tx.query<{ id: number | bigint; iv: string; data: string }>(
    `SELECT id, doc->>'iv' AS iv, doc->>'data' AS data FROM ${TABLE}
     WHERE jsonb_typeof(doc->'iv') = 'string' AND jsonb_typeof(doc->'data') = 'string' ORDER BY id FOR UPDATE`,
  );
  for (const row of rows) {
    const text = decryptWithAnyKey(row.data, row.iv, keys);
    const key = createHash('sha256').update(newest).digest();
    const iv = randomBytes(16);
    const cipher = createCipheriv('aes-256-cbc', key, iv);
    const encrypted = Buffer.concat([cipher.update(text), cipher.final()]);
    await tx.query(`UPDATE ${TABLE} SET doc = doc || $2::text::jsonb WHERE id = $1`, [
      row.id,
      JSON.stringify({ iv: iv.toString('hex'), data: encrypted.toString('hex') }),
    ]);
  }
  return rows.length;
}

async function insert(tx: Queryable, collection: string, doc: LtijsDocument, ttl: number | null): Promise<void> {
  await tx.query(
    `INSERT INTO ${TABLE} (collection, doc, expires_at)
     VALUES ($1, $2::text::jsonb, now() + $3::double precision * interval '1 second')`,
    [collection, JSON.stringify(doc), ttl],
  );
}

function checkCollection(collection: string): LtijsCollection {
  if (!collection) throw new Error('MISSING_COLLECTION');
  if (!isOneOf(LTIJS_COLLECTIONS, collection)) {
    throw new Error(`UNKNOWN_COLLECTION: ${collection}`);
  }
  return collection as LtijsCollection;
}

function encryptedParts(doc: LtijsDocument, collection: string): [data: string, iv: string] {
  if (typeof doc.data !== 'string' || typeof doc.iv !== 'string') {
    throw new Error(`ltijs ${collection} document is not encrypted but was read with a key`);
  }
  return [doc.data, doc.iv];
}

/**
 * SQL conditions on `doc` for a top-level equality query, appending its parameters to `params`. Scalars go
 * into one `doc @> …` (served by the GIN index); objects and arrays must also be equal, not merely contained.
 */
function matchQuery(query: LtijsDocument | undefined, params: unknown[]): string {
  const conditions: string[] = [];
  const contained: LtijsDocument = {};
  for (const [field, value] of Object.entries(query ?? {})) {
    if (field.startsWith('$')) throw new Error(`unsupported query operator ${field}`);
    if (value === undefined || value === null) {
      params.push(field);
      conditions.push(`coalesce(doc -> $${params.length}::text, 'null'::jsonb) = 'null'::jsonb`);
      continue;
    }
    contained[field] = value;
    if (typeof value === 'object') {
      params.push(field, JSON.stringify(value));
      conditions.push(`doc -> $${params.length - 1}::text = $${params.length}::text::jsonb`);
    }
  }
  if (Object.keys(contained).length > 0) {
    params.push(JSON.stringify(contained));
    conditions.unshift(`doc @> $${params.length}::text::jsonb`);
  }
  return conditions.length > 0 ? conditions.join(' AND ') : 'true';
}

function scalarFields(query: LtijsDocument | undefined): LtijsDocument {
  return Object.fromEntries(
    Object.entries(query ?? {}).filter(([, value]) => value !== undefined && value !== null && typeof value !== 'object'),
  );
}

/** JSON with sorted keys and undefined as null, so equal queries lock the same key. */
function canonicalJson(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${canonicalJson(field)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
