import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { createExamStore } from '../../../src/exams/store.js';
import { metricsRegistry } from '../../../src/metrics.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { authorize, launch, postIdToken } from '../../helpers/lti-flow.js';
import { migratedClusterDatabase, ownClusterUnavailable, startOwnCluster, type OwnCluster } from '../../helpers/pg-cluster.js';
import { sample } from '../../helpers/metrics.js';

const unavailable = ownClusterUnavailable();
/** What must never reach a browser: driver and server error text, the database's address or name. */
const INTERNALS = /ECONNREFUSED|ECONNRESET|terminat|connect|postgres|127\.0\.0\.1:\d{4,5}|timeout exceeded|"details"/i;
const INCIDENT = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

/** One value of the process's /metrics text, 0 when the series is absent. */
describe('a database outage', { timeout: 60_000, skip: unavailable ? `skipped: ${unavailable}` : false }, () => {
  let cluster: OwnCluster;
  let app: TestApp;
  const rejections: unknown[] = [];
  const recordRejection = (reason: unknown) => rejections.push(reason);

  before(async () => {
    process.on('unhandledRejection', recordRejection);
    cluster = await startOwnCluster();
    app = await startTestApp({}, { db: await migratedClusterDatabase(cluster) });
  });
  after(async () => {
    process.off('unhandledRejection', recordRejection);
    await app?.close().catch(() => {});
    cluster?.destroy();
  });

  const assertAlive = async () => {
    assert.deepEqual(rejections.map(String), [], 'no unhandled rejection');
    const health = await supertest(app.baseUrl).get('/healthz');
    assert.equal(health.status, 200);
  };
  /** The replica stays in its balancer during an outage (its own 503 page beats the balancer's bare one), and says why. */
  const assertReadyWithoutDatabase = async () => {
    const started = performance.now();
    const ready = await supertest(app.baseUrl).get('/readyz');
    assert.equal(ready.status, 200, ready.text);
    assert.deepEqual(ready.body, { status: 'ready', database: 'unavailable', databaseKind: 'postgres' });
    assert.ok(performance.now() - started < 2500, 'answered within a probe timeout');
  };

  it('launches work before, get a clean 503 page during, and work again right after', async () => {
    const before = await launch(app, { user: 'student', presentation: 'window' });
    assert.equal(before.response.status, 302);
    assert.match(before.response.headers.location as string, /\/sandbox\/proctoring\/session\//);

    const auth = await authorize(app, { user: 'student', presentation: 'window' });
    const metricsBefore = await metricsRegistry.metrics();
    cluster.stop();
    try {
      const posted = await postIdToken(auth, auth.idToken).timeout(15_000);
      assert.equal(posted.status, 503, posted.text.slice(0, 300));
      // The outage is visible to monitoring: the database errors and the launch's 503 are counted.
      const metrics = await metricsRegistry.metrics();
      const delta = (series: string) => sample(metrics, series) - sample(metricsBefore, series);
      assert.ok(delta('proctor_lti_database_errors_total{kind="unavailable"}') >= 1, 'database errors of kind unavailable');
      assert.equal(delta('proctor_lti_http_responses_total{route="lti_launch",status="503"}'), 1);
      assert.match(posted.headers['content-type'] as string, /text\/html/);
      assert.match(posted.text, INCIDENT, 'the page carries an incident id');
      assert.doesNotMatch(posted.text, INTERNALS);
      assert.equal(posted.headers['retry-after'] !== undefined, true, 'Retry-After tells the browser to come back');
      await assertAlive();
      await assertReadyWithoutDatabase();
    } finally {
      cluster.start();
    }
    const afterwards = await launch(app, { user: 'student', presentation: 'window' });
    assert.equal(afterwards.response.status, 302, afterwards.response.text.slice(0, 300));
    assert.equal((await supertest(app.baseUrl).get('/readyz')).body.database, 'ready');
    assert.match(afterwards.response.headers.location as string, /\/sandbox\/proctoring\/session\//);
    await assertAlive();
  });

  it('a login initiation during the outage gets the 503 page, never ltijs JSON with the database error', async () => {
    const login = await app.tool.sandbox!.demoLms.initiateLogin({ user: 'student', presentation: 'window' });
    cluster.stop();
    try {
      const response = await supertest(app.baseUrl).post(new URL(login.url).pathname).type('form').send(login.params);
      assert.equal(response.status, 503, response.text.slice(0, 300));
      assert.match(response.text, INCIDENT);
      assert.doesNotMatch(response.text, INTERNALS);
      await assertAlive();
    } finally {
      cluster.start();
    }
  });

  it('the settings API says 503 during the outage, not 401', async () => {
    const lms = app.tool.sandbox!.demoLms;
    const exam = await createExamStore(app.db).find({ issuer: lms.registration.issuer, clientId: lms.registration.clientId, deploymentId: '1', contextId: lms.course.id, resourceLinkId: lms.course.exam.id });
    assert.ok(exam, 'the exam exists after the launches');
    const { auth, ltik } = await launch(app, { user: 'instructor', presentation: 'window' });
    const get = () => auth.agent.get(`/lti/api/exams/${exam.id}/settings`).set('Authorization', `Bearer ${ltik}`).set('Accept', 'application/json');
    assert.equal((await get()).status, 200);
    cluster.stop();
    try {
      const response = await get();
      assert.equal(response.status, 503, response.text.slice(0, 300));
      assert.equal((response.body as { error?: string }).error, 'unavailable');
      assert.match(String((response.body as { incidentId?: string }).incidentId), INCIDENT);
      assert.doesNotMatch(response.text, INTERNALS);
      await assertAlive();
    } finally {
      cluster.start();
    }
    assert.equal((await get()).status, 200, 'the same session works again once the database is back');
  });
});
