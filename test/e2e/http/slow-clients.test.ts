import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startRunningTool, type RunningTool } from '../../helpers/running-tool.js';
import { rawRequest } from '../../helpers/raw-http.js';

/**
 * The tool as `npm start` runs it, with short timeouts for slow clients: a client that sends its headers or its
 * body a byte a second is cut off once the timeout passes, while a slow but steady request within it is answered.
 */
describe('slow clients', () => {
  let tool: RunningTool;
  before(async () => {
    tool = await startRunningTool('slow-clients', { HTTP_HEADERS_TIMEOUT_SECONDS: '2', HTTP_REQUEST_TIMEOUT_SECONDS: '3' });
  });
  after(async () => {
    await tool.stop();
  });

  it('cuts off a body sent a byte a second after the request timeout (the webhook receiver)', async () => {
    const answer = await rawRequest(
      tool.baseUrl,
      'POST /webhooks/proctoring/00000000-0000-4000-8000-000000000000 HTTP/1.1\nHost: localhost\nContent-Type: application/json\nContent-Length: 1000',
      { drip: { pieces: Array.from({ length: 1000 }, () => ' '), everyMs: 1000 }, giveUpMs: 15_000 },
    );
    assert.ok(answer.closed, 'the connection is closed');
    assert.ok(answer.status === undefined || answer.status === 408, answer.head);
    assert.ok(answer.answeredAfterMs >= 2500 && answer.answeredAfterMs < 8000, `cut after ${Math.round(answer.answeredAfterMs)} ms`);
  });

  it('cuts off headers sent a byte a second after the headers timeout', async () => {
    const answer = await rawRequest(tool.baseUrl, 'GET /healthz HTTP/1.1\nHost: localhost', { openHead: true, drip: { pieces: Array.from({ length: 100 }, () => 'X'), everyMs: 1000 }, giveUpMs: 15_000 });
    assert.ok(answer.closed);
    assert.ok(answer.status === undefined || answer.status === 408, answer.head);
    assert.ok(answer.answeredAfterMs < 8000, `cut after ${Math.round(answer.answeredAfterMs)} ms`);
  });

  it('answers a slow but steady request that arrives within the timeout', async () => {
    const body = JSON.stringify({ hello: 'world' });
    // Headers over one second, then the body over another: each within its timeout.
    const answer = await rawRequest(tool.baseUrl, 'POST /webhooks/proctoring/00000000-0000-4000-8000-000000000000 HTTP/1.1\nHost: localhost', {
      openHead: true,
      drip: { pieces: ['Content-Type: application/json\r\n', `Content-Length: ${body.length}\r\n\r\n`, body.slice(0, 8), body.slice(8)], everyMs: 500 },
    });
    assert.ok(answer.status !== undefined && answer.status !== 408, answer.head);
    assert.ok(answer.answeredAfterMs >= 1500, 'the whole request took its time');
  });
});
