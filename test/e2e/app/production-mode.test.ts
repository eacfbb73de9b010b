// Test process: own. It records every module the app loads, so no earlier file may have loaded them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import type { TestApp } from '../../helpers/app.js';
import { recordLoadedModules, type ModuleRecorder } from '../../helpers/loaded-modules.js';

const SANDBOX_SOURCES = new URL('../../../src/sandbox/', import.meta.url).href;

/** Everything of the sandbox stays out of production mode. */
describe('production mode: nothing of the sandbox', () => {
  let app: TestApp;
  let modules: ModuleRecorder;
  before(async () => {
    // The app is imported only once recording runs, so that every module it loads is seen.
    modules = recordLoadedModules();
    const { startTestApp } = await import('../../helpers/app.js');
    app = await startTestApp({
      NODE_ENV: 'production',
      PUBLIC_URL: 'https://proctor.example.edu',
      ENCRYPTION_KEY: 'p'.repeat(40),
      // Only for the configuration check: the test database is handed to the app directly.
      DATABASE_URL: 'postgres://u:p@db.example.edu:5432/proctor',
      PROCTORING_BASE_URL: 'https://eu.proctoring.example',
      PROCTORING_REGION: 'EU',
      PROCTORING_CONSUMER_KEY: 'ck',
      PROCTORING_SECRET: 'secret',
    });
  });
  after(async () => {
    await app.close();
    modules.close();
  });

  it('never loads a module of the sandbox (demo LMS, emulator)', async () => {
    const loaded = await modules.loaded();
    assert.ok(loaded.some((url) => url.endsWith('/src/app.ts')), 'the recorder saw the app load');
    assert.deepEqual(
      loaded.filter((url) => url.startsWith(SANDBOX_SOURCES)),
      [],
    );
  });

  it('starts without the demo LMS and the emulator', () => {
    assert.equal(app.config.sandbox, false);
    assert.equal(app.tool.sandbox, undefined);
  });

  it('serves no sandbox page or endpoint', async () => {
    for (const path of ['/sandbox/lms/', '/sandbox/lms/jwks', '/sandbox/proctoring/session/x']) {
      const response = await supertest(app.baseUrl).get(path);
      assert.equal(response.status, 404, path);
    }
    const launch = await supertest(app.baseUrl).post('/sandbox/proctoring/v2/candidate/launch').set('api_key', 'x').send({});
    assert.equal(launch.status, 404);
    const home = await supertest(app.baseUrl).get('/');
    assert.equal(home.status, 200);
    assert.doesNotMatch(home.text, /sandbox/i);
  });

  it('registers no demo platform', async () => {
    assert.deepEqual(await app.tool.lti.platforms.list(), []);
  });
});
