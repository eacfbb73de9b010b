// In Chromium, from the hub in English, Spanish and Arabic: a student chosen by name, the editor, a refused save
// with its message, a saved accommodation in the hub's list; lang and dir, no horizontal scrolling on a laptop or
// a phone, no axe violations on any of these pages.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { assertAnsweredPagesAccessible, axeViolations, describeViolations, horizontalOverflow } from '../../helpers/axe.js';
import { withBrowser } from '../../helpers/browser.js';
import { demoExam, derived, launchAs, saveExamSettings } from '../../helpers/launches.js';
import { createAccommodationStore } from '../../../src/exams/accommodations/store.js';
import { invalidateReadCaches } from '../../../src/db/read-cache.js';
import { loadCatalog, message } from '../../helpers/catalogs.js';


const STUDENT_NAME = 'María José Núñez';

async function checkPage(page: Page, lng: string, dir: string, what: string): Promise<void> {
  assert.equal(await page.locator('html').getAttribute('lang'), lng, what);
  assert.equal(await page.locator('html').getAttribute('dir'), dir, what);
  const violations = await axeViolations(page);
  assert.deepEqual(violations, [], `${what}: ${describeViolations(violations)}`);
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    assert.equal(await horizontalOverflow(page), 0, `${what}: no horizontal scrolling at ${width} px`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

describe('in a browser: accommodations in English, Spanish and Arabic', () => {
  let app: TestApp;
  let examId: string;
  before(async () => {
    app = await startTestApp();
    examId = (await demoExam(app)).id;
  });
  after(async () => {
    await app.close();
  });

  for (const [lng, dir] of [
    ['en', 'ltr'],
    ['es', 'ltr'],
    ['ar', 'rtl'],
  ] as const) {
    it(`${lng}: choose a student by name, a refused save says why, a saved one is listed; ${dir}, fits, axe clean`, async (t) => {
      await app.db.query('DELETE FROM exam_accommodations');
    invalidateReadCaches(); // written with SQL: this process's cached exam reads see it at once
      invalidateReadCaches(); // written with SQL: this process's cached exam reads see it at once
      const words = loadCatalog(lng, 'accommodations');
      const hubLaunch = await launchAs(app, { user: 'instructor', presentation: 'window', locale: lng });
      assert.equal(hubLaunch.response.status, 200);
      await withBrowser(t, async (context) => {
        const page = await context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (error) => errors.push(error.message));
        await page.setContent(`<form method="post" action="${app.baseUrl}/lti/hub/${examId}"><input type="hidden" name="ltik" value="${hubLaunch.ltik}"></form>`);
        await Promise.all([page.waitForURL(/\/lti\/hub\/[^/]+$/, { timeout: 20_000 }), page.locator('form').evaluate((form: HTMLFormElement) => form.submit())]);
        await page.locator('[data-accommodations]').waitFor({ timeout: 20_000 });
        assert.equal((await page.locator('#accommodations-heading').textContent())?.trim(), message(words, 'hub.heading'));
        await checkPage(page, lng, dir, 'the hub');

        await page.getByLabel(message(words, 'hub.chooseStudent'), { exact: true }).selectOption({ label: STUDENT_NAME });
        await Promise.all([page.waitForURL(/accommodations\/edit$/), page.getByRole('button', { name: message(words, 'hub.add') }).click()]);
        assert.equal((await page.locator('h1').textContent())?.trim(), message(words, 'editor.title', { student: STUDENT_NAME }));
        await checkPage(page, lng, dir, 'the editor');

        // A refused save: the editor again, the message in this language next to nothing lost.
        await page.locator('#breaks-custom').check();
        await page.locator('#break-number').fill('3');
        await page.locator('#break-duration').evaluate((input: HTMLInputElement) => {
          input.removeAttribute('max');
          input.value = '45';
        });
        await Promise.all([page.waitForURL(/accommodations\/save$/), page.locator('[data-save-accommodation]').click()]);
        const error = page.locator('[data-error-path="break_settings.duration"]');
        assert.equal(await error.count(), 1);
        assert.equal((await page.locator('[data-errors] strong').textContent())?.trim(), message(words, 'editor.notSaved'));
        if (lng !== 'en') assert.doesNotMatch((await error.textContent()) ?? '', /Break duration/, 'the rule message is translated');
        assert.equal(await page.locator('#break-number').inputValue(), '3', 'what was entered is kept');
        await checkPage(page, lng, dir, 'the refused save');

        await page.locator('#break-duration').fill('20');
        await page.locator('#o-whiteboard').selectOption('on');
        await Promise.all([page.waitForEvent('load'), page.locator('[data-save-accommodation]').click()]);
        assert.equal((await page.locator('[data-notice]').textContent())?.trim(), message(words, 'notice.saved', { student: STUDENT_NAME }));
        const row = page.locator('tr[data-accommodation]');
        assert.equal(await row.count(), 1);
        assert.equal((await row.locator('[data-name]').textContent())?.trim(), STUDENT_NAME);
        await checkPage(page, lng, dir, 'the hub after saving');
        assert.deepEqual(errors, []);
      });
    });
  }

  it('ar: the student\'s pages of an exemption and of an accommodation that needs attention, in Arabic, right to left, fit and axe clean', async (t) => {
    const exam = await demoExam(app);
    const settings = exam.settings!;
    const student = (await derived(app)).userId(app.tool.sandbox!.demoLms.registration.issuer, '5');
    const store = createAccommodationStore(app.db);
    const words = loadCatalog('ar', 'student');
    const common = loadCatalog('ar', 'common');

    assert.equal((await store.set(examId, student, { exempt: true }, {})).ok, true);
    const exempt = await launchAs(app, { user: 'student', presentation: 'iframe', locale: 'ar' });
    assert.equal(exempt.response.status, 200);
    assert.match(exempt.response.text, /<html lang="ar" dir="rtl">/);
    assert.ok(exempt.response.text.includes(message(words, 'start.exemptNote')));

    const examSettings = settings.exam_settings as Record<string, unknown>;
    await saveExamSettings(app, examId, { ...settings, exam_settings: { ...examSettings, record_audio: true, verify_audio: false } });
    assert.equal((await store.set(examId, student, { exam_settings: { verify_audio: true } }, {})).ok, true);
    await saveExamSettings(app, examId, { ...settings, exam_settings: { ...examSettings, record_audio: false, verify_audio: false } });
    const attention = await launchAs(app, { user: 'student', presentation: 'window', locale: 'ar' });
    assert.equal(attention.response.status, 409);
    assert.match(attention.response.text, /<html lang="ar" dir="rtl">/);
    assert.ok(attention.response.text.includes(message(common, 'errors.accommodationNeedsAttention.message')));
    await saveExamSettings(app, examId, settings);
    await app.db.query('DELETE FROM exam_accommodations');
    invalidateReadCaches(); // written with SQL: this process's cached exam reads see it at once

    await withBrowser(t, async (context) => {
      await assertAnsweredPagesAccessible(await context.newPage(), app.baseUrl, [
        ['exempt-start', exempt.response.text],
        ['accommodation-needs-attention', attention.response.text],
      ]);
    });
  });
});
