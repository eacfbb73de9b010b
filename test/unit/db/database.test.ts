import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DatabaseUnavailableError, openDatabase } from '../../../src/db/index.js';
import { openTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { sleep } from '../../helpers/wait.js';


describe('database', () => {
  let db: TestDatabase;

  before(async () => {
    db = await openTestDatabase();
    await db.query('CREATE TABLE items (id serial PRIMARY KEY, name text NOT NULL, data jsonb)');
  });
  after(() => db.close());

  it('is PostgreSQL with DATABASE_URL and PGlite without', () => {
    assert.equal(db.kind, process.env.DATABASE_URL ? 'postgres' : 'pglite');
  });

  it('passes parameters and reports affected rows', async () => {
    const inserted = await db.query<{ id: number; name: string }>(
      'INSERT INTO items (name, data) VALUES ($1, $2::text::jsonb), ($3, NULL) RETURNING id, name',
      ['first', JSON.stringify({ nested: ['a', 1] }), 'second'],
    );
    assert.equal(inserted.rowCount, 2);
    assert.deepEqual(
      inserted.rows.map((row) => row.name),
      ['first', 'second'],
    );
    const selected = await db.query<{ name: string; data: unknown }>('SELECT name, data FROM items WHERE name = $1', [
      'first',
    ]);
    assert.deepEqual(selected.rows, [{ name: 'first', data: { nested: ['a', 1] } }]);
    const updated = await db.query('UPDATE items SET name = name || $1 WHERE name IN ($2, $3)', ['!', 'first', 'second']);
    assert.equal(updated.rowCount, 2);
  });

  it('returns bigint and count(*) as numbers on both drivers', async () => {
    const { rows } = await db.query<{ n: unknown; big: unknown }>('SELECT count(*) AS n, 42::bigint AS big FROM items');
    assert.equal(typeof rows[0]?.n, 'number');
    assert.equal(rows[0]?.big, 42);
  });

  it('surfaces SQL errors with their SQLSTATE code', async () => {
    await assert.rejects(db.query('SELECT * FROM no_such_table'), (err: Error & { code?: string }) => {
      assert.equal(err.code, '42P01');
      return true;
    });
  });

  it('commits a transaction', async () => {
    const result = await db.transaction(async (tx) => {
      await tx.query('INSERT INTO items (name) VALUES ($1)', ['committed']);
      const { rows } = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM items WHERE name = $1', [
        'committed',
      ]);
      return rows[0]?.n;
    });
    assert.equal(result, 1);
    const { rows } = await db.query('SELECT 1 FROM items WHERE name = $1', ['committed']);
    assert.equal(rows.length, 1);
  });

  it('rolls a transaction back when its work throws, and rethrows', async () => {
    await assert.rejects(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO items (name) VALUES ($1)', ['rolled back']);
        throw new Error('boom');
      }),
      /boom/,
    );
    const { rows } = await db.query('SELECT 1 FROM items WHERE name = $1', ['rolled back']);
    assert.equal(rows.length, 0);
  });

  it('rolls back when a statement inside the transaction fails', async () => {
    await assert.rejects(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO items (name) VALUES ($1)', ['before error']);
        await tx.query('INSERT INTO items (name) VALUES (NULL)');
      }),
    );
    const { rows } = await db.query('SELECT 1 FROM items WHERE name = $1', ['before error']);
    assert.equal(rows.length, 0);
    await db.ping();
  });

  it('keeps queries issued during a transaction out of it', async () => {
    let inside!: () => void;
    const started = new Promise<void>((resolve) => (inside = resolve));
    const transaction = db.transaction(async (tx) => {
      await tx.query('INSERT INTO items (name) VALUES ($1)', ['inside']);
      inside();
      await sleep(150);
      await tx.query('INSERT INTO items (name) VALUES ($1)', ['inside too']);
      throw new Error('undo');
    });
    await started;
    // Issued while the transaction is open: must neither join it (and be rolled back) nor see its rows.
    const outside = db.query<{ n: number }>(
      `WITH ins AS (INSERT INTO items (name) VALUES ('outside') RETURNING 1)
       SELECT (SELECT count(*)::int FROM items WHERE name LIKE 'inside%') AS n FROM ins`,
    );
    await assert.rejects(transaction, /undo/);
    const { rows } = await outside;
    assert.deepEqual(rows, [{ n: 0 }]);
    const names = await db.query<{ name: string }>(
      `SELECT name FROM items WHERE name IN ('inside', 'inside too', 'outside')`,
    );
    assert.deepEqual(
      names.rows.map((row) => row.name),
      ['outside'],
    );
  });

  it('runs concurrent transactions without mixing them', async () => {
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        db.transaction(async (tx) => {
          await tx.query('INSERT INTO items (name) VALUES ($1)', [`tx-${i}`]);
          await sleep(5);
          if (i % 2 === 1) throw new Error('odd');
          await tx.query('INSERT INTO items (name) VALUES ($1)', [`tx-${i}-b`]);
        }).catch(() => undefined),
      ),
    );
    const { rows } = await db.query<{ name: string }>(`SELECT name FROM items WHERE name LIKE 'tx-%' ORDER BY name`);
    assert.deepEqual(
      rows.map((row) => row.name),
      ['tx-0', 'tx-0-b', 'tx-2', 'tx-2-b', 'tx-4', 'tx-4-b', 'tx-6', 'tx-6-b', 'tx-8', 'tx-8-b'],
    );
  });

  it('pings', async () => {
    await db.ping();
  });

  it('works in its own schema on PostgreSQL, on every pooled connection', async (t) => {
    if (db.schema === undefined) {
      t.skip('PostgreSQL only (set DATABASE_URL)');
      return;
    }
    const schemas = await Promise.all(
      Array.from({ length: 12 }, () =>
        db.query<{ schema: string }>('SELECT current_schema() AS schema, pg_sleep(0.02)').then((r) => r.rows[0]?.schema),
      ),
    );
    assert.deepEqual(new Set(schemas), new Set([db.schema]));
    const inTransaction = await db.transaction(async (tx) => (await tx.query<{ s: string }>('SELECT current_schema() AS s')).rows[0]?.s);
    assert.equal(inTransaction, db.schema);
    const { rows } = await db.query('SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2', [
      db.schema,
      'items',
    ]);
    assert.equal(rows.length, 1);
  });
});

describe('PGlite data directory', () => {
  const root = mkdtempSync(join(tmpdir(), 'proctor-lti-pglite-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('creates the directory and keeps data across close and reopen', async () => {
    const dataDir = join(root, 'nested', 'data');
    const first = await openDatabase({ dataDir });
    assert.equal(first.kind, 'pglite');
    await first.query('CREATE TABLE kept (value text)');
    await first.query('INSERT INTO kept VALUES ($1)', ['still here']);
    await first.close();

    const second = await openDatabase({ dataDir });
    try {
      const { rows } = await second.query<{ value: string }>('SELECT value FROM kept');
      assert.deepEqual(rows, [{ value: 'still here' }]);
    } finally {
      await second.close();
    }
  });
});

describe('PGlite schema option', () => {
  it('creates the schema and works in it', async () => {
    const db = await openDatabase({ dataDir: 'memory', schema: 'install_a' });
    try {
      await db.query('CREATE TABLE t (x int)');
      const { rows } = await db.query<{ schema: string }>(
        `SELECT current_schema() AS schema, (SELECT table_schema FROM information_schema.tables WHERE table_name = 't') AS t`,
      );
      assert.deepEqual(rows, [{ schema: 'install_a', t: 'install_a' }]);
    } finally {
      await db.close();
    }
  });

  it('refuses a schema name that is not a plain identifier', async () => {
    await assert.rejects(openDatabase({ dataDir: 'memory', schema: 'x"; DROP' }), /invalid schema name/);
  });
});

describe('unreachable PostgreSQL', () => {
  const password = 'n0t-Th3-Passw0rd';

  it('throws DatabaseUnavailableError naming host, port and database, never the password', async () => {
    const started = Date.now();
    const err = await openDatabase({ url: `postgres://tool:${password}@127.0.0.1:1/proctoring`, dataDir: 'memory' }).then(
      () => assert.fail('connected to port 1'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof DatabaseUnavailableError, String(err));
    assert.match(err.message, /127\.0\.0\.1:1\b/);
    assert.match(err.message, /"proctoring"/);
    assert.match(err.message, /ECONNREFUSED/);
    assert.doesNotMatch(err.message, new RegExp(password));
    assert.ok(Date.now() - started < 20_000);
  });

  it('times out against a server that never answers', async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    assert.ok(address && typeof address === 'object');
    try {
      const started = Date.now();
      const err = await openDatabase({
        url: `postgres://tool:${password}@127.0.0.1:${address.port}/proctoring`,
        dataDir: 'memory',
        connectTimeoutMs: 300,
      }).then(
        () => assert.fail('connected to a silent server'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof DatabaseUnavailableError, String(err));
      assert.match(err.message, new RegExp(`127\\.0\\.0\\.1:${address.port}`));
      assert.match(err.message, /timeout/i);
      assert.doesNotMatch(err.message, new RegExp(password));
      assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('rejects a malformed URL without echoing it', async () => {
    await assert.rejects(openDatabase({ url: `not a url ${password}`, dataDir: 'memory' }), (err: Error) => {
      assert.ok(err instanceof DatabaseUnavailableError);
      assert.doesNotMatch(err.message, new RegExp(password));
      return true;
    });
  });
});
