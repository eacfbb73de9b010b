import assert from 'node:assert/strict';
import { createServer, IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import express from 'express';
import { expressServerClasses } from '../../src/http/express-server-classes.js';

describe('requests born with the express app prototypes', () => {
  const app = express();
  const subApp = express();
  const arrivals: boolean[] = [];
  let server: Server;
  let base: string;

  before(async () => {
    subApp.get('/sub/pass', (req, res, next) => {
      res.setHeader('x-sub-prototype', String(Object.getPrototypeOf(req) === subApp.request));
      next();
    });
    app.use(subApp);
    app.get('/sub/pass', (req, res) => {
      res.json({ parentPrototypeBack: Object.getPrototypeOf(req) === app.request && Object.getPrototypeOf(res) === app.response });
    });
    app.get('/query', (req, res) => {
      res.cookie('seen', 'yes', { httpOnly: true });
      res.json({ x: req.query.x, host: req.get('host'), isRequest: req instanceof IncomingMessage, isResponse: res instanceof ServerResponse });
    });
    app.post('/form', express.urlencoded({ extended: false }), (req, res) => {
      res.redirect(302, `/done?state=${encodeURIComponent(String((req.body as Record<string, unknown>).state))}`);
    });
    server = createServer(expressServerClasses(app, 20), app);
    server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      arrivals.push(Object.getPrototypeOf(req) === app.request && Object.getPrototypeOf(res) === app.response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('builds each request and response with the app prototypes before express sees them', async () => {
    arrivals.length = 0;
    await fetch(`${base}/query?x=1`);
    await fetch(`${base}/query?x=2`);
    assert.deepEqual(arrivals, [true, true]);
  });

  it('leaves express working as before: query, headers, cookies, bodies, redirects', async () => {
    const answer = await fetch(`${base}/query?x=42`);
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('set-cookie') ?? '', /^seen=yes; Path=\/; HttpOnly$/);
    assert.deepEqual(await answer.json(), { x: '42', host: base.slice('http://'.length), isRequest: true, isResponse: true });
    const posted = await fetch(`${base}/form`, { method: 'POST', body: new URLSearchParams({ state: 'a b&c' }), redirect: 'manual' });
    assert.equal(posted.status, 302);
    assert.equal(posted.headers.get('location'), '/done?state=a%20b%26c');
  });

  it('gives a mounted app its own prototypes, and the parent its own back after it', async () => {
    const answer = await fetch(`${base}/sub/pass`);
    assert.equal(answer.headers.get('x-sub-prototype'), 'true');
    assert.deepEqual(await answer.json(), { parentPrototypeBack: true });
  });

  it("keeps Node's own classes on Node 24, where changing the prototype costs nothing", () => {
    assert.deepEqual(expressServerClasses(app, 24), {});
    assert.deepEqual(Object.keys(expressServerClasses(app, 20)).sort(), ['IncomingMessage', 'ServerResponse']);
  });
});
