import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import express from 'express';
import supertest from 'supertest';
import { createHealthRoutes, READY_DATABASE_CHECK_MS } from '../../../src/http/health-routes.js';

/**
 * `/readyz` says how the database answers without ever waiting longer than its own check: a database that
 * refuses or does not answer is reported unavailable, and the replica stays ready (an outage hits every replica).
 */
describe('health routes', { timeout: 10_000 }, () => {
  const appWith = (ping: () => Promise<void>) => express().use(createHealthRoutes({ ping, kind: 'postgres' }));

  it('answers /healthz without asking the database', async () => {
    let pinged = false;
    const response = await supertest(appWith(async () => void (pinged = true))).get('/healthz');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { status: 'ok' });
    assert.equal(pinged, false);
  });

  it('reports a database that answers as ready', async () => {
    const response = await supertest(appWith(async () => undefined)).get('/readyz');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { status: 'ready', database: 'ready', databaseKind: 'postgres' });
    assert.equal(response.headers['cache-control'], 'no-store');
  });

  it('reports a database that refuses as unavailable, still ready', async () => {
    const response = await supertest(appWith(() => Promise.reject(new Error('connection refused')))).get('/readyz');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { status: 'ready', database: 'unavailable', databaseKind: 'postgres' });
  });

  it('reports a database that does not answer as unavailable after its check time', async () => {
    const started = performance.now();
    const response = await supertest(appWith(() => new Promise<void>(() => undefined))).get('/readyz');
    const tookMs = performance.now() - started;
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { status: 'ready', database: 'unavailable', databaseKind: 'postgres' });
    assert.ok(tookMs >= READY_DATABASE_CHECK_MS - 50 && tookMs < READY_DATABASE_CHECK_MS + 2_000, `answered after ${Math.round(tookMs)} ms`);
  });
});
