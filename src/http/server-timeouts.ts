import type { ServerOptions } from 'node:http';
import type { Config } from '../config.js';

/**
 * How long a client may take to send a request: its headers within `headersSeconds`, the whole request with
 * its body within `requestSeconds`; past either, Node answers 408 and closes the connection. A student's
 * request is a few kilobytes and arrives in well under a second even on a poor mobile link; the largest
 * request is an administrator's 5 MiB upload (docs/security.md has the figures). Time spent answering is not
 * counted: a slow roster fetch or launch is unaffected.
 */
export interface ServerTimeouts {
  headersSeconds: number;
  requestSeconds: number;
}

/** The options of `http.createServer` that enforce these timeouts, checked every second rather than Node's 30. */
export function serverTimeoutOptions(timeouts: Config['http']): Pick<ServerOptions, 'headersTimeout' | 'requestTimeout' | 'connectionsCheckingInterval'> {
  return {
    headersTimeout: timeouts.headersSeconds * 1000,
    requestTimeout: timeouts.requestSeconds * 1000,
    connectionsCheckingInterval: Math.min(1000, timeouts.headersSeconds * 250),
  };
}
