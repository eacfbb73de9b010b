import { hostname } from 'node:os';
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** Paths that may carry secrets; pino replaces their values before anything is written. */
const REDACT = [
  'api_key',
  'apiKey',
  '*.api_key',
  '*.apiKey',
  '*.secret',
  '*.password',
  'req.headers.api_key',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.api_key',
  'headers.authorization',
  'id_token',
  '*.id_token',
  'ltik',
  '*.ltik',
];

/**
 * Standard output, written synchronously. pino's default writes from libuv's thread pool: a process that exits
 * right after logging (a shutdown, a fatal error) then writes its last lines before one still queued behind
 * busy pool threads (database files, hashing), or loses it. A line costs one write call either way.
 */
function standardOutput(): DestinationStream {
  return pino.destination({ dest: 1, sync: true });
}

/**
 * The process's logger: JSON lines, secrets redacted. Lines written while a request is served go through that
 * request's child logger (`requestLogger` in src/http/request-id.ts), which adds its `reqId`; lines written
 * outside a request (start-up, timers, background work) carry none. Every line names the host and process that
 * wrote it, so that the lines of several replicas collected in one place can be told apart.
 */
export function createLogger(level: string, destination: DestinationStream = standardOutput()): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT, censor: '[redacted]' },
      base: { pid: process.pid, hostname: hostname() },
    },
    destination,
  );
}
