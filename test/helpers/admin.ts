import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import express from 'express';
import supertest from 'supertest';
import { createAdminConsole } from '../../src/admin/index.js';
import type { SignInLimits } from '../../src/admin/sign-in-limits.js';
import { createContextStore } from '../../src/hosted/contexts.js';
import { createInstitutionSettingsStore } from '../../src/institution/settings.js';
import { createPlatformActivity } from '../../src/lti/platform-activity.js';
import { createRefusedRegistrations } from '../../src/lti/refused-registrations.js';
import { createLogger } from '../../src/logger.js';
import { startTestApp, TEST_ENCRYPTION_KEY, type TestApp } from './app.js';
import { startStub } from './hosted.js';

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

/**
 * A second admin console on the test app's database, served by a server of its own: another replica's console
 * as far as sign-in counts go (its own process memory, the same database). `signInLimits` replaces the defaults;
 * `trustProxy` makes it read the client's address from X-Forwarded-For behind one proxy.
 */
export async function startSecondConsole(app: TestApp, options: { signInLimits?: SignInLimits; trustProxy?: boolean } = {}): Promise<{ url: string; close(): Promise<void> }> {
  const views = express();
  if (options.trustProxy) views.set('trust proxy', 1);
  views.set('views', app.tool.app.get('views') as string);
  views.set('view engine', 'ejs');
  views.use(
    '/admin',
    createAdminConsole({
      config: app.config,
      db: app.db,
      lti: app.tool.lti,
      logger: createLogger('silent'),
      secret: TEST_ENCRYPTION_KEY,
      refusedRegistrations: createRefusedRegistrations(app.db, async () => ({ known: true })),
      platformActivity: createPlatformActivity(app.db),
      institutions: createInstitutionSettingsStore(app.db),
      contexts: createContextStore(app.db, { pseudonymSecret: 'unused' }),
      pseudonyms: 'unused',
      accounts: app.tool.accounts,
      accountClients: app.tool.accountClients,
      webhooks: app.tool.webhooks.subscriptions,
      ...(options.signInLimits ? { signInLimits: options.signInLimits } : {}),
    }).router,
  );
  return startStub(views);
}

export type SignedInAgent = Awaited<ReturnType<typeof signedInAgent>>;

/**
 * An app with the admin console on and an administrator signed in, for the tests of the suite it is called in:
 * started in its `before`, closed in its `after`.
 */
export function signedInConsole(): { readonly app: TestApp; readonly admin: SignedInAgent } {
  let started: { app: TestApp; admin: SignedInAgent } | undefined;
  before(async () => {
    const app = await startTestApp({ ADMIN_PASSWORD: ADMIN_TEST_PASSWORD });
    started = { app, admin: await signedInAgent(app) };
  });
  after(async () => {
    await started?.app.close();
  });
  const get = () => {
    if (!started) throw new Error('the console starts in the suite’s before hook');
    return started;
  };
  return {
    get app() {
      return get().app;
    },
    get admin() {
      return get().admin;
    },
  };
}
