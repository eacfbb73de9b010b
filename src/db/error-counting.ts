import { countDatabaseError } from '../metrics.js';
import { databaseErrorKind, DatabaseUnavailableError } from './errors.js';
import type { Database, Queryable, QueryResult } from './types.js';
import { errorCode, propertyOf } from '../values.js';

/** Errors already counted where they were thrown, so a transaction that passes one on does not count it again. */
const counted = new WeakSet<object>();

function count(error: unknown): void {
  if (typeof error !== 'object' || error === null || counted.has(error)) return;
  const cause = propertyOf(error, 'cause');
  if (typeof cause === 'object' && cause !== null && counted.has(cause)) return;
  counted.add(error);
  const kind = databaseErrorKind(error);
  if (kind) countDatabaseError(kind);
}

const SQLSTATE = /^[0-9A-Z]{5}$/;

/** True for what the database or its driver threw (an outage, a SQLSTATE), not for an error of the transaction's own work. */
function fromDatabase(error: unknown): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  const code = errorCode(error);
  return typeof code === 'string' && SQLSTATE.test(code);
}

function countingQueries(queryable: Queryable): Queryable {
  return {
    async query<Row extends object>(sql: string, params?: readonly unknown[]): Promise<QueryResult<Row>> {
      try {
        return await queryable.query<Row>(sql, params);
      } catch (error) {
        count(error);
        throw error;
      }
    },
  };
}

/**
 * The same database, counting every failed statement in `proctor_lti_database_errors_total` by kind. A
 * transaction counts its statements' errors and its own (connecting, BEGIN, COMMIT), not what its work throws.
 */
export function countingErrors(db: Database): Database {
  return {
    kind: db.kind,
    query: countingQueries(db).query,
    async transaction(work) {
      try {
        return await db.transaction((tx) => work(countingQueries(tx)));
      } catch (error) {
        if (fromDatabase(error)) count(error);
        throw error;
      }
    },
    async ping() {
      try {
        await db.ping();
      } catch (error) {
        count(error);
        throw error;
      }
    },
    listen: (channel, handlers) => db.listen(channel, handlers),
    close: () => db.close(),
  };
}
