import assert from 'node:assert/strict';
import supertest from 'supertest';
import type { TestApp } from './app.js';

export const ADMIN_TEST_PASSWORD = 'correct horse battery staple';

/** The hidden `_csrf` field of the first form of a page. */
export function csrfFrom(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  assert.ok(match, 'the page has a form with a CSRF token');
  return match[1]!;
}

/** A supertest agent signed in to the console (cookies kept), with the CSRF token of its session. */
export async function signedInAgent(app: TestApp, password = ADMIN_TEST_PASSWORD): Promise<{ agent: ReturnType<typeof supertest.agent>; csrf(): Promise<string> }> {
  const agent = supertest.agent(app.baseUrl);
  const form = await agent.get('/admin/sign-in').expect(200);
  const response = await agent.post('/admin/sign-in').type('form').send({ _csrf: csrfFrom(form.text), password, next: '/admin' });
  assert.equal(response.status, 303, response.text.slice(0, 500));
  // The first page after sign-in replaces the CSRF cookie of the sign-in form with one of this session. A request
  // is built with the cookies the agent holds when it is created: in `agent.post(…).send({ _csrf: await csrf() })`
  // that is before csrf() runs, so the new cookie must be in the jar before the first such post.
  await agent.get('/admin').expect(200);
  return {
    agent,
    async csrf() {
      const page = await agent.get('/admin').expect(200);
      return csrfFrom(page.text);
    },
  };
}
