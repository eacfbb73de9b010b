import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { launch } from '../../helpers/lti-flow.js';

/** Errors are mapped once: scripts calling APIs and hosted endpoints get JSON, people get a page. */
describe('error responses by kind of route', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app.close();
  });

  const cases = [
    { name: 'the settings API without a session', path: '/lti/api/exams/00000000-0000-4000-8000-000000000000/settings', json: true },
    { name: 'a hosted roster without a token', path: '/hosted/roster', json: true },
    { name: 'an unknown page', path: '/no-such-page', json: false },
    { name: 'a session page without a session', path: '/lti/hub/00000000-0000-4000-8000-000000000000/review', json: false },
  ];
  for (const c of cases) {
    it(`${c.name}: ${c.json ? 'JSON' : 'an HTML page'}, even for a browser's Accept header`, async () => {
      const response = await supertest(app.baseUrl).get(c.path).set('Accept', 'text/html,application/xhtml+xml,*/*;q=0.8');
      assert.ok(response.status >= 400, `status ${response.status}`);
      if (c.json) {
        assert.match(String(response.headers['content-type']), /application\/json/);
        assert.equal(typeof (response.body as { error?: unknown }).error, 'string');
      } else {
        assert.match(String(response.headers['content-type']), /text\/html/);
      }
      assert.doesNotMatch(response.text, /ltik|stack|at [A-Za-z]+ \(/);
    });
  }

  it('an unknown API route inside a valid LTI session: JSON', async () => {
    const { auth, ltik } = await launch(app, { user: 'instructor', flavor: 'canvas', presentation: 'window' });
    const response = await auth.agent.get('/lti/api/no-such-route').set('Authorization', `Bearer ${ltik}`).set('Accept', 'text/html');
    assert.equal(response.status, 404);
    assert.match(String(response.headers['content-type']), /application\/json/);
    assert.equal((response.body as { error?: string }).error, 'not_found');
  });
});
