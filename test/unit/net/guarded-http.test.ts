import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createGuardedHttp, OutboundError } from '../../../src/net/guarded-http.js';

/** A loopback server standing in for a hostile LMS. Network tests here only ever use loopback. */
describe('guarded outbound HTTP (loopback only)', () => {
  let server: Server;
  let base = '';
  let port = 0;
  let hugeBytesSent = 0;
  before(async () => {
    server = createServer((req, res) => {
      if (req.url === '/ok') {
        res.setHeader('content-type', 'application/json');
        res.end('{"ok":true}');
      } else if (req.url === '/redirect') {
        res.writeHead(302, { location: '/ok' }).end();
      } else if (req.url === '/huge') {
        // Streams up to 400 MB unless the client stops reading.
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        const write = () => {
          while (hugeBytesSent < 400 * 1024 * 1024) {
            hugeBytesSent += chunk.length;
            if (!res.write(chunk)) {
              res.once('drain', write);
              return;
            }
          }
          res.end();
        };
        res.on('close', () => res.removeAllListeners('drain'));
        write();
      } else if (req.url === '/slow') {
        res.writeHead(200);
        const timer = setInterval(() => res.write(' '), 50);
        res.on('close', () => clearInterval(timer));
      } else {
        res.writeHead(500).end('internal detail: db at 10.0.0.5:5432');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const development = () => createGuardedHttp({ policy: { allowLoopback: true }, maxBytes: 1_000_000 });
  const production = () => createGuardedHttp({ policy: { allowLoopback: false }, maxBytes: 1_000_000 });
  const signal = () => AbortSignal.timeout(5000);

  it('development reaches a loopback LMS over http', async () => {
    const http = development();
    try {
      const response = await http.request(`${base}/ok`, { signal: signal() });
      assert.deepEqual({ status: response.status, text: response.text }, { status: 200, text: '{"ok":true}' });
      assert.equal(response.headers['content-type'], 'application/json');
    } finally {
      await http.close();
    }
  });

  it('production refuses loopback: as a literal, as a name (checked in the lookup), and plain http', async () => {
    const http = production();
    try {
      await assert.rejects(http.request(`https://127.0.0.1:${port}/ok`, { signal: signal() }), (error: unknown) => error instanceof OutboundError && /loopback/.test(error.message));
      await assert.rejects(http.request(`https://[::ffff:127.0.0.1]:${port}/ok`, { signal: signal() }), /loopback/);
      // A name: refused when resolved, before any connection (the server never sees a request).
      await assert.rejects(http.request(`https://localhost:${port}/ok`, { signal: signal() }), /resolves only to refused addresses/);
      await assert.rejects(http.request(`${base}/ok`, { signal: signal() }), /plain http refused/);
    } finally {
      await http.close();
    }
  });

  it('does not follow redirects: a 3xx is the answer', async () => {
    const http = development();
    try {
      const response = await http.request(`${base}/redirect`, { signal: signal() });
      assert.equal(response.status, 302);
    } finally {
      await http.close();
    }
  });

  it('stops reading a huge answer at the cap instead of buffering it', async () => {
    const http = development();
    try {
      await assert.rejects(http.request(`${base}/huge`, { signal: signal() }), /larger than 1000000 bytes|max.*size|ResponseExceededMaxSize/i);
      // The server stops once the client closes: far less than the 400 MB it offered was sent.
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.ok(hugeBytesSent < 50 * 1024 * 1024, `${hugeBytesSent} bytes sent`);
    } finally {
      await http.close();
    }
  });

  it('one deadline covers the whole exchange, body included', async () => {
    const http = development();
    try {
      await assert.rejects(http.request(`${base}/slow`, { signal: AbortSignal.timeout(300) }), OutboundError);
    } finally {
      await http.close();
    }
  });
});
