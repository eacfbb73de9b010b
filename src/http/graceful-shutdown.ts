import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../logger.js';

export interface ShutdownOptions {
  /**
   * Keep serving for the lame-duck period first (SIGTERM), so that load balancers see `/readyz` fail and take
   * the replica out before it stops listening; false (SIGINT, or a second signal) goes straight to the drain.
   */
  lameDuck: boolean;
}

export interface ShutdownResult {
  /** Connections still open at the deadline, closed with whatever they were doing. */
  forcedConnections: number;
}

export interface Drain {
  /** True once shutdown began: /readyz answers 503 and every response closes its connection. */
  readonly draining: boolean;
  /**
   * Lame duck (at most `lameDuckMs`), then: stops accepting connections, lets every request in flight finish (at
   * most `deadlineMs`), then runs `release`. Resolves with what was still open at the deadline. Called again while
   * the lame duck lasts (a second signal), it ends the lame duck at once.
   */
  shutdown(reason: string, options?: ShutdownOptions): Promise<ShutdownResult>;
}

/**
 * Graceful stop for a rolling deployment: the orchestrator sends SIGTERM and, after its grace period, SIGKILL.
 * First the lame duck: `/readyz` fails while the listener still serves everything, until every balancer has
 * noticed. Then the drain: launches already in flight (OIDC, Launch API call) complete, keep-alive connections
 * are closed as soon as their current response is sent, and new connections are refused. When the drain's
 * deadline cuts connections, `release` is told (`forced`): the work of requests whose clients are gone must not
 * go on as if someone still waited for it.
 */
export function createDrain(server: Server, options: { lameDuckMs: number; deadlineMs: number; logger: Logger; release: (forced: boolean) => Promise<void> }): Drain {
  let draining = false;
  let closing = false;
  let endLameDuck: (() => void) | undefined;
  let done: Promise<ShutdownResult> | undefined;
  const open = new Set<Socket>();
  server.on('connection', (socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  // Responses sent once shutdown began ask the client to close the connection. Only in the drain are idle
  // connections closed by the server too: closing one during the lame duck could race a proxy's next request on it.
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    if (!draining) return;
    res.setHeader('Connection', 'close');
    res.once('finish', () => {
      if (closing) server.closeIdleConnections();
    });
  });

  const lameDuck = (ms: number, reason: string) =>
    new Promise<void>((resolve) => {
      if (ms <= 0) return resolve();
      options.logger.info({ reason, lameDuckMs: ms, openConnections: open.size }, 'shutting down: /readyz answers 503, still serving until load balancers have taken this replica out');
      const timer = setTimeout(resolve, ms);
      endLameDuck = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const drain = async (reason: string): Promise<ShutdownResult> => {
    closing = true;
    options.logger.info({ reason, openConnections: open.size, deadlineMs: options.deadlineMs }, 'shutting down: draining requests in flight');
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
    const forced = outcome === 'deadline';
    const forcedConnections = forced ? open.size : 0;
    if (forced) {
      options.logger.warn({ forcedConnections }, 'shutdown deadline reached: closing the connections still open and abandoning their requests');
      server.closeAllConnections();
    }
    await options.release(forced);
    options.logger.info({ forcedConnections }, 'shut down');
    return { forcedConnections };
  };

  return {
    get draining() {
      return draining;
    },
    shutdown(reason, shutdownOptions = { lameDuck: true }) {
      if (done) {
        if (!shutdownOptions.lameDuck && endLameDuck) {
          options.logger.info({ reason }, 'shutting down: lame duck cut short');
          endLameDuck();
        }
        return done;
      }
      draining = true;
      done = (async () => {
        await lameDuck(shutdownOptions.lameDuck ? options.lameDuckMs : 0, reason);
        endLameDuck = undefined;
        return drain(reason);
      })();
      return done;
    },
  };
}
