import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { platformSummaries } from '../../../src/lti/store/registered-platforms.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

/** The CLI lists platforms without starting ltijs: what it reads must be what the adapter answers. */
describe('platform summaries read without ltijs', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
    const issuer = 'https://moodle.summaries.example.edu';
    await app.tool.lti.platforms.register({ issuer, clientId: 'c-2', name: 'Moodle', authUrl: `${issuer}/a`, tokenUrl: `${issuer}/t`, key: { jwksUrl: `${issuer}/j` }, deploymentIds: ['5', '2'] });
    await app.tool.lti.platforms.setActive(issuer, 'c-2', false);
  });
  after(async () => {
    await app.close();
  });

  it('equal the adapter’s list: names, endpoints, key method, status and deployments', async () => {
    const order = (list: Array<{ issuer: string; clientId: string }>) => [...list].sort((a, b) => `${a.issuer} ${a.clientId}`.localeCompare(`${b.issuer} ${b.clientId}`));
    const adapter = order(await app.tool.lti.platforms.list());
    assert.equal(adapter.length, 2);
    assert.deepEqual(order(await platformSummaries(app.db)), adapter);
  });
});
