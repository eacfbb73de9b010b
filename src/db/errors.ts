import type { DatabaseErrorKind } from '../metrics.js';
import { errorCode } from '../values.js';

/**
 * The database could not be reached or stopped answering (refused or dropped connection, server shutting
 * down or starting up, too many connections, connect or query deadline). The message names the target at
 * most, never the password; the driver's error is the `cause`. Anything else a query throws (a constraint, a
 * syntax error) is a bug or a conflict, not an outage, and keeps its own type.
 */
export class DatabaseUnavailableError extends Error {
  override readonly name = 'DatabaseUnavailableError';
}

/**
 * SQLSTATEs of a connection refused for the database itself: it is missing (3D000, renamed or dropped during a
 * migration or restore) or the role may not sign in (class 28, e.g. a password rotated ahead of the tool's).
 * Nothing the tool does succeeds until an operator puts it right: an outage, not a bug of one request.
 */
const UNUSABLE_DATABASE_CODES = new Set(['3D000', '28000', '28P01']);

/** Socket errors of a connection that could not be opened or was lost. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'ECONNABORTED']);
/** node-postgres's own messages for a lost or unobtainable connection (these errors carry no code). */
const DRIVER_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Query read timeout|not queryable|Connection ended|Cannot use a pool after calling end/i;

/**
 * True for an error meaning "the database is not there right now": SQLSTATE class 08 (connection exception),
 * 57P01–57P05 (shutdown, crash, cannot connect now, idle session timeout), 53300 (too many connections), a
 * missing database or refused role (3D000, class 28), a socket error, or the driver's lost-connection messages.
 */
export function isOutage(error: unknown): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  if (error instanceof AggregateError && error.errors.length > 0) return error.errors.every(isOutage);
  if (!(error instanceof Error)) return false;
  const code = errorCode(error);
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || UNUSABLE_DATABASE_CODES.has(code) || code.startsWith('08') || code.startsWith('57P') || code === '53300') return true;
  }
  return DRIVER_MESSAGES.test(error.message);
}

const OUTAGE_MESSAGE = 'database unavailable';

/** Rethrows an outage as DatabaseUnavailableError (the driver's error as cause); other errors unchanged. */
export function asOutage(error: unknown): unknown {
  if (error instanceof DatabaseUnavailableError || !isOutage(error)) return error;
  const code = errorCode(error);
  return new DatabaseUnavailableError(`${OUTAGE_MESSAGE}${typeof code === 'string' ? ` (${code})` : ''}`, { cause: error });
}

/**
 * True for the message of an outage `asOutage` made: ltijs answers a failure of its store itself, keeping only
 * the error's message, and the tool still answers an outage there as one (503).
 */
export function isOutageMessage(message: string): boolean {
  return message === OUTAGE_MESSAGE || message.startsWith(`${OUTAGE_MESSAGE} (`);
}

/** SQLSTATEs of a deadline the server enforced: statement timeout or cancel, lock timeout, idle-in-transaction timeout. */
const TIMEOUT_CODES = new Set(['57014', '55P03', '25P03', 'ETIMEDOUT']);
const TIMEOUT_MESSAGES = /timeout/i;

/**
 * How a failed statement is counted: `unavailable` and `timeout` are outages, `other` is anything else the
 * database refused. Constraint violations (SQLSTATE class 23) are undefined: the tool detects conflicts by them
 * (two replicas inserting the same row), so they are not errors of the database.
 */
export function databaseErrorKind(error: unknown): DatabaseErrorKind | undefined {
  const driverError = error instanceof DatabaseUnavailableError && error.cause !== undefined ? error.cause : error;
  const code = errorCode(driverError);
  if (typeof code === 'string' && code.startsWith('23')) return undefined;
  const message = driverError instanceof Error ? driverError.message : '';
  if ((typeof code === 'string' && TIMEOUT_CODES.has(code)) || TIMEOUT_MESSAGES.test(message)) return 'timeout';
  return isOutage(error) ? 'unavailable' : 'other';
}
