// Behind a proxy (TRUST_PROXY_HOPS set) that sends no X-Forwarded-For, every user has the proxy's address and
// shares its rate-limit bucket: the tool says so in its log, once and then hourly, and not for the balancer's
// own health checks.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import express from 'express';
import supertest from 'supertest';
import { FORWARDED_WARNING_EVERY_MS, warnWithoutForwardedFor } from '../../../src/http/forwarded-check.js';
import { capturedLog, startTestApp, type TestApp } from '../../helpers/app.js';

const WARNING = /TRUST_PROXY_HOPS is set but a request arrived without X-Forwarded-For/;

describe('a trusted proxy that sends no X-Forwarded-For', () => {
  // An app warns once and then stays quiet for an hour: each test gets an app, and a log, that have not warned yet.
  let log: ReturnType<typeof capturedLog>;
  let app: TestApp;
  beforeEach(async () => {
    log = capturedLog();
    app = await startTestApp({ TRUST_PROXY_HOPS: '1' }, { logger: log.logger });
  });
  afterEach(() => app.close());
  const warnings = () => log.entries().filter((entry) => WARNING.test(String(entry.msg)));

  it('is not noticed on health checks, nor on requests that carry the header', async () => {
    await supertest(app.baseUrl).get('/readyz').expect(200);
    await supertest(app.baseUrl).get('/healthz').expect(200);
    await supertest(app.baseUrl).get('/lti/keys').set('X-Forwarded-For', '203.0.113.7').expect(200);
    assert.deepEqual(warnings(), []);
  });

  it('is warned about once, naming the fix', async () => {
    await supertest(app.baseUrl).get('/lti/keys').expect(200);
    await supertest(app.baseUrl).get('/lti/keys').expect(200);
    const lines = warnings();
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.level, 40);
    assert.match(String(lines[0]!.msg), /option forwardfor/);
    assert.equal(lines[0]!.trustProxyHops, 1);
  });
});

describe('the warning without X-Forwarded-For', () => {
  it('comes again after an hour with the count of requests meanwhile, and never without TRUST_PROXY_HOPS', async () => {
    let clock = 0;
    const log = capturedLog();
    const app = express();
    app.use(warnWithoutForwardedFor({ trustProxyHops: 2, logger: log.logger, now: () => clock }));
    app.get('/x', (_req, res) => res.end());
    for (let n = 0; n < 3; n++) await supertest(app).get('/x').expect(200);
    clock += FORWARDED_WARNING_EVERY_MS;
    await supertest(app).get('/x').expect(200);
    assert.deepEqual(log.entries().map((entry) => entry.requestsWithoutHeader), [1, 3]);

    const quiet = capturedLog();
    const direct = express();
    direct.use(warnWithoutForwardedFor({ trustProxyHops: 0, logger: quiet.logger }));
    direct.get('/x', (_req, res) => res.end());
    await supertest(direct).get('/x').expect(200);
    assert.deepEqual(quiet.lines, []);
  });
});
