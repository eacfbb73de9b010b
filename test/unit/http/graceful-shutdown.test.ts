import assert from 'node:assert/strict';
import { Agent, createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, it } from 'node:test';
import { createDrain, type Drain } from '../../../src/http/graceful-shutdown.js';
import { createLogger } from '../../../src/logger.js';
import { waitFor } from '../../helpers/wait.js';

interface Answer {
  status?: number;
  connection?: string;
  /** The connection was cut before a whole answer arrived. */
  cut: boolean;
}

/**
 * The drain of a stopping server on a real loopback listener: requests in flight finish when they can; at the
 * deadline the connections still open are cut and `release` is told the drain was forced.
 */
describe('graceful shutdown', { timeout: 20_000 }, () => {
  let server: Server | undefined;
  let inFlight = 0;

  afterEach(() => {
    server?.closeAllConnections();
    server?.close();
    server = undefined;
    inFlight = 0;
  });

  /** A server whose /slow answers after `slowMs` (never when undefined), and its drain. */
  async function start(options: { slowMs?: number; lameDuckMs?: number; deadlineMs: number }) {
    const logged: string[] = [];
    const released: boolean[] = [];
    const listening = createServer((req, res) => {
      if (req.url !== '/slow') return void res.end('quick');
      inFlight += 1;
      if (options.slowMs !== undefined) setTimeout(() => res.end('slow'), options.slowMs);
    });
    server = listening;
    const drain: Drain = createDrain(listening, {
      lameDuckMs: options.lameDuckMs ?? 0,
      deadlineMs: options.deadlineMs,
      logger: createLogger('info', { write: (line: string) => void logged.push(line) }),
      release: async (forced) => void released.push(forced),
    });
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    const port = (listening.address() as AddressInfo).port;
    // The client asks for keep-alive: a close in an answer is the server's own.
    const get = (path: string) =>
      new Promise<Answer>((resolve) => {
        const req = request({ host: '127.0.0.1', port, path, agent: new Agent({ keepAlive: true }) }, (res: IncomingMessage) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode, connection: res.headers.connection, cut: false }));
          res.on('error', () => resolve({ cut: true }));
        });
        req.on('error', () => resolve({ cut: true }));
        req.end();
      });
    return { drain, get, logged, released };
  }

  it('lets a request in flight finish, closes its connection and releases unforced', async () => {
    const { drain, get, released, logged } = await start({ slowMs: 300, deadlineMs: 10_000 });
    const answer = get('/slow');
    await waitFor('the request in flight', () => inFlight === 1);
    const result = await drain.shutdown('test', { lameDuck: false });
    assert.equal((await answer).status, 200);
    assert.deepEqual(result, { forcedConnections: 0 });
    assert.deepEqual(released, [false]);
    assert.ok(!logged.some((line) => line.includes('shutdown deadline reached')), 'no deadline reached');
  });

  it('at the deadline cuts the connections still open, counts them and releases forced', async () => {
    const { drain, get, released, logged } = await start({ deadlineMs: 300 });
    const answer = get('/slow');
    await waitFor('the request in flight', () => inFlight === 1);
    const started = performance.now();
    const result = await drain.shutdown('test', { lameDuck: false });
    const tookMs = performance.now() - started;
    assert.deepEqual(result, { forcedConnections: 1 });
    assert.deepEqual(released, [true]);
    assert.deepEqual(await answer, { cut: true });
    assert.ok(tookMs >= 250 && tookMs < 5_000, `stopped at the deadline, after ${Math.round(tookMs)} ms`);
    const warning = logged.map((line) => JSON.parse(line) as { level: number; msg: string; forcedConnections?: number }).find((line) => line.msg.startsWith('shutdown deadline reached'));
    assert.equal(warning?.forcedConnections, 1);
    assert.equal(warning?.level, 40, 'logged as a warning');
  });

  it('keeps serving during the lame duck, with draining set at once, until a second signal cuts it short', async () => {
    const { drain, get, released } = await start({ lameDuckMs: 60_000, deadlineMs: 10_000 });
    const stopped = drain.shutdown('first signal');
    assert.equal(drain.draining, true);
    assert.deepEqual(await get('/quick'), { status: 200, connection: 'close', cut: false });
    assert.deepEqual(released, [], 'still in the lame duck');
    const again = drain.shutdown('second signal', { lameDuck: false });
    assert.deepEqual(await again, { forcedConnections: 0 });
    assert.deepEqual(await stopped, { forcedConnections: 0 });
    assert.deepEqual(released, [false]);
    assert.deepEqual(await get('/quick'), { cut: true }, 'no new connections once drained');
  });
});
