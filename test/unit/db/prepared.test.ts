// Statements marked `prepared` are parsed and planned once per PostgreSQL connection; they name their result
// columns, so that a column added by a rolling deployment's migration does not break the copies prepared before.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { openPostgres } from '../../../src/db/postgres.js';
import { prepared, preparedName } from '../../../src/db/prepared.js';
import type { Database } from '../../../src/db/types.js';

describe('prepared statements', () => {
  it('name one statement text each, and only those marked', () => {
    const text = 'SELECT id, status FROM attempts WHERE id = $1';
    assert.equal(prepared(text), text);
    const name = preparedName(text);
    assert.match(name ?? '', /^proctor_[0-9a-f]{24}$/);
    assert.equal(preparedName(prepared(text)), name, 'marked again, the same name');
    assert.notEqual(preparedName(prepared('SELECT id FROM attempts WHERE id = $1')), name);
    assert.equal(preparedName('SELECT status FROM attempts WHERE id = $1'), undefined);
  });

  const wildcards = [
    'SELECT * FROM attempts WHERE id = $1',
    'SELECT a.* FROM attempts a WHERE id = $1',
    'select distinct * from attempts',
    'UPDATE attempts SET status = $2 WHERE id = $1 RETURNING *',
    'WITH x AS (SELECT id FROM attempts) SELECT * FROM x',
  ];
  for (const text of wildcards) {
    it(`refuse a result list a new column would change: ${text}`, () => {
      assert.throws(() => prepared(text), /names its result columns/);
    });
  }

  it('accept count(*) and columns named in full', () => {
    assert.doesNotThrow(() => prepared('SELECT count(*) AS n FROM attempts WHERE exam_id = $1'));
    assert.doesNotThrow(() => prepared('INSERT INTO t (a) SELECT a FROM unnest($1::text[]) AS r (a) RETURNING id'));
  });
});

describe('prepared statements on PostgreSQL', { skip: process.env.DATABASE_URL ? false : 'PostgreSQL only (DATABASE_URL): PGlite runs the text as it is' }, () => {
  const schema = `test_prepared_${randomBytes(4).toString('hex')}`;
  let db: Database;
  before(async () => {
    // One connection: what it has prepared is what the statements below did.
    db = await openPostgres({ url: process.env.DATABASE_URL ?? '', schema, max: 1 });
    await db.query('CREATE TABLE things (id integer PRIMARY KEY, label text NOT NULL)');
    await db.query("INSERT INTO things VALUES (1, 'one')");
  });
  after(async () => {
    await db.query(`DROP SCHEMA ${schema} CASCADE`);
    await db.close();
  });

  const preparedOnConnection = async () => (await db.query<{ name: string; statement: string }>('SELECT name, statement FROM pg_prepared_statements')).rows;

  it('prepares a marked statement once on a connection and runs it bound after that; an unmarked one is not kept', async () => {
    const read = prepared('SELECT label FROM things WHERE id = $1');
    for (let i = 0; i < 3; i++) assert.deepEqual((await db.query(read, [1])).rows, [{ label: 'one' }]);
    const unmarked = 'SELECT id FROM things WHERE label = $1';
    await db.query(unmarked, ['one']);
    const kept = await preparedOnConnection();
    assert.deepEqual(kept.filter((row) => row.statement === read), [{ name: preparedName(read), statement: read }]);
    assert.deepEqual(kept.filter((row) => row.statement === unmarked), []);
  });

  it('still runs after a migration adds a column to its table', async () => {
    const read = prepared('SELECT id, label FROM things WHERE id = $1');
    assert.equal((await db.query(read, [1])).rows.length, 1);
    await db.query('ALTER TABLE things ADD COLUMN added text');
    assert.deepEqual((await db.query(read, [1])).rows, [{ id: 1, label: 'one' }]);
  });
});
