import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { axeViolations, describeViolations, horizontalOverflow } from '../../helpers/axe.js';
import { withBrowser } from '../../helpers/browser.js';
import { openDemoExamSettings } from '../../helpers/settings-page.js';
import { loadCatalog, message } from '../../helpers/catalogs.js';

const catalog = (lng: string) => loadCatalog(lng, 'settings');

/** The settings page of the demo exam, launched from the LMS in `locale`, opened in Chromium. */
async function openInBrowser(app: TestApp, page: Page, locale: string): Promise<void> {
  const { exam, instructor } = await openDemoExamSettings(app, { locale });
  // The page answers a POST carrying the session token, as the launch's continue page does.
  await page.setContent(`<form method="post" action="${app.baseUrl}/lti/exams/${exam.id}/settings"><input type="hidden" name="ltik" value="${instructor.ltik}"></form>`);
  await Promise.all([page.waitForURL(/\/lti\/exams\/.+\/settings$/, { timeout: 20_000 }), page.locator('form').evaluate((form: HTMLFormElement) => form.submit())]);
  await page.locator('#settings-form').waitFor({ timeout: 20_000 });
}

describe('in a browser: the exam settings page in Spanish, Arabic and Chinese', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app.close();
  });

  for (const [lng, dir] of [
    ['es', 'ltr'],
    ['ar', 'rtl'],
    ['zh-Hans', 'ltr'],
  ] as const) {
    it(`${lng}: lang and dir, labels and help, a rule message from the form script, dates, axe clean`, async (t) => {
      const words = catalog(lng);
      await withBrowser(t, async (context) => {
        const page = await context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (error) => errors.push(error.message));
        await openInBrowser(app, page, lng);

        assert.equal(await page.locator('html').getAttribute('lang'), lng);
        assert.equal(await page.locator('html').getAttribute('dir'), dir);
        assert.equal((await page.locator('#exam-settings-heading').textContent())?.trim(), message(words, 'page.examSettings.heading'));
        assert.equal((await page.locator('label[for="f-exam_settings-record_video"]').textContent())?.trim(), message(words, 'fields.record_video.label'));
        assert.equal((await page.locator('#f-exam_settings-record_video-help').textContent())?.trim(), message(words, 'fields.record_video.help'));
        assert.equal((await page.locator('#group-lockdown > legend').textContent())?.trim(), message(words, 'groups.lockdown.legend'));
        assert.equal((await page.locator('#preset-strict-lockdown-title').textContent())?.trim(), message(words, 'presets.security.strict-lockdown.name'));
        assert.equal((await page.locator('#save').textContent())?.trim(), message(words, 'page.save'));

        // A prerequisite from the form script: a desk scan switches on the webcam checks, and says why in this language.
        // (Each language's run starts from what the previous one saved: desk scan off first.)
        await page.locator('input[name="exam_settings.record_desk"][value="0"]').check();
        for (const name of ['record_video', 'verify_video']) await page.locator(`input[name="exam_settings.${name}"]`).setChecked(false);
        await page.locator('input[name="exam_settings.record_desk"][value="1"]').check();
        const why = message(words, 'script.switchedOnBecause', { setting: message(words, 'fields.record_desk.label') });
        await page.waitForFunction((text) => document.getElementById('f-exam_settings-verify_video-note')?.textContent === text, why, { timeout: 10_000 });
        assert.equal(await page.locator('input[name="exam_settings.record_video"]').isChecked(), true);
        await page.waitForFunction((text) => (document.getElementById('preset-status')?.textContent ?? '').includes(text), message(words, 'rules.record_desk_requires_video'), { timeout: 10_000 });

        // Saved: "Recent changes" rebuilt from the answer, its time in this locale.
        await page.locator('#save').click();
        await page.waitForFunction(() => (document.getElementById('history-list')?.children.length ?? 0) > 0, undefined, { timeout: 15_000 });
        const time = page.locator('#history-list > li time').first();
        const at = await time.getAttribute('datetime');
        assert.ok(at);
        const expected = new Intl.DateTimeFormat(lng, { dateStyle: 'medium', timeStyle: 'long', timeZone: 'UTC' }).format(new Date(at));
        assert.equal((await time.textContent())?.trim(), expected);
        const firstChange = (await page.locator('#history-list > li li').first().textContent()) ?? '';
        assert.doesNotMatch(firstChange, /\b(on|off|not set)\b/, `a change in ${lng}, not English: ${firstChange}`);

        const violations = await axeViolations(page);
        assert.deepEqual(violations, [], describeViolations(violations));

        if (dir === 'rtl') {
          // Mirrored: a checkbox stands to the right of its label, the heading starts at the right edge.
          const box = await page.locator('#f-exam_settings-record_video').boundingBox();
          const label = await page.locator('label[for="f-exam_settings-record_video"]').boundingBox();
          assert.ok(box && label && box.x > label.x, `checkbox right of its label: ${JSON.stringify({ box, label })}`);
          for (const width of [1280, 390]) {
            await page.setViewportSize({ width, height: 900 });
            assert.equal(await horizontalOverflow(page), 0, `no horizontal scrolling at ${width} px`);
          }
        }
        assert.deepEqual(errors, []);
      });
    });
  }

  it('without a language the page stays English', async () => {
    const { exam, instructor } = await openDemoExamSettings(app);
    const page = await instructor.agent.post(`/lti/exams/${exam.id}/settings`).type('form').send({ ltik: instructor.ltik });
    assert.match(page.text, /<html lang="en" dir="ltr">/);
    assert.match(page.text, />Record video</);
  });
});
