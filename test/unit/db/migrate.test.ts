import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { migrate } from '../../../src/db/migrate.js';
import { migrations, type Migration } from '../../../src/db/migrations/index.js';
import type { Queryable } from '../../../src/db/types.js';
import { openSecondHandle, openTestDatabase } from '../../helpers/db.js';

async function tableExists(db: Queryable, table: string): Promise<boolean> {
  const { rows } = await db.query<{ found: string | null }>('SELECT to_regclass($1)::text AS found', [table]);
  return rows[0]?.found != null;
}

/** Migrations that each record every run of theirs, slowly enough for concurrent runs to overlap. */
function countingMigrations(count: number): Migration[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `${String(i + 1).padStart(4, '0')}_counting`,
    async up(db: Queryable) {
      if (i === 0) await db.query('CREATE TABLE runs (name text NOT NULL)');
      await db.query('SELECT pg_sleep(0.05)');
      await db.query('INSERT INTO runs (name) VALUES ($1)', [`${i + 1}`]);
    },
  }));
}

describe('migrate', () => {
  it('has uniquely named migrations, 0001_ltijs_store first', () => {
    assert.equal(migrations[0]?.name, '0001_ltijs_store');
    assert.equal(new Set(migrations.map((m) => m.name)).size, migrations.length);
  });

  it('applies every migration once, in order, and records it', async () => {
    const db = await openTestDatabase();
    try {
      assert.deepEqual(
        await migrate(db),
        migrations.map((m) => m.name),
      );
      assert.deepEqual(await migrate(db), []);
      const { rows } = await db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
      assert.deepEqual(
        rows.map((row) => row.name),
        migrations.map((m) => m.name).sort(),
      );
      assert.ok(await tableExists(db, 'ltijs_documents'));
    } finally {
      await db.close();
    }
  });

  it('applies only the migrations appended since the last run', async () => {
    const db = await openTestDatabase();
    try {
      const list = countingMigrations(3);
      assert.deepEqual(await migrate(db, list.slice(0, 2)), ['0001_counting', '0002_counting']);
      assert.deepEqual(await migrate(db, list), ['0003_counting']);
      const { rows } = await db.query<{ name: string }>('SELECT name FROM runs ORDER BY name');
      assert.deepEqual(
        rows.map((row) => row.name),
        ['1', '2', '3'],
      );
    } finally {
      await db.close();
    }
  });

  it('runs each migration once when several replicas migrate at the same time', async () => {
    const db = await openTestDatabase();
    const other = await openSecondHandle(db);
    try {
      const list = countingMigrations(4);
      const results = await Promise.all([
        migrate(db, list),
        migrate(other, list),
        migrate(db, list),
        migrate(other, list),
      ]);
      const applied = results.flat().sort();
      assert.deepEqual(
        applied,
        list.map((m) => m.name),
      );
      const { rows } = await db.query<{ name: string; runs: number }>(
        'SELECT name, count(*)::int AS runs FROM runs GROUP BY name ORDER BY name',
      );
      assert.deepEqual(rows, [
        { name: '1', runs: 1 },
        { name: '2', runs: 1 },
        { name: '3', runs: 1 },
        { name: '4', runs: 1 },
      ]);
    } finally {
      await other.close();
      await db.close();
    }
  });

  it('rolls the whole run back when a migration fails', async () => {
    const db = await openTestDatabase();
    try {
      const failing: Migration[] = [
        ...countingMigrations(1),
        {
          name: '0002_broken',
          async up(tx) {
            await tx.query('SELECT * FROM no_such_table');
          },
        },
      ];
      await assert.rejects(migrate(db, failing), /no_such_table/);
      assert.equal(await tableExists(db, 'runs'), false);
      assert.equal(await tableExists(db, 'schema_migrations'), false);
      assert.deepEqual(await migrate(db, countingMigrations(1)), ['0001_counting']);
    } finally {
      await db.close();
    }
  });
});
