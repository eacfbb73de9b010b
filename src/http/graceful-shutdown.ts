import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../logger.js';

export interface Drain {
  /** True once shutdown began: /readyz answers 503 and every response closes its connection. */
  readonly draining: boolean;
  /**
   * Stops accepting connections, lets every request in flight finish (at most `deadlineMs`), then runs
   * `release` (close clients and the database pool). Resolves with what was still open at the deadline.
   */
  shutdown(reason: string): Promise<{ forcedConnections: number }>;
}

/**
 * Graceful drain for a rolling deployment: the orchestrator sends SIGTERM and, after its grace period, SIGKILL.
 * In between, launches already in flight (OIDC, Launch API call) complete, keep-alive connections are closed
 * as soon as their current response is sent, and new connections are refused.
 */
export function createDrain(server: Server, options: { deadlineMs: number; logger: Logger; release: () => Promise<void> }): Drain {
  let draining = false;
  let done: Promise<{ forcedConnections: number }> | undefined;
  const open = new Set<Socket>();
  server.on('connection', (socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  // Responses sent while draining ask the client to close the connection; the socket is then idle and closed.
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    if (!draining) return;
    res.setHeader('Connection', 'close');
    res.once('finish', () => server.closeIdleConnections());
  });

  return {
    get draining() {
      return draining;
    },
    shutdown(reason) {
      done ??= (async () => {
        draining = true;
        const inFlight = open.size;
        options.logger.info({ reason, openConnections: inFlight, deadlineMs: options.deadlineMs }, 'shutting down: draining requests in flight');
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        // A connection that was idle between requests when the drain began may become idle again later.
        const sweep = setInterval(() => server.closeIdleConnections(), 250);
        let timer: NodeJS.Timeout | undefined;
        const deadline = new Promise<'deadline'>((resolve) => {
          timer = setTimeout(() => resolve('deadline'), options.deadlineMs);
        });
        const outcome = await Promise.race([closed.then(() => 'drained' as const), deadline]);
        clearInterval(sweep);
        clearTimeout(timer);
        const forcedConnections = outcome === 'deadline' ? open.size : 0;
        if (outcome === 'deadline') {
          options.logger.warn({ forcedConnections }, 'shutdown deadline reached: closing the connections still open');
          server.closeAllConnections();
        }
        await options.release();
        options.logger.info({ forcedConnections }, 'shut down');
        return { forcedConnections };
      })();
      return done;
    },
  };
}
