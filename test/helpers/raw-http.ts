import { connect } from 'node:net';

export interface RawAnswer {
  /** The status of the answer, undefined when the connection closed without one. */
  status?: number;
  head: string;
  /** Milliseconds from the first byte sent until the answer's head, or until the connection closed. */
  answeredAfterMs: number;
  /** The server closed the connection (within `waitMs` after answering). */
  closed: boolean;
}

/**
 * Sends a request head and the start of its body over a plain socket, and reads the answer's head: what a client
 * that announces a body and sends only part of it (or sends it slowly, with `drip`) sees.
 */
export function rawRequest(
  url: string,
  head: string,
  /**
   * `body`: sent with the head; `drip`: then these pieces, one every `everyMs`; `openHead`: the head is left
   * unfinished (its pieces follow in `drip`); `waitMs`: how long to wait for the close after the answer;
   * `giveUpMs`: for any answer at all.
   */
  options: { body?: Buffer | string; drip?: { pieces: readonly string[]; everyMs: number }; openHead?: boolean; waitMs?: number; giveUpMs?: number } = {},
): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const giveUp = setTimeout(() => finish(false), options.giveUpMs ?? 10_000);
    let received = '';
    let answeredAfterMs: number | undefined;
    let timer: NodeJS.Timeout | undefined;
    let dripping: NodeJS.Timeout | undefined;
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      clearTimeout(giveUp);
      clearInterval(dripping);
      socket.destroy();
      const headEnd = received.indexOf('\r\n\r\n');
      const answerHead = headEnd >= 0 ? received.slice(0, headEnd) : received;
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answerHead)?.[1];
      resolve({ status: status ? Number(status) : undefined, head: answerHead, answeredAfterMs: answeredAfterMs ?? performance.now() - started, closed });
    };
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // The server closing while the client still writes is the refusal this helper looks for.
      if (error.code === 'EPIPE' || error.code === 'ECONNRESET') finish(true);
      else reject(error);
    });
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (answeredAfterMs === undefined && received.includes('\r\n\r\n')) {
        answeredAfterMs = performance.now() - started;
        timer = setTimeout(() => finish(false), options.waitMs ?? 2000);
      }
    });
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('connect', () => {
      const lines = head.replace(/\r?\n/g, '\r\n');
      socket.write(options.openHead ? `${lines}\r\n` : lines.replace(/(\r\n)*$/, '\r\n\r\n'));
      if (options.body) socket.write(options.body);
      if (options.drip) {
        const pieces = [...options.drip.pieces];
        dripping = setInterval(() => {
          const piece = pieces.shift();
          if (piece === undefined) clearInterval(dripping);
          else if (!socket.destroyed) socket.write(piece);
        }, options.drip.everyMs);
      }
    });
  });
}
