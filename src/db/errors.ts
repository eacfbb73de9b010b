/**
 * The database could not be reached or stopped answering (refused or dropped connection, server shutting
 * down or starting up, too many connections, connect or query deadline). The message names the target at
 * most, never the password; the driver's error is the `cause`. Anything else a query throws (a constraint, a
 * syntax error) is a bug or a conflict, not an outage, and keeps its own type.
 */
export class DatabaseUnavailableError extends Error {
  override readonly name = 'DatabaseUnavailableError';
}

/** Socket errors of a connection that could not be opened or was lost. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'ECONNABORTED']);
/** node-postgres's own messages for a lost or unobtainable connection (these errors carry no code). */
const DRIVER_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Query read timeout|not queryable|Connection ended|Cannot use a pool after calling end/i;

/**
 * True for an error meaning "the database is not there right now": SQLSTATE class 08 (connection exception),
 * 57P01–57P05 (shutdown, crash, cannot connect now, idle session timeout), 53300 (too many connections), a
 * socket error, or the driver's lost-connection messages.
 */
export function isOutage(error: unknown): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  if (error instanceof AggregateError && error.errors.length > 0) return error.errors.every(isOutage);
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || code.startsWith('08') || code.startsWith('57P') || code === '53300') return true;
  }
  return DRIVER_MESSAGES.test(error.message);
}

const OUTAGE_MESSAGE = 'database unavailable';

/** Rethrows an outage as DatabaseUnavailableError (the driver's error as cause); other errors unchanged. */
export function asOutage(error: unknown): unknown {
  if (error instanceof DatabaseUnavailableError || !isOutage(error)) return error;
  const code = (error as { code?: unknown }).code;
  return new DatabaseUnavailableError(`${OUTAGE_MESSAGE}${typeof code === 'string' ? ` (${code})` : ''}`, { cause: error });
}

/**
 * True for the message of an outage `asOutage` made: ltijs answers a failure of its store itself, keeping only
 * the error's message, and the tool still answers an outage there as one (503).
 */
export function isOutageMessage(message: string): boolean {
  return message === OUTAGE_MESSAGE || message.startsWith(`${OUTAGE_MESSAGE} (`);
}
