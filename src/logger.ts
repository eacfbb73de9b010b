import { AsyncLocalStorage } from 'node:async_hooks';
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

/** The request being served (src/http/request-id.ts starts one per request); every log line written during it carries its id. */
export const requestContext = new AsyncLocalStorage<{ reqId: string }>();

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT, censor: '[redacted]' },
      base: undefined,
      mixin: () => {
        const reqId = requestContext.getStore()?.reqId;
        return reqId === undefined ? {} : { reqId };
      },
    },
    destination,
  );
}
