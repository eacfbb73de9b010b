// The preview of a platform move in a browser: what follows the students, each rewritten quiz address and page
// pattern, the exams that need a look; and a refused launch that looks like a registered platform at a new
// address, whose link leads to the move. Keyboard only, axe on each page.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { createExamStore } from '../../../src/exams/store.js';
import { platformKey } from '../../../src/lti/identifiers.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { ADMIN_TEST_PASSWORD } from '../../helpers/admin.js';
import { signInByKeyboard, tabTo } from '../../helpers/admin-browser.js';
import { assertNoAxeViolations } from '../../helpers/axe.js';
import { withBrowser } from '../../helpers/browser.js';
import { settingsDocument } from '../../helpers/proctoring.js';

const OLD = { issuer: 'http://moodle.preview.example.edu', clientId: 'preview-client' };
const NEW = { issuer: 'https://lms.preview.example.edu', clientId: 'preview-client-2' };
const OLD_KEY = platformKey(OLD.issuer, OLD.clientId);
const NEW_KEY = platformKey(NEW.issuer, NEW.clientId);
const RENAMED = 'https://moodle.renamed.preview.example';

const endpoints = (issuer: string) => ({ authUrl: `${issuer}/auth`, tokenUrl: `${issuer}/token`, key: { jwksUrl: `${issuer}/certs` } });

describe('admin console in a browser: the preview of a move lists what follows the students and every address rewrite', () => {
  let app: TestApp;

  before(async () => {
    app = await startTestApp({ ADMIN_PASSWORD: ADMIN_TEST_PASSWORD });
    await app.tool.lti.platforms.register({ ...OLD, name: 'Moodle (old address)', ...endpoints(OLD.issuer), deploymentIds: ['1'] });
    await app.tool.lti.platforms.register({ ...NEW, name: 'Moodle (new address)', ...endpoints(NEW.issuer), deploymentIds: ['1'] });
    const exams = createExamStore(app.db);
    const midterm = await exams.ensure({ ...OLD, deploymentId: '1', contextId: 'course-1', resourceLinkId: 'quiz-1' }, 'Midterm');
    await exams.saveSettings(midterm.id, settingsDocument('http://moodle.preview.example.edu/mod/quiz/view.php?id=1'));
    const outside = await exams.ensure({ ...OLD, deploymentId: '1', contextId: 'course-1', resourceLinkId: 'quiz-2' }, 'Final on another site');
    await exams.saveSettings(outside.id, settingsDocument('https://quizzes.elsewhere.example/q/2'));
    await app.db.query("INSERT INTO attempts (id, exam_id, user_id, status) VALUES (gen_random_uuid(), $1, 'u-1', 'started')", [midterm.id]);
    await app.db.query(`INSERT INTO exam_accommodations (exam_id, user_id, override) VALUES ($1, 'u-1', '{"expire": 7200}')`, [midterm.id]);
    // A refused launch of the LMS at a new address, as the login records it (the same client id, an unknown issuer).
    await app.db.query(
      "INSERT INTO lti_refused_registrations (issuer, client_id, deployment_id, reason, looks_like_issuer, looks_like_client_id) VALUES ($1, $2, '1', 'unregistered_platform', $3, $2)",
      [RENAMED, OLD.clientId, OLD.issuer],
    );
  });
  after(async () => {
    await app.close();
  });

  it('keyboard only: the refused launch leads to the move; the preview shows the students, the rewrites and what needs a look; axe on each page', async (t) => {
    await withBrowser(t, async (context) => {
      const page: Page = await context.newPage();
      await signInByKeyboard(page, app.baseUrl);
      await page.goto(`${app.baseUrl}/admin/platforms`);
      assert.match((await page.textContent('#refused-heading ~ table')) ?? '', /This looks like Moodle \(old address\) at a new address: move it/);
      await assertNoAxeViolations(page, 'platforms: a refused launch that looks like a moved platform');
      await tabTo(page, '.looks-like a');
      await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
      assert.match((await page.textContent('#register-new-issuer')) ?? '', new RegExp(`came from ${RENAMED.replace(/\./g, '\\.')}: register it first`));
      assert.equal(await page.inputValue('#from'), OLD_KEY, 'the old platform is chosen');
      await assertNoAxeViolations(page, 'move: from a refused launch');

      await tabTo(page, '#to');
      await page.selectOption('#to', NEW_KEY);
      await tabTo(page, 'button:is(.primary)');
      await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
      assert.match((await page.textContent('#move-students')) ?? '', /Students keep their ids.*1 accommodation and 1 attempt \(1 in progress, resumed after the move\)/);
      const rows = await page.$$eval('#move-addresses tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('th, td')].map((cell) => cell.textContent?.trim() ?? '')));
      assert.deepEqual(rows[0], ['Midterm', 'launch_url', 'http://moodle.preview.example.edu/mod/quiz/view.php?id=1', 'https://lms.preview.example.edu/mod/quiz/view.php?id=1']);
      assert.deepEqual(
        rows.map((row) => row.at(-3)),
        ['launch_url', 'exam_start', 'exam_take', 'exam_end'],
        'each rewritten field of the exam',
      );
      assert.match(rows[1]?.at(-1) ?? '', /^\^https:\\\/\\\/lms\\\.preview\\\.example\\\.edu\\\/mod/);
      assert.match((await page.textContent('#move-check')) ?? '', /Needs a look[\s\S]*Final on another site\s+https:\/\/quizzes\.elsewhere\.example\/q\/2/);
      await assertNoAxeViolations(page, 'move: preview with rewrites');

      await tabTo(page, 'button:is(.primary)');
      await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
      assert.match((await page.textContent('.notice-ok')) ?? '', /were moved to this one/);
      const settings = await app.db.query<{ title: string; launch_url: string }>("SELECT title, settings->>'launch_url' AS launch_url FROM exams WHERE issuer = $1 ORDER BY title", [NEW.issuer]);
      assert.deepEqual(settings.rows, [
        { title: 'Final on another site', launch_url: 'https://quizzes.elsewhere.example/q/2' },
        { title: 'Midterm', launch_url: 'https://lms.preview.example.edu/mod/quiz/view.php?id=1' },
      ]);
    });
  });
});
