import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { openDatabase } from '../../../src/db/index.js';
import { migrate } from '../../../src/db/migrate.js';
import type { Database } from '../../../src/db/types.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { authorize, launch, postIdToken } from '../../helpers/lti-flow.js';
import { ownClusterUnavailable, startOwnCluster, type OwnCluster } from '../../helpers/pg-cluster.js';

const unavailable = ownClusterUnavailable();
const INTERNALS = /3D000|does not exist|postgres|tooldb|could not be read/i;

/**
 * The tool's database renamed away (or dropped) while it runs: PostgreSQL answers every new connection with
 * SQLSTATE 3D000. That is an outage like a stopped server: 503 with Retry-After, and the tool recovers when the
 * database is back.
 */
describe('a missing database', { timeout: 90_000, skip: unavailable ? `skipped: ${unavailable}` : false }, () => {
  let cluster: OwnCluster;
  let admin: Database;
  let app: TestApp;

  before(async () => {
    cluster = await startOwnCluster();
    admin = await openDatabase({ url: cluster.url, dataDir: 'memory' });
    await admin.query('CREATE DATABASE tooldb');
    const db = await openDatabase({ url: cluster.url.replace(/\/postgres$/, '/tooldb'), dataDir: 'memory', connectTimeoutMs: 1000, onError: () => {} });
    await migrate(db);
    app = await startTestApp({}, { db: Object.assign(db, { schema: undefined }) });
  });
  after(async () => {
    await app?.close().catch(() => {});
    await admin?.close().catch(() => {});
    cluster?.destroy();
  });

  /** Ends the tool's connections and renames its database; retried while a reconnect slips in between. */
  async function moveDatabase(from: string, to: string): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [from]);
      try {
        await admin.query(`ALTER DATABASE ${from} RENAME TO ${to}`);
        return;
      } catch (error) {
        if (attempt >= 20) throw error;
      }
    }
  }

  it('answers a launch with 503 and Retry-After while the database is missing, and works once it is back', async () => {
    assert.equal((await launch(app, { user: 'student', presentation: 'window' })).response.status, 302);
    const auth = await authorize(app, { user: 'student', presentation: 'window' });
    await moveDatabase('tooldb', 'tooldb_moved');
    try {
      const posted = await postIdToken(auth, auth.idToken).timeout(15_000);
      assert.equal(posted.status, 503, posted.text.slice(0, 300));
      assert.ok(posted.headers['retry-after'], 'Retry-After');
      assert.doesNotMatch(posted.text, INTERNALS);
      const ready = await supertest(app.baseUrl).get('/readyz');
      assert.equal((ready.body as { database?: string }).database, 'unavailable', 'readiness reports the database unavailable');
      const delivery = await supertest(app.baseUrl).post(`/webhooks/proctoring/${'A'.repeat(32)}`).type('json').send({ version: '3', data: {} });
      assert.equal(delivery.status, 503, 'the webhook receiver says outage, so the service delivers again later');
      assert.match(String(delivery.headers['content-type']), /application\/json/);
      assert.equal((delivery.body as { error?: string }).error, 'unavailable');
      assert.ok(delivery.headers['retry-after']);
    } finally {
      await moveDatabase('tooldb_moved', 'tooldb');
    }
    const afterwards = await launch(app, { user: 'student', presentation: 'window' });
    assert.equal(afterwards.response.status, 302, afterwards.response.text.slice(0, 300));
  });
});
