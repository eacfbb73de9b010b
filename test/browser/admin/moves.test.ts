import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { createAuditLog } from '../../../src/admin/audit.js';
import { createExamStore } from '../../../src/exams/store.js';
import { platformKey } from '../../../src/lti/identifiers.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { ADMIN_TEST_PASSWORD, signedInAgent } from '../../helpers/admin.js';
import { signInByKeyboard, tabTo } from '../../helpers/admin-browser.js';
import { assertNoAxeViolations } from '../../helpers/axe.js';
import { withBrowser } from '../../helpers/browser.js';
import { settingsDocument } from '../../helpers/proctoring.js';

interface Platform {
  issuer: string;
  clientId: string;
  key: string;
}
const platform = (issuer: string, clientId: string): Platform => ({ issuer, clientId, key: platformKey(issuer, clientId) });

const endpoints = (issuer: string) => ({ authUrl: `${issuer}/auth`, tokenUrl: `${issuer}/token`, key: { jwksUrl: `${issuer}/certs` } });

describe('admin console: moving a platform to its new registration', () => {
  let app: TestApp;
  let admin: Awaited<ReturnType<typeof signedInAgent>>;
  const examsUnder = async (platform: { issuer: string; clientId: string }) =>
    (await app.db.query<{ title: string; deployment_id: string }>('SELECT title, deployment_id FROM exams WHERE issuer = $1 AND client_id = $2 ORDER BY title', [platform.issuer, platform.clientId])).rows;

  before(async () => {
    app = await startTestApp({ ADMIN_PASSWORD: ADMIN_TEST_PASSWORD });
    admin = await signedInAgent(app);
  });

  /**
   * Registrations of this test's own: the old one (http, deployment 1, with two exams), its new one (https,
   * deployments 7 and 8) and a second LMS (deployment 3). No test sees what another moved.
   */
  let made = 0;
  async function registrations(): Promise<{ OLD: Platform; NEW: Platform; SECOND: Platform }> {
    made += 1;
    const host = `moodle${made}.move.example.edu`;
    const OLD = platform(`http://${host}`, `old-client-${made}`);
    const NEW = platform(`https://${host}`, `new-client-${made}`);
    const SECOND = platform(`https://second-${host}`, `second-client-${made}`);
    const register = (p: Platform, name: string, deploymentIds: string[]) =>
      app.tool.lti.platforms.register({ issuer: p.issuer, clientId: p.clientId, name, ...endpoints(p.issuer), deploymentIds });
    await register(OLD, `Moodle ${made} (http)`, ['1']);
    await register(NEW, `Moodle ${made} (https)`, ['7', '8']);
    await register(SECOND, `Second Moodle ${made}`, ['3']);
    const exams = createExamStore(app.db);
    const old = { issuer: OLD.issuer, clientId: OLD.clientId, deploymentId: '1' };
    const midterm = await exams.ensure({ ...old, contextId: 'course-1', resourceLinkId: 'quiz-1' }, 'Midterm');
    await exams.saveSettings(midterm.id, settingsDocument(`${OLD.issuer}/mod/quiz/view.php?id=1`));
    await exams.ensure({ ...old, contextId: 'course-2', resourceLinkId: 'quiz-2' }, 'Final');
    return { OLD, NEW, SECOND };
  }
  after(async () => {
    await app.close();
  });

  const post = async (path: string, fields: Record<string, string>) => {
    const token = await admin.csrf();
    return admin.agent.post(`/admin/moves${path}`).type('form').send({ _csrf: token, ...fields });
  };

  it('offers the registered platforms, the old one chosen from its page', async () => {
    const { OLD } = await registrations();
    const page = await admin.agent.get(`/admin/moves?from=${OLD.key}`).expect(200);
    assert.match(page.text, new RegExp(`<option value="${OLD.key}" selected>`));
    const detail = await admin.agent.get(`/admin/platforms/${OLD.key}`).expect(200);
    assert.match(detail.text, new RegExp(`href="/admin/moves\\?from=${OLD.key}"`));
  });

  const choiceRefusals = [
    { name: 'the same registration twice', fields: ({ OLD }: { OLD: Platform }) => ({ from: OLD.key, to: OLD.key }), message: /To: choose another registration than the old one/ },
    { name: 'no new registration', fields: ({ OLD }: { OLD: Platform }) => ({ from: OLD.key, to: '' }), message: /To: choose the new registration/ },
    { name: 'an unknown old registration', fields: ({ NEW }: { NEW: Platform }) => ({ from: 'nosuchplatform', to: NEW.key }), message: /From: choose the old registration/ },
  ];
  for (const refusal of choiceRefusals) {
    it(`refuses ${refusal.name}`, async () => {
      const response = await post('/preview', refusal.fields(await registrations()));
      assert.equal(response.status, 400, response.text.slice(0, 300));
      assert.match(response.text, refusal.message);
    });
  }

  it('previews: a deployment it cannot map is refused, with the choice offered; nothing changes', async () => {
    const { OLD, NEW } = await registrations();
    const response = await post('/preview', { from: OLD.key, to: NEW.key });
    assert.equal(response.status, 400);
    assert.match(response.text, /say which deployment of the new registration takes the old deployment &#39;1&#39;/);
    assert.match(response.text, /<option value="8">8<\/option>/);
    assert.equal(response.text.includes('Move now'), false, 'no confirmation without a plan');
    assert.equal((await examsUnder(OLD)).length, 2);
  });

  it('previews with the mapping chosen: counts and deployments, still nothing changed', async () => {
    const { OLD, NEW } = await registrations();
    const response = await post('/preview', { from: OLD.key, to: NEW.key, 'deployment:1': '8' });
    assert.equal(response.status, 200, response.text.slice(0, 500));
    assert.match(response.text, /2 exams/);
    assert.match(response.text, /<td><code>1<\/code><\/td><td><code>8<\/code><\/td>/);
    assert.match(response.text, /Move now/);
    assert.equal((await examsUnder(OLD)).length, 2);
    assert.deepEqual(await examsUnder(NEW), []);
  });

  it('refuses the confirmation without its CSRF token', async () => {
    const { OLD, NEW } = await registrations();
    const response = await admin.agent.post('/admin/moves').type('form').send({ from: OLD.key, to: NEW.key, 'deployment:1': '8' });
    assert.equal(response.status, 403);
    assert.equal((await examsUnder(OLD)).length, 2);
  });

  it('moves on confirmation, all of it, and records it in the audit log', async () => {
    const { OLD, NEW } = await registrations();
    const response = await post('', { from: OLD.key, to: NEW.key, 'deployment:1': '8' });
    assert.equal(response.status, 303, response.text.slice(0, 500));
    assert.equal(response.headers.location, `/admin/platforms/${NEW.key}?done=platform-moved`);
    assert.deepEqual(await examsUnder(OLD), []);
    assert.deepEqual(await examsUnder(NEW), [{ title: 'Final', deployment_id: '8' }, { title: 'Midterm', deployment_id: '8' }]);
    const entry = (await createAuditLog(app.db).list({ action: 'platform.move' })).find((e) => e.target?.includes(OLD.clientId));
    assert.ok(entry);
    assert.match(entry.target ?? '', new RegExp(`${OLD.clientId}.*→.*${NEW.clientId}`));
    assert.ok(entry.changes.some((c) => c.field === 'exams' && c.new === '2'));
    assert.ok(entry.changes.some((c) => c.field === 'deployments' && c.new === '{"1":"8"}'));
  });

  it('in a browser, keyboard only: choose, preview, move; axe on each step', async (t) => {
    const { OLD, SECOND } = await registrations();
    await withBrowser(t, async (context) => {
      const page: Page = await context.newPage();
      await signInByKeyboard(page, app.baseUrl);
      await page.goto(`${app.baseUrl}/admin/moves?from=${OLD.key}`);
      await assertNoAxeViolations(page, 'move: choice');
      // Refused: no new registration chosen.
      await tabTo(page, 'button:is(.primary)');
      await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
      assert.match(await page.textContent('#to-error') ?? '', /choose the new registration/);
      await assertNoAxeViolations(page, 'move: refused choice');
      await tabTo(page, '#to');
      await page.selectOption('#to', SECOND.key);
      await tabTo(page, 'button:is(.primary)');
      await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
      assert.match(await page.textContent('#move-plan') ?? '', /2 exams/);
      await assertNoAxeViolations(page, 'move: preview');
      await tabTo(page, 'button:is(.primary)');
      await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
      assert.match(await page.textContent('.notice-ok') ?? '', /were moved to this one/);
      assert.deepEqual((await examsUnder(SECOND)).map((e) => e.deployment_id), ['3', '3']);
    });
  });
});
