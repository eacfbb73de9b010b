import { pino, type Logger } from 'pino';

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

export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' }, base: undefined });
}
