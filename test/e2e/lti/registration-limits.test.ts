import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import express from 'express';
import supertest from 'supertest';
import { createRegistrationLinks, MAX_FAILED_REGISTRATIONS } from '../../../src/lti/registration-links.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

/** Loopback stand-ins only: a misbehaving "LMS" and a closed port. */
async function hostileLms() {
  const app = express();
  let base = '';
  const registrations: unknown[] = [];
  const slowFetches = { count: 0 };
  app.get('/slow/.well-known/openid-configuration', (_req, res) => {
    slowFetches.count += 1;
    setTimeout(() => res.status(500).send('failing slowly'), 300);
  });
  app.get('/error/.well-known/openid-configuration', (_req, res) => {
    res.status(500).send('internal detail: postgres at 10.0.0.5:5432 refused');
  });
  app.get('/elsewhere/.well-known/openid-configuration', (_req, res) => {
    res.json({
      issuer: base,
      authorization_endpoint: `${base}/auth`,
      token_endpoint: `${base}/token`,
      jwks_uri: `${base}/jwks`,
      registration_endpoint: 'http://localhost:1/register',
    });
  });
  app.post('/register', (req, res) => {
    registrations.push(req.body);
    res.json({ client_id: 'x' });
  });
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, registrations, slowFetches, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('dynamic registration: no probe, no leak, links used up by failures', () => {
  let app: TestApp;
  let lms: Awaited<ReturnType<typeof hostileLms>>;
  before(async () => {
    app = await startTestApp();
    lms = await hostileLms();
  });
  after(async () => {
    await lms.close();
    await app.close();
  });

  const register = (link: string, openidConfiguration: string) => supertest(app.baseUrl).get('/lti/register').query({ link, openid_configuration: openidConfiguration });
  const pageText = (html: string) => html.replace(/Reference for the tool(&#39;|')s administrator: [0-9a-f]+/, '').replace(/allows \d+ more attempts?|is now used up/, '');

  it('an error answer, a closed port and an open one read the same; no status, body or address is shown', async () => {
    const { token } = await createRegistrationLinks(app.db).issue(600);
    const failing = await register(token, `${lms.base}/error/.well-known/openid-configuration`);
    assert.equal(failing.status, 400);
    assert.doesNotMatch(failing.text, /500|postgres|10\.0\.0\.5/);
    assert.match(failing.text, /could not be read/);
    assert.match(failing.text, /allows 2 more attempts/);

    const { token: second } = await createRegistrationLinks(app.db).issue(600);
    const closed = await register(second, `http://127.0.0.1:${await closedPort()}/.well-known/openid-configuration`);
    assert.equal(closed.status, 400);
    assert.doesNotMatch(closed.text, /ECONNREFUSED|connect/i);
    assert.equal(pageText(closed.text), pageText(failing.text));
  });

  it(`a link is used up after ${MAX_FAILED_REGISTRATIONS} failed attempts`, async () => {
    const links = createRegistrationLinks(app.db);
    const { token } = await links.issue(600);
    for (let attempt = 1; attempt <= MAX_FAILED_REGISTRATIONS; attempt++) {
      const response = await register(token, `${lms.base}/error/.well-known/openid-configuration`);
      assert.equal(response.status, 400, `attempt ${attempt}`);
    }
    assert.equal(await links.check(token), 'exhausted');
    const refused = await register(token, `${lms.base}/error/.well-known/openid-configuration`);
    assert.equal(refused.status, 403);
    assert.match(refused.text, /used up by failed attempts/);
  });

  it(`attempts at the same time cannot pass the ${MAX_FAILED_REGISTRATIONS}-failure cap together`, async () => {
    const links = createRegistrationLinks(app.db);
    const { token } = await links.issue(600);
    lms.slowFetches.count = 0;
    const statuses = await Promise.all(Array.from({ length: 12 }, () => register(token, `${lms.base}/slow/.well-known/openid-configuration`).then((response) => response.status)));
    assert.ok(lms.slowFetches.count <= MAX_FAILED_REGISTRATIONS, `${lms.slowFetches.count} fetches for 12 attempts`);
    assert.equal(statuses.filter((status) => status === 400).length, lms.slowFetches.count);
    assert.equal(statuses.filter((status) => status === 403).length, 12 - lms.slowFetches.count);
    assert.equal(await links.check(token), 'exhausted');
  });

  it('the registration request goes only to the issuer’s own host', async () => {
    const { token } = await createRegistrationLinks(app.db).issue(600);
    const response = await register(token, `${lms.base}/elsewhere/.well-known/openid-configuration`);
    assert.equal(response.status, 400);
    assert.match(response.text, /registration endpoint on localhost:1, not on the issuer/);
    assert.equal(lms.registrations.length, 0);
  });
});
