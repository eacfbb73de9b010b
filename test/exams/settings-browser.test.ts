import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { createExamStore } from '../../src/exams/store.js';
import { candidateLaunchFields, type ExamSettingsDocument } from '../../src/exams/settings/document.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { withBrowser } from '../helpers/browser.js';
import { launch } from '../helpers/lti-flow.js';
import { axeViolations, describeViolations } from './axe.js';

const QUIZ_URL = 'https://moodle.example.edu/mod/quiz/view.php?id=314';

describe('in a browser: the exam settings view', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
    // A link nobody has configured: the first instructor launch opens its settings.
    app.tool.sandbox!.demoLms.course.links.push({ id: 'exam-browser', title: 'Browser exam' }, { id: 'exam-axe', title: 'Accessibility exam' });
  });
  after(async () => {
    await app.close();
  });

  /** Clicks a launch button of the demo LMS course page; the course opens "new window" launches in a new tab. */
  async function launchFromCourse(context: BrowserContext, button: string): Promise<Page> {
    const course = await context.newPage();
    await course.goto(`${app.baseUrl}/sandbox/lms/?presentation=window&flavor=moodle`);
    const popupPromise = context.waitForEvent('page', { timeout: 5000 }).catch(() => undefined);
    await course.locator(`button[value="${button}"]`).click();
    const popup = await popupPromise;
    if (popup) await course.close();
    return popup ?? course;
  }

  async function openSettingsFromLaunch(context: BrowserContext, linkId = 'exam-browser'): Promise<Page> {
    const page = await launchFromCourse(context, `resource:instructor:${linkId}`);
    await page.waitForURL(/\/lti\/exams\/[0-9a-f-]+\/settings/, { timeout: 20_000 }).catch(async (error: unknown) => {
      throw new Error(`not on the settings page: ${page.url()}\n${(await page.content()).slice(0, 1500)}`, { cause: error });
    });
    await page.locator('#settings-form').waitFor();
    return page;
  }

  it('Moodle preset, Strict lockdown, prerequisites, a refused save that keeps everything, save, reload, student launch', async (t) => {
    await withBrowser(t, async (context) => {
      const page = await openSettingsFromLaunch(context);
      const pageErrors: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(error.message));
      page.on('console', (message) => {
        // The refused save's 422 is logged by Chromium as a failed resource: expected.
        if (message.type() === 'error' && !/status of 422/.test(message.text())) pageErrors.push(message.text());
      });
      assert.match(await page.locator('#not-configured').textContent() ?? '', /not set up yet/);

      await page.getByLabel('The quiz is in').selectOption('moodle');
      await page.getByLabel('Quiz address').fill(QUIZ_URL);
      await page.getByRole('button', { name: 'Fill in the pages' }).click();
      await page.waitForFunction(() => (document.getElementById('f-launch_url') as HTMLInputElement).value.includes('view.php?id=314'));
      assert.equal(await page.getByLabel('Exam launch URL').inputValue(), QUIZ_URL);
      assert.match(await page.getByLabel('Exam end page pattern').inputValue(), /review\\\.php/);
      assert.match(await page.locator('#pages-check').textContent() ?? '', /matches the launch URL/);

      // Start from everything off for the lockdown members, then one click on the preset.
      for (const name of ['close_tabs', 'one_screen']) await page.locator(`input[name="exam_settings.${name}"]`).setChecked(false);
      await page.locator('input[name="exam_settings.tabs"][value="0"]').check();
      await page.getByRole('button', { name: 'Use “Strict lockdown”' }).click();
      assert.equal(await page.locator('input[name="exam_settings.full_screen"][value="3"]').isChecked(), true);
      for (const name of ['close_tabs', 'one_screen', 'record_video', 'verify_video']) {
        assert.equal(await page.locator(`input[name="exam_settings.${name}"]`).isChecked(), true, name);
      }
      assert.equal(await page.locator('input[name="exam_settings.tabs"][value="1"]').isChecked(), true);
      assert.match(await page.locator('#f-exam_settings-close_tabs-note').textContent() ?? '', /Full-screen removal/);
      await page.waitForFunction(() => /Strict lockdown.*Close other tabs/.test(document.getElementById('preset-status')?.textContent ?? ''));

      // A choice that needs others switches them on, and says why.
      await page.locator('input[name="exam_settings.record_audio"]').setChecked(false);
      await page.locator('input[name="exam_settings.verify_audio"]').setChecked(false);
      await page.getByLabel('Verify microphone').check();
      assert.equal(await page.getByLabel('Record audio').isChecked(), true);
      assert.match(await page.locator('#f-exam_settings-record_audio-note').textContent() ?? '', /Verify microphone/);

      // A refused save keeps everything typed and marks the wrong field.
      await page.getByLabel('Link validity (seconds)').fill('five hours');
      await page.getByLabel('Allowed macOS apps').fill('com.apple.calculator\ncom.example.notes');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.locator('#error-summary').waitFor({ state: 'visible' });
      assert.match(await page.locator('#f-expire-error').textContent() ?? '', /whole number/);
      assert.equal(await page.getByLabel('Link validity (seconds)').getAttribute('aria-invalid'), 'true');
      assert.equal(await page.getByLabel('Link validity (seconds)').inputValue(), 'five hours');
      assert.equal(await page.getByLabel('Quiz address').inputValue(), QUIZ_URL);
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'error-summary', 'focus moves to the summary');
      await page.locator('#error-summary a').first().click();
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'f-expire', 'the summary links to the field');

      await page.getByLabel('Link validity (seconds)').fill('7200');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.waitForFunction(() => /Saved/.test(document.getElementById('save-status')?.textContent ?? ''));
      assert.equal(await page.locator('#error-summary').isHidden(), true);

      await page.reload();
      await page.locator('#settings-form').waitFor();
      assert.equal(await page.getByLabel('Exam launch URL').inputValue(), QUIZ_URL);
      assert.equal(await page.getByLabel('The quiz is in').inputValue(), 'moodle');
      assert.equal(await page.locator('input[name="exam_settings.full_screen"][value="3"]').isChecked(), true);
      assert.equal(await page.getByLabel('Close other tabs').isChecked(), true);
      assert.equal(await page.getByLabel('Verify microphone').isChecked(), true);
      assert.equal(await page.getByLabel('Link validity (seconds)').inputValue(), '7200');
      assert.equal(await page.getByLabel('Allowed macOS apps').inputValue(), 'com.apple.calculator\ncom.example.notes');
      assert.equal(await page.locator('#not-configured').count(), 0);
      assert.deepEqual(pageErrors, []);

      const lms = app.tool.sandbox!.demoLms;
      const exam = await createExamStore(app.db).find({
        issuer: lms.registration.issuer,
        clientId: lms.registration.clientId,
        deploymentId: '1',
        contextId: lms.course.id,
        resourceLinkId: 'exam-browser',
      });
      const saved = exam?.settings as ExamSettingsDocument | undefined;
      assert.ok(saved);
      assert.equal(saved.tool?.security_preset, 'strict-lockdown');
      assert.deepEqual(saved.exam_settings.allowed_macos_apps, ['com.apple.calculator', 'com.example.notes']);

      const emulator = app.tool.sandbox!.emulator;
      const count = emulator.received.length;
      const student = await launch(app, { user: 'student', linkId: 'exam-browser', flavor: 'moodle', presentation: 'window' });
      assert.equal(student.response.status, 302, student.response.text.slice(0, 300));
      const call = emulator.received.slice(count).find((r) => r.endpoint === '/v2/candidate/launch');
      assert.ok(call);
      const body = call.body as Record<string, unknown>;
      const expected = candidateLaunchFields(saved);
      for (const [field, value] of Object.entries(expected)) assert.deepEqual(body[field], value, field);
      assert.equal(body.launch_url, QUIZ_URL);
      assert.equal(body.expire, 7200);
    });
  });

  it('axe-core: no WCAG 2.1 AA violations on the settings view, its error state, the hub, the content picker and student pages', async (t) => {
    await withBrowser(t, async (context) => {
      const check = async (page: Page, what: string) => {
        const violations = await axeViolations(page);
        assert.deepEqual(violations, [], `${what}:\n${describeViolations(violations)}`);
      };
      let page = await openSettingsFromLaunch(context, 'exam-axe');
      await check(page, 'settings view');
      await page.getByLabel('Exam start page pattern').fill('^(broken');
      await page.getByLabel('Exam start page pattern').dispatchEvent('change');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.locator('#error-summary').waitFor({ state: 'visible' });
      await check(page, 'settings view with errors');

      page = await launchFromCourse(context, 'resource:instructor:exam-midterm');
      await page.waitForURL(/\/lti\//, { timeout: 20_000 });
      await page.waitForLoadState('load');
      await check(page, 'instructor hub');

      page = await launchFromCourse(context, 'deep-linking:instructor');
      await page.getByRole('button', { name: 'Add the exam to the course' }).waitFor({ timeout: 20_000 });
      await check(page, 'content picker');
      await page.getByLabel('Quiz address').fill('https://moodle.example.edu/not-a-quiz');
      await page.getByRole('button', { name: 'Add the exam to the course' }).click();
      await page.locator('#error-summary').waitFor();
      await check(page, 'content picker with errors');

      app.tool.sandbox!.demoLms.course.links.push({ id: 'exam-unready', title: 'Not ready yet' });
      page = await launchFromCourse(context, 'resource:student:exam-unready');
      await page.waitForURL(/\/lti\/launch/, { timeout: 20_000 });
      await page.waitForLoadState('load');
      assert.match(await page.content(), /not ready/i);
      await check(page, 'student page: exam not ready');
    });
  });
});
