// /metrics: Prometheus text behind a bearer token, fed by real launches, Launch API calls and roster fetches.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import express from 'express';
import supertest from 'supertest';
import { metricsRoute } from '../../../src/http/metrics-route.js';
import { createHostedLinks } from '../../../src/hosted/links.js';
import { deriveSectionId } from '../../../src/lti/identifiers.js';
import { countWebhookDelivery } from '../../../src/metrics.js';
import { startTestApp, type TestApp, installationSecret } from '../../helpers/app.js';
import { emulator, launchAs } from '../../helpers/launches.js';
import { sample } from '../../helpers/metrics.js';

const TOKEN = 'metrics-token-0123456789abcdef';

/** The value of one series in Prometheus's text format, 0 when absent. */
describe('/metrics', () => {
  let app: TestApp;
  let request: ReturnType<typeof supertest>;
  const scrape = async () => {
    const response = await request.get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
    assert.equal(response.status, 200);
    assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    return response.text;
  };

  before(async () => {
    app = await startTestApp({ METRICS_TOKEN: TOKEN });
    request = supertest(app.baseUrl);
  });
  after(async () => {
    await app.close();
  });

  it('is 404 without the bearer token, with a wrong one, and when no token is configured', async () => {
    assert.equal((await request.get('/metrics')).status, 404);
    assert.equal((await request.get('/metrics').set('Authorization', `Bearer ${TOKEN}x`)).status, 404);
    assert.equal((await request.get('/metrics').set('Authorization', TOKEN)).status, 404);
    // Without METRICS_TOKEN (one app per process: ltijs is a singleton, so the route alone).
    const bare = express().get('/metrics', metricsRoute(undefined));
    assert.equal((await supertest(bare).get('/metrics').set('Authorization', 'Bearer undefined')).status, 404);
    assert.equal((await supertest(bare).get('/metrics')).status, 404);
  });

  it('counts launches by kind and outcome, with their durations and the Launch API calls behind them', async () => {
    const before = await scrape();
    const ok = await launchAs(app, { user: 'student', flavor: 'canvas', presentation: 'window' });
    assert.equal(ok.response.status, 302);
    emulator(app).faults.inject({ kind: 'status', status: 503, times: 1 });
    const failed = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
    assert.equal(failed.response.status, 502);
    const text = await scrape();
    const delta = (series: string) => sample(text, series) - sample(before, series);
    assert.equal(delta('proctor_lti_launches_total{kind="candidate",outcome="redirected"}'), 1);
    assert.equal(delta('proctor_lti_launches_total{kind="candidate",outcome="upstream_error"}'), 1);
    assert.equal(delta('proctor_lti_launch_duration_seconds_count{kind="candidate",outcome="redirected"}'), 1);
    assert.equal(delta('proctor_lti_proctoring_api_request_duration_seconds_count{endpoint="candidate_launch",status="200"}'), 1);
    assert.equal(delta('proctor_lti_proctoring_api_request_duration_seconds_count{endpoint="candidate_launch",status="503"}'), 1);
    assert.match(text, /^nodejs_eventloop_lag_seconds \d/m, 'event-loop lag');
    assert.match(text, /^proctor_lti_database_pool_connections\{state="idle"\} \d/m, 'database pool');
  });

  it('counts roster requests (cache hits and misses), Names and Roles fetches and pages, and webhook deliveries', async () => {
    const demo = app.tool.sandbox!.demoLms;
    demo.setClass({ classSize: 30, nrpsPageSize: 13 });
    // A student's launch: the instructor's hub would read (and cache) the roster for its names first.
    const launched = await launchAs(app, { user: 'student', flavor: 'canvas', presentation: 'window' });
    assert.ok(launched.response.status < 400);
    const pseudonyms = await installationSecret(app.db, 'pseudonyms');
    const links = createHostedLinks({ baseUrl: app.baseUrl, secret: await installationSecret(app.db, 'hosted-links') });
    const sectionId = deriveSectionId(pseudonyms, demo.registration.issuer, demo.registration.deploymentIds[0]!, demo.course.id);
    const url = new URL(await links.rosterUrl(sectionId, 60));
    const before = await scrape();
    assert.equal((await request.get(url.pathname + url.search)).status, 200);
    assert.equal((await request.get(url.pathname + url.search)).status, 200);
    countWebhookDelivery('accepted');
    const text = await scrape();
    const delta = (series: string) => sample(text, series) - sample(before, series);
    assert.equal(delta('proctor_lti_roster_requests_total{cache="miss"}'), 1);
    assert.equal(delta('proctor_lti_roster_requests_total{cache="hit"}'), 1);
    assert.equal(delta('proctor_lti_names_roles_fetch_duration_seconds_count{outcome="ok"}'), 1);
    assert.equal(delta('proctor_lti_names_roles_pages_total'), 3);
    assert.equal(delta('proctor_lti_webhook_deliveries_total{outcome="accepted"}'), 1);
  });
});
