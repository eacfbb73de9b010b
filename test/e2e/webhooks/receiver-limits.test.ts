import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { startTestApp, type TestApp } from '../../helpers/app.js';

/** The webhook receiver has a per-client rate limit of its own, and answers it (like every refusal) in JSON. */
describe('webhook receiver limits', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ RATE_LIMIT_WEBHOOKS: '3' });
  });
  after(async () => {
    await app.close();
  });

  it('refuses deliveries past the limit with 429 JSON and Retry-After', async () => {
    const post = () => supertest(app.baseUrl).post('/webhooks/proctoring/00000000-0000-4000-8000-000000000000').type('json').send({ version: '3', data: {} });
    for (let i = 0; i < 3; i += 1) assert.equal((await post()).status, 401, 'a forgery, refused by its signature');
    const limited = await post();
    assert.equal(limited.status, 429);
    assert.match(String(limited.headers['content-type']), /application\/json/);
    assert.equal((limited.body as { error?: string }).error, 'too_many_requests');
    assert.ok(Number(limited.headers['retry-after']) > 0);
  });
});
