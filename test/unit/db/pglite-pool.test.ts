// The embedded test databases of one process are handed on from test file to test file (test/helpers/pglite-pool.ts):
// the next file gets the database as its template made it, never one whose schema a file changed, and a handle a
// file closed reaches nothing any more.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { migratedTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { processEndClosers } from '../../helpers/process-end.js';

const PROCESS_END = Symbol.for('proctor-lti.tests.processEnd');
const txid = async (db: TestDatabase) => Number((await db.query<{ id: string }>('SELECT txid_current()::text AS id')).rows[0]?.id);
const migrations = async (db: TestDatabase) => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations')).rows[0]?.n;

describe('embedded test databases handed on within a process', { skip: process.env.DATABASE_URL ? 'PostgreSQL gives each file a schema of its own' : false }, () => {
  // Under the test runner the process collects closers; a file run on its own gets that for this suite only.
  let ownClosers: Array<() => Promise<void>> | undefined;
  before(() => {
    if (processEndClosers()) return;
    ownClosers = [];
    Reflect.set(globalThis, PROCESS_END, ownClosers);
  });
  after(async () => {
    if (!ownClosers) return;
    for (const close of ownClosers.splice(0)) await close();
    Reflect.deleteProperty(globalThis, PROCESS_END);
  });

  it("the next file gets the template's rows and sequences back, and the closed handle refuses every call", async () => {
    const first = await migratedTestDatabase();
    const seeded = await migrations(first);
    assert.ok(seeded !== undefined && seeded > 0, 'the migrations are recorded');
    const startedAt = await txid(first);
    await first.query('DELETE FROM schema_migrations');
    await first.query("INSERT INTO privacy_notices (exam_id, user_id) SELECT id, 'someone' FROM exams LIMIT 0");
    await first.query("SELECT set_config('application_name', 'left behind', false)");
    await first.close();
    await assert.rejects(first.query('SELECT 1'), /closed/);
    await assert.rejects(first.transaction(async () => undefined), /closed/);

    const next = await migratedTestDatabase();
    try {
      assert.ok((await txid(next)) > startedAt + 2, 'the same instance, handed on (a new one would start from the template\'s transaction ids)');
      assert.equal(await migrations(next), seeded, 'the seeded rows are back');
      assert.equal((await next.query<{ name: string }>("SELECT current_setting('application_name') AS name")).rows[0]?.name === 'left behind', false, 'session settings are discarded');
    } finally {
      await next.close();
    }
  });

  it('a database whose schema a file changed is not handed on', async () => {
    const changed = await migratedTestDatabase();
    await changed.query('CREATE TABLE left_behind (id int)');
    await changed.close();
    const next = await migratedTestDatabase();
    try {
      assert.equal((await next.query<{ found: string | null }>("SELECT to_regclass('left_behind')::text AS found")).rows[0]?.found, null);
    } finally {
      await next.close();
    }
  });
});
