import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { UPLOAD_MAX_BYTES } from '../../../src/http/uploads.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { ADMIN_TEST_PASSWORD, signedInAgent } from '../../helpers/admin.js';
import { rawRequest } from '../../helpers/raw-http.js';

/**
 * The console reads a body only once the request is allowed, and only as much as its route needs: a request
 * announcing megabytes is answered before they are sent, and the server reads no more than a little of it.
 */
describe('admin console request bodies', () => {
  let app: TestApp;
  const sockets: Socket[] = [];
  before(async () => {
    app = await startTestApp({ ADMIN_PASSWORD: ADMIN_TEST_PASSWORD });
    app.server.on('connection', (socket: Socket) => sockets.push(socket));
  });
  after(async () => {
    await app.close();
  });

  const announcing = (path: string, contentType: string, length: number, cookie = '') =>
    `POST ${path} HTTP/1.1\nHost: 127.0.0.1\nContent-Type: ${contentType}\nContent-Length: ${length}\n${cookie ? `Cookie: ${cookie}\n` : ''}`;
  const serverBytesRead = () => sockets.reduce((sum, socket) => sum + socket.bytesRead, 0);

  for (const contentType of ['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
    it(`refuses a POST without a session before reading its body (${contentType.split(';')[0]})`, async () => {
      const readBefore = serverBytesRead();
      const answer = await rawRequest(app.baseUrl, announcing('/admin/exams/import', contentType, 5_900_000), { body: `json=${'a'.repeat(16 * 1024)}` });
      assert.equal(answer.status, 401, answer.head);
      assert.match(answer.head, /connection: close/i);
      assert.ok(answer.closed, 'the server closes the connection instead of reading the rest');
      assert.ok(serverBytesRead() - readBefore < 256 * 1024, `read ${serverBytesRead() - readBefore} bytes of a 5.9 MB body`);
    });
  }

  it('answers many unauthenticated large POSTs at once without holding their bodies', async () => {
    const answers = await Promise.all(Array.from({ length: 30 }, () => rawRequest(app.baseUrl, announcing('/admin/platforms/new', 'application/x-www-form-urlencoded', 5_900_000), { body: 'x'.repeat(1024) })));
    assert.deepEqual(new Set(answers.map((answer) => answer.status)), new Set([401]));
    assert.ok(Math.max(...answers.map((answer) => answer.answeredAfterMs)) < 5000);
  });

  it('limits the sign-in form to what it needs', async () => {
    const answer = await rawRequest(app.baseUrl, announcing('/admin/sign-in', 'application/x-www-form-urlencoded', 64 * 1024));
    assert.equal(answer.status, 413, answer.head);
  });

  it('refuses a sign-in form sent without a length at once, instead of reading all of it past the limit', async () => {
    const chunk = 'a'.repeat(16 * 1024);
    const answer = await rawRequest(app.baseUrl, 'POST /admin/sign-in HTTP/1.1\nHost: 127.0.0.1\nContent-Type: application/x-www-form-urlencoded\nTransfer-Encoding: chunked', {
      body: `${chunk.length.toString(16)}\r\n${chunk}\r\n`,
    });
    assert.equal(answer.status, 411, answer.head);
    assert.match(answer.head, /connection: close/i);
    assert.ok(answer.closed, 'closed at once, not once the client stops sending');
  });

  it('limits a signed-in form to its route: small forms small, uploads to the file cap', async () => {
    const { agent } = await signedInAgent(app);
    const cookie = (await agent.jar.getCookies({ domain: '127.0.0.1', path: '/admin', secure: false, script: false })).map((c) => `${c.name}=${c.value}`).join('; ');
    const small = await rawRequest(app.baseUrl, announcing('/admin/platforms/new', 'application/x-www-form-urlencoded', 1024 * 1024, cookie));
    assert.equal(small.status, 413, 'a megabyte to a form of a few fields, refused before it is sent');
    const pastedTooLarge = await rawRequest(app.baseUrl, announcing('/admin/exams/import', 'application/x-www-form-urlencoded', 6_000_000, cookie));
    assert.equal(pastedTooLarge.status, 413, 'a pasted 6 MB exams file is over the 5 MiB file cap');
  });

  it('refuses a pasted 6 MB JSON field sent in full, and accepts a pasted file under the cap', async () => {
    const { agent, csrf } = await signedInAgent(app);
    const token = await csrf();
    const tooLarge = await agent.post('/admin/exams/import').type('form').send({ _csrf: token, json: `{"exams":[]}${' '.repeat(6_000_000)}` });
    assert.equal(tooLarge.status, 413);
    const exported = (await agent.get('/admin/exams/export').expect(200)).text;
    const pasted = `${exported}${' '.repeat(UPLOAD_MAX_BYTES - exported.length - 1024)}`;
    const previewed = await agent.post('/admin/exams/import').field('_csrf', token).field('json', pasted);
    assert.equal(previewed.status, 200, previewed.text.slice(0, 300));
    assert.match(previewed.text, /Dry run/);
    // The confirmation sends the file again, as a field of a multipart form like the import's.
    const accepted = await agent.post('/admin/exams/import/confirm').field('_csrf', token).field('json', pasted).field('overwrite', 'yes');
    assert.equal(accepted.status, 303, accepted.text.slice(0, 300));
    assert.match(String(accepted.headers.location), /done=exams-imported/);
  });

  it('refuses a pasted exams file one byte over the file cap, in either form encoding, as it refuses such a file', async () => {
    const { agent, csrf } = await signedInAgent(app);
    const token = await csrf();
    const justOver = `{"exams":[]}${' '.repeat(UPLOAD_MAX_BYTES + 1 - '{"exams":[]}'.length)}`;
    const file = await agent.post('/admin/exams/import').field('_csrf', token).attach('file', Buffer.from(justOver), 'exams.json');
    assert.equal(file.status, 413, 'the file itself');
    for (const [encoding, answer] of [
      // A browser writes each space as '+': the form stays under its own limit.
      ['urlencoded', await agent.post('/admin/exams/import').type('form').send(`_csrf=${encodeURIComponent(token)}&json=${encodeURIComponent(justOver).replaceAll('%20', '+')}`)],
      ['multipart', await agent.post('/admin/exams/import').field('_csrf', token).field('json', justOver)],
    ] as const) {
      assert.equal(answer.status, 413, `${encoding}: ${answer.text.slice(0, 200)}`);
      assert.match(answer.text, /larger than 5 MiB/, encoding);
    }
  });

  it('still serves the sign-in page and signs in', async () => {
    await signedInAgent(app);
    await supertest(app.baseUrl).get('/admin/sign-in').expect(200);
  });
});
