// Failed statements are counted by kind in proctor_lti_database_errors_total, on the database the tests run on
// (PGlite, or PostgreSQL with DATABASE_URL); an outage is counted by test/e2e/faults/database-outage.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { databaseErrorKind, DatabaseUnavailableError } from '../../../src/db/errors.js';
import { metricsRegistry } from '../../../src/metrics.js';
import { openTestDatabase, type TestDatabase } from '../../helpers/db.js';

async function errorCounts(): Promise<Record<string, number>> {
  const metric = await metricsRegistry.getSingleMetric('proctor_lti_database_errors_total')!.get();
  return Object.fromEntries(metric.values.map((value) => [String(value.labels.kind), value.value]));
}

/** How each count moved while `work` ran. */
async function countedDuring(work: () => Promise<unknown>): Promise<Record<string, number>> {
  const before = await errorCounts();
  await work();
  const after = await errorCounts();
  return Object.fromEntries(Object.entries(after).map(([kind, value]) => [kind, value - (before[kind] ?? 0)]));
}

describe('database errors in the metrics', () => {
  let db: TestDatabase;
  before(async () => {
    db = await openTestDatabase();
    await db.query('CREATE TABLE counted (id int PRIMARY KEY)');
    await db.query('INSERT INTO counted VALUES (1)');
  });
  after(async () => {
    await db.close();
  });

  it('every kind is exported before the first error', async () => {
    assert.deepEqual(Object.keys(await errorCounts()).sort(), ['other', 'timeout', 'unavailable']);
  });

  it('a failed statement counts once as other, in a query or in a transaction', async () => {
    assert.deepEqual(await countedDuring(() => assert.rejects(db.query('SELECT * FROM no_such_table'))), { unavailable: 0, timeout: 0, other: 1 });
    const inTransaction = () => assert.rejects(db.transaction(async (tx) => tx.query('SELECT * FROM no_such_table')));
    assert.deepEqual(await countedDuring(inTransaction), { unavailable: 0, timeout: 0, other: 1 });
  });

  it('a constraint violation and an error of the transaction’s own work are not counted', async () => {
    const conflict = () => assert.rejects(db.query('INSERT INTO counted VALUES (1)'), { code: '23505' });
    assert.deepEqual(await countedDuring(conflict), { unavailable: 0, timeout: 0, other: 0 });
    const ownError = () => assert.rejects(db.transaction(async () => Promise.reject(new Error('not the database'))));
    assert.deepEqual(await countedDuring(ownError), { unavailable: 0, timeout: 0, other: 0 });
  });

  it('a statement cancelled by statement_timeout counts as timeout', async (t) => {
    if (db.kind === 'pglite') {
      t.skip('embedded PGlite runs statements in this process and does not cancel them by statement_timeout');
      return;
    }
    const slow = () =>
      assert.rejects(
        db.transaction(async (tx) => {
          await tx.query("SET LOCAL statement_timeout = '50ms'");
          await tx.query('SELECT pg_sleep(2)');
        }),
        { code: '57014' },
      );
    assert.deepEqual(await countedDuring(slow), { unavailable: 0, timeout: 1, other: 0 });
  });

  it('classifies driver errors: lost connections as unavailable, deadlines as timeout', () => {
    const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });
    assert.equal(databaseErrorKind(coded('ECONNREFUSED')), 'unavailable');
    assert.equal(databaseErrorKind(new DatabaseUnavailableError('database unavailable (57P01)', { cause: coded('57P01') })), 'unavailable');
    assert.equal(databaseErrorKind(new DatabaseUnavailableError('database unavailable', { cause: new Error('Query read timeout') })), 'timeout');
    assert.equal(databaseErrorKind(coded('57014', 'canceling statement due to statement timeout')), 'timeout');
    assert.equal(databaseErrorKind(coded('55P03', 'canceling statement due to lock timeout')), 'timeout');
    assert.equal(databaseErrorKind(coded('42P01', 'relation does not exist')), 'other');
    assert.equal(databaseErrorKind(coded('23505', 'duplicate key')), undefined);
  });
});
