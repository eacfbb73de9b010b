import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { exportExams } from '../../../src/exams/transfer.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { ADMIN_TEST_PASSWORD } from '../../helpers/admin.js';
import { signInByKeyboard } from '../../helpers/admin-browser.js';
import { assertNoAxeViolations } from '../../helpers/axe.js';
import { withBrowser } from '../../helpers/browser.js';
import { launch } from '../../helpers/lti-flow.js';

describe('in a browser: importing exams is a dry run first, and overwriting needs its own tick', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ ADMIN_PASSWORD: ADMIN_TEST_PASSWORD });
    await launch(app, { user: 'instructor' });
  });
  after(async () => {
    await app.close();
  });

  it('previews, refuses to overwrite unticked, names a refused exam by its title, and imports on confirmation', async (t) => {
    const file = await exportExams(app.db);
    const original = file.exams[0]!;
    const renamed = { ...file, exams: [{ ...original, title: 'Final exam (imported)' }, { ...original, resource_link_id: 'another-link', id: undefined, title: 'Quiz 2 (imported)' }] };
    const broken = { ...file, exams: [{ ...original, resource_link_id: 'broken-link', id: undefined, title: 'Broken quiz', status: 'maybe' }] };
    const titleNow = async () => (await exportExams(app.db)).exams.find((e) => e.id === original.id)?.title;
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      await signInByKeyboard(page, app.baseUrl);

      await page.goto(`${app.baseUrl}/admin/exams`);
      await page.fill('#json', JSON.stringify(broken));
      await Promise.all([page.waitForNavigation(), page.click('button:has-text("Import")')]);
      assert.match(await page.textContent('#import-problems') ?? '', /Exam #1, “Broken quiz”/);
      await assertNoAxeViolations(page, 'refused import');

      await page.goto(`${app.baseUrl}/admin/exams`);
      await page.fill('#json', JSON.stringify(renamed));
      await Promise.all([page.waitForNavigation(), page.click('button:has-text("Import")')]);
      const preview = await page.textContent('#import-preview') ?? '';
      assert.match(preview, /Dry run: nothing is imported yet/);
      assert.match(preview, /creates 1 exam and overwrites 1 existing exam/);
      assert.match(preview, /Quiz 2 \(imported\)/);
      assert.match(preview, new RegExp(`“Final exam \\(imported\\)” replaces “${original.title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}”`));
      assert.equal(await titleNow(), original.title, 'the dry run wrote nothing');
      await assertNoAxeViolations(page, 'import preview');

      await Promise.all([page.waitForNavigation(), page.click('button:has-text("Import these exams")')]);
      assert.match(await page.textContent('#overwrite-error') ?? '', /tick “Overwrite”/);
      assert.equal(await titleNow(), original.title, 'not overwritten without the tick');
      await assertNoAxeViolations(page, 'overwrite not ticked');

      await page.check('#overwrite');
      await Promise.all([page.waitForNavigation(), page.click('button:has-text("Import these exams")')]);
      assert.match(await page.textContent('.notice-ok') ?? '', /1 created, 1 updated/);
      assert.equal(await titleNow(), 'Final exam (imported)');
    });
  });
});
