import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Database, Queryable } from '../../db/types.js';

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
}

/** First key of the advisory locks that serialise `Replace` per (collection, query). */
const REPLACE_LOCK = 0x6c74696a;

const TABLE = 'ltijs_documents';
const LIVE = '(expires_at IS NULL OR expires_at > now())';

export class LtijsStore {
  readonly #db: Database;
  readonly #ttl: Partial<Record<LtijsCollection, number>>;
  #deployed = false;

  constructor(db: Database, options: LtijsStoreOptions = {}) {
    this.#db = db;
    this.#ttl = { ...LTIJS_TTL_SECONDS, ...options.ttlSeconds };
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
    const params: unknown[] = [name];
    const where = matchQuery(query, params);
    const { rows } = await this.#db.query<{ doc: LtijsDocument; created_at: Date }>(
      `SELECT doc, created_at FROM ${TABLE} WHERE collection = $1 AND ${LIVE} AND ${where} ORDER BY id`,
      params,
    );
    if (rows.length === 0) return false;
    const hasCreatedAt = this.#ttl[name] !== undefined;
    return Promise.all(
      rows.map(async ({ doc, created_at: createdAt }) => {
        if (!ENCRYPTIONKEY) {
          // Mongo's documents of expiring collections carry their createdAt (a Date).
          return hasCreatedAt && doc.createdAt === undefined ? { ...doc, createdAt } : doc;
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
    this.#checkDeployed();
    if (!collection || !item || (ENCRYPTIONKEY && !index)) throw new Error('MISSING_PARAMS');
    const name = checkCollection(collection);
    await insert(this.#db, name, await this.#stored(ENCRYPTIONKEY, item, index), this.#ttl[name] ?? null);
    return true;
  }

  /**
   * Upsert: the first document matching `query` becomes `item` (or is created). One transaction, serialised by an
   * advisory lock on (collection, query): concurrent launches of one user all replace the same idtoken and
   * contexttoken rows and none fails or leaves a duplicate (ltijs-sequelize's unguarded delete-then-insert
   * lost a third of them). The query's own fields are kept in the row so the next Replace finds it again.
   */
  async Replace(
    ENCRYPTIONKEY: LtijsEncryptionKey,
    collection: string,
    query: LtijsDocument,
    item: LtijsDocument,
    index?: LtijsDocument,
  ): Promise<true> {
    this.#checkDeployed();
    if (!collection || !item || (ENCRYPTIONKEY && !index)) throw new Error('MISSING_PARAMS');
    const name = checkCollection(collection);
    const doc = { ...scalarFields(query), ...(await this.#stored(ENCRYPTIONKEY, item, index)) };
    const ttl = this.#ttl[name] ?? null;
    await this.#db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1::int, hashtext($2::text))', [
        REPLACE_LOCK,
        canonicalJson([name, query ?? {}]),
      ]);
      const params: unknown[] = [name];
      const where = matchQuery(query, params);
      // Expired matches count too: replacing one renews it.
      const { rows } = await tx.query<{ id: number | bigint | null }>(
        `SELECT min(id) AS id FROM ${TABLE} WHERE collection = $1 AND ${where}`,
        params,
      );
      const keep = rows[0]?.id ?? null;
      if (keep !== null) {
        const updated = await tx.query(
          `UPDATE ${TABLE} SET doc = $2::text::jsonb, created_at = now(),
             expires_at = now() + $3::double precision * interval '1 second'
           WHERE id = $1`,
          [keep, JSON.stringify(doc), ttl],
        );
        // A concurrent Delete (which does not take the lock) may have removed it meanwhile.
        if (updated.rowCount > 0) return;
      }
      await insert(tx, name, doc, ttl);
    });
    return true;
  }

  /** Sets the fields of `modification` on the first live document matching `query`; no match is no change. */
  async Modify(
    ENCRYPTIONKEY: LtijsEncryptionKey,
    collection: string,
    query: LtijsDocument,
    modification: LtijsDocument,
  ): Promise<true> {
    this.#checkDeployed();
    if (!collection || !query || !modification) throw new Error('MISSING_PARAMS');
    const name = checkCollection(collection);
    const params: unknown[] = [name];
    const where = matchQuery(query, params);
    const firstMatch = `SELECT id FROM ${TABLE} WHERE collection = $1 AND ${LIVE} AND ${where} ORDER BY id LIMIT 1`;
    if (!ENCRYPTIONKEY) {
      await this.#db.query(
        `UPDATE ${TABLE} SET doc = doc || $${params.length + 1}::text::jsonb WHERE id = (${firstMatch})`,
        [...params, JSON.stringify(modification)],
      );
      return true;
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
    return true;
  }

  /** Deletes every document matching `query` (`{}` matches the whole collection, as in Mongo). */
  async Delete(collection: string, query: LtijsDocument): Promise<true> {
    this.#checkDeployed();
    if (!collection || !query) throw new Error('MISSING_PARAMS');
    const name = checkCollection(collection);
    const params: unknown[] = [name];
    const where = matchQuery(query, params);
    await this.#db.query(`DELETE FROM ${TABLE} WHERE collection = $1 AND ${where}`, params);
    return true;
  }

  /** AES-256-CBC under SHA-256(secret), hex-encoded: the format of ltijs's Mongo store. */
  async Encrypt(data: string, secret: string): Promise<{ iv: string; data: string }> {
    const key = createHash('sha256').update(secret).digest();
    const iv = randomBytes(16);
    const cipher = createCipheriv('aes-256-cbc', key, iv);
    const encrypted = Buffer.concat([cipher.update(data), cipher.final()]);
    return { iv: iv.toString('hex'), data: encrypted.toString('hex') };
  }

  async Decrypt(data: string, iv: string, secret: string): Promise<string> {
    const key = createHash('sha256').update(secret).digest();
    const decipher = createDecipheriv('aes-256-cbc', key, Buffer.from(iv, 'hex'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'hex')), decipher.final()]).toString();
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

  #checkDeployed(): void {
    if (!this.#deployed) throw new Error('PROVIDER_NOT_DEPLOYED');
  }
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
  if (!(LTIJS_COLLECTIONS as readonly string[]).includes(collection)) {
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
