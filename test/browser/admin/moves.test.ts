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

const OLD = { issuer: 'http://moodle.move.example.edu', clientId: 'old-client' };
const NEW = { issuer: 'https://moodle.move.example.edu', clientId: 'new-client' };
const SECOND = { issuer: 'https://moodle2.move.example.edu', clientId: 'second-client' };
const OLD_KEY = platformKey(OLD.issuer, OLD.clientId);
const NEW_KEY = platformKey(NEW.issuer, NEW.clientId);
const SECOND_KEY = platformKey(SECOND.issuer, SECOND.clientId);

const endpoints = (issuer: string) => ({ authUrl: `${issuer}/auth`, tokenUrl: `${issuer}/token`, key: { jwksUrl: `${issuer}/certs` } });

describe('admin console: moving a platform to its new registration', () => {
  let app: TestApp;
  let admin: Awaited<ReturnType<typeof signedInAgent>>;
  const examsUnder = async (platform: { issuer: string; clientId: string }) =>
    (await app.db.query<{ title: string; deployment_id: string }>('SELECT title, deployment_id FROM exams WHERE issuer = $1 AND client_id = $2 ORDER BY title', [platform.issuer, platform.clientId])).rows;

  before(async () => {
    app = await startTestApp({ ADMIN_PASSWORD: ADMIN_TEST_PASSWORD });
    admin = await signedInAgent(app);
    await app.tool.lti.platforms.register({ ...OLD, name: 'Moodle (http)', ...endpoints(OLD.issuer), deploymentIds: ['1'] });
    await app.tool.lti.platforms.register({ ...NEW, name: 'Moodle (https)', ...endpoints(NEW.issuer), deploymentIds: ['7', '8'] });
    await app.tool.lti.platforms.register({ ...SECOND, name: 'Second Moodle', ...endpoints(SECOND.issuer), deploymentIds: ['3'] });
    const exams = createExamStore(app.db);
    const midterm = await exams.ensure({ ...OLD, deploymentId: '1', contextId: 'course-1', resourceLinkId: 'quiz-1' }, 'Midterm');
    await exams.saveSettings(midterm.id, settingsDocument('http://moodle.move.example.edu/mod/quiz/view.php?id=1'));
    await exams.ensure({ ...OLD, deploymentId: '1', contextId: 'course-2', resourceLinkId: 'quiz-2' }, 'Final');
  });
  after(async () => {
    await app.close();
  });

  const post = async (path: string, fields: Record<string, string>) => admin.agent.post(`/admin/moves${path}`).type('form').send({ _csrf: await admin.csrf(), ...fields });

  it('offers the registered platforms, the old one chosen from its page', async () => {
    const page = await admin.agent.get(`/admin/moves?from=${OLD_KEY}`).expect(200);
    assert.match(page.text, new RegExp(`<option value="${OLD_KEY}" selected>`));
    const detail = await admin.agent.get(`/admin/platforms/${OLD_KEY}`).expect(200);
    assert.match(detail.text, new RegExp(`href="/admin/moves\\?from=${OLD_KEY}"`));
  });

  const choiceRefusals = [
    { name: 'the same registration twice', fields: { from: OLD_KEY, to: OLD_KEY }, message: /To: choose another registration than the old one/ },
    { name: 'no new registration', fields: { from: OLD_KEY, to: '' }, message: /To: choose the new registration/ },
    { name: 'an unknown old registration', fields: { from: 'nosuchplatform', to: NEW_KEY }, message: /From: choose the old registration/ },
  ];
  for (const refusal of choiceRefusals) {
    it(`refuses ${refusal.name}`, async () => {
      const response = await post('/preview', refusal.fields);
      assert.equal(response.status, 400);
      assert.match(response.text, refusal.message);
    });
  }

  it('previews: a deployment it cannot map is refused, with the choice offered; nothing changes', async () => {
    const response = await post('/preview', { from: OLD_KEY, to: NEW_KEY });
    assert.equal(response.status, 400);
    assert.match(response.text, /say which deployment of the new registration takes the old deployment &#39;1&#39;/);
    assert.match(response.text, /<option value="8">8<\/option>/);
    assert.equal(response.text.includes('Move now'), false, 'no confirmation without a plan');
    assert.equal((await examsUnder(OLD)).length, 2);
  });

  it('previews with the mapping chosen: counts and deployments, still nothing changed', async () => {
    const response = await post('/preview', { from: OLD_KEY, to: NEW_KEY, 'deployment:1': '8' });
    assert.equal(response.status, 200, response.text.slice(0, 500));
    assert.match(response.text, /2 exams/);
    assert.match(response.text, /<td><code>1<\/code><\/td><td><code>8<\/code><\/td>/);
    assert.match(response.text, /Move now/);
    assert.equal((await examsUnder(OLD)).length, 2);
    assert.deepEqual(await examsUnder(NEW), []);
  });

  it('refuses the confirmation without its CSRF token', async () => {
    const response = await admin.agent.post('/admin/moves').type('form').send({ from: OLD_KEY, to: NEW_KEY, 'deployment:1': '8' });
    assert.equal(response.status, 403);
    assert.equal((await examsUnder(OLD)).length, 2);
  });

  it('moves on confirmation, all of it, and records it in the audit log', async () => {
    const response = await post('', { from: OLD_KEY, to: NEW_KEY, 'deployment:1': '8' });
    assert.equal(response.status, 303, response.text.slice(0, 500));
    assert.equal(response.headers.location, `/admin/platforms/${NEW_KEY}?done=platform-moved`);
    assert.deepEqual(await examsUnder(OLD), []);
    assert.deepEqual(await examsUnder(NEW), [{ title: 'Final', deployment_id: '8' }, { title: 'Midterm', deployment_id: '8' }]);
    const [entry] = await createAuditLog(app.db).list({ action: 'platform.move' });
    assert.ok(entry);
    assert.match(entry.target ?? '', /old-client.*→.*new-client/);
    assert.ok(entry.changes.some((c) => c.field === 'exams' && c.new === '2'));
    assert.ok(entry.changes.some((c) => c.field === 'deployments' && c.new === '{"1":"8"}'));
  });

  it('in a browser, keyboard only: choose, preview, move; axe on each step', async (t) => {
    await withBrowser(t, async (context) => {
      const page: Page = await context.newPage();
      await signInByKeyboard(page, app.baseUrl);
      await page.goto(`${app.baseUrl}/admin/moves?from=${NEW_KEY}`);
      await assertNoAxeViolations(page, 'move: choice');
      // Refused: no new registration chosen.
      await tabTo(page, 'button:is(.primary)');
      await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
      assert.match(await page.textContent('#to-error') ?? '', /choose the new registration/);
      await assertNoAxeViolations(page, 'move: refused choice');
      await tabTo(page, '#to');
      await page.selectOption('#to', SECOND_KEY);
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
