import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { createExamStore } from '../../../src/exams/store.js';
import type { ExamSettingsDocument } from '../../../src/exams/settings/document.js';
import { candidateFieldsOf } from '../../helpers/proctoring.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { withBrowser } from '../../helpers/browser.js';
import { launch } from '../../helpers/lti-flow.js';
import { axeViolations, describeViolations } from '../../helpers/axe.js';
import { launchFromCourse } from '../../helpers/demo-course.js';

const QUIZ_URL = 'https://moodle.example.edu/mod/quiz/view.php?id=314';

describe('in a browser: the exam settings view', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
    // A link nobody has configured: the first instructor launch opens its settings.
    app.tool.sandbox!.demoLms.course.links.push({ id: 'exam-browser', title: 'Browser exam' }, { id: 'exam-axe', title: 'Accessibility exam' }, { id: 'exam-keyboard', title: 'Keyboard exam' }, { id: 'exam-availability', title: 'Timed exam' });
  });
  after(async () => {
    await app.close();
  });

  async function openSettingsFromLaunch(context: BrowserContext, linkId = 'exam-browser'): Promise<Page> {
    const page = await launchFromCourse(context, { baseUrl: app.baseUrl, button: `resource:instructor:${linkId}` });
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
      await page.waitForFunction(() => /matches the launch URL/.test(document.getElementById('pages-check')?.textContent ?? ''));

      // The live check runs on the server: a catastrophic pattern cannot freeze the tab, a lookahead is named.
      const startPattern = await page.getByLabel('Exam start page pattern').inputValue();
      await page.getByLabel('Exam start page pattern').fill('^https://moodle\\.example\\.edu/(a+)+$');
      await page.getByLabel('Exam launch URL').fill(`https://moodle.example.edu/${'a'.repeat(40)}!`);
      await page.getByLabel('Exam launch URL').dispatchEvent('change');
      await page.waitForFunction(() => /does not match the launch URL/.test(document.getElementById('f-exam_start-error')?.textContent ?? ''));
      await page.getByLabel('Exam start page pattern').fill('^https://moodle(?=\\.)');
      await page.getByLabel('Exam start page pattern').dispatchEvent('change');
      await page.waitForFunction(() => /lookahead `\(\?=`/.test(document.getElementById('f-exam_start-error')?.textContent ?? ''));
      await page.getByLabel('Exam launch URL').fill(QUIZ_URL);
      await page.getByLabel('Exam start page pattern').fill(startPattern);
      await page.getByLabel('Exam start page pattern').dispatchEvent('change');
      await page.waitForFunction(() => /matches the launch URL/.test(document.getElementById('pages-check')?.textContent ?? ''));

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
      await page.getByLabel('Link validity (minutes)').fill('five hours');
      await page.getByLabel('Allowed macOS apps').fill('com.apple.calculator\ncom.example.notes');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.locator('#error-summary').waitFor({ state: 'visible' });
      assert.match(await page.locator('#f-expire-error').textContent() ?? '', /whole minutes/);
      assert.equal(await page.getByLabel('Link validity (minutes)').getAttribute('aria-invalid'), 'true');
      assert.equal(await page.getByLabel('Link validity (minutes)').inputValue(), 'five hours');
      assert.equal(await page.getByLabel('Quiz address').inputValue(), QUIZ_URL);
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'error-summary', 'focus moves to the summary');
      await page.locator('#error-summary a').first().click();
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'f-expire', 'the summary links to the field');

      await page.getByLabel('Link validity (minutes)').fill('120');
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
      assert.equal(await page.getByLabel('Link validity (minutes)').inputValue(), '120');
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
      const expected = candidateFieldsOf(saved);
      for (const [field, value] of Object.entries(expected)) assert.deepEqual(body[field], value, field);
      assert.equal(body.launch_url, QUIZ_URL);
      assert.equal(body.expire, 7200);
    });
  });

  it('opening and closing times: a time the clocks skip is refused beside its field, a valid window saves; no axe violations', async (t) => {
    await withBrowser(t, async (context) => {
      const page = await openSettingsFromLaunch(context, 'exam-availability');
      await page.getByLabel('The quiz is in').selectOption('moodle');
      await page.getByLabel('Quiz address').fill(QUIZ_URL);
      await page.getByRole('button', { name: 'Fill in the pages' }).click();
      await page.waitForFunction(() => (document.getElementById('f-launch_url') as HTMLInputElement).value.includes('view.php?id=314'));
      await page.getByLabel('Time zone').selectOption('Europe/Berlin');
      await page.getByLabel('Opens').fill('2027-03-28T02:30');
      await page.getByRole('button', { name: 'Save settings' }).click();
      const error = page.locator('#f-availability-opens_at-error');
      await error.waitFor({ state: 'visible' });
      assert.match(await error.textContent() ?? '', /2027-03-28 02:30 does not exist in Europe\/Berlin/);
      assert.equal(await page.getByLabel('Opens').getAttribute('aria-invalid'), 'true');
      const violations = await axeViolations(page);
      assert.deepEqual(violations, [], describeViolations(violations));

      await page.getByLabel('Opens').fill('2027-03-28T09:00');
      await page.getByLabel('Closes').fill('2027-03-28T11:00');
      await page.getByLabel('Practice exam').check();
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.waitForFunction(() => /Saved/.test(document.getElementById('save-status')?.textContent ?? ''));
      assert.equal(await error.isHidden(), true);
      const { rows } = await app.db.query<{ opens_at: Date; closes_at: Date; practice: boolean }>("SELECT opens_at, closes_at, practice FROM exams WHERE resource_link_id = 'exam-availability'");
      assert.equal(new Date(rows[0]!.opens_at).toISOString(), '2027-03-28T07:00:00.000Z', '09:00 summer time in Berlin');
      assert.equal(new Date(rows[0]!.closes_at).toISOString(), '2027-03-28T09:00:00.000Z');
      assert.equal(rows[0]!.practice, true);
    });
  });

  it('keyboard only: focus order follows the page, choices and presets work from the keyboard, a refused save marks each wrong field', async (t) => {
    await withBrowser(t, async (context) => {
      const page = await openSettingsFromLaunch(context, 'exam-keyboard');
      assert.deepEqual(await page.evaluate(() => [...document.querySelectorAll('[tabindex]')].map((e) => e.getAttribute('tabindex')).filter((v) => Number(v) > 0)), [], 'no positive tabindex');

      // Tab from the top of the page to the save button: every stop comes after the previous one in the page.
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      const stops: string[] = [];
      for (let i = 0; i < 400; i += 1) {
        await page.keyboard.press('Tab');
        const step = await page.evaluate(() => {
          const state = window as unknown as { previousFocus?: Element };
          const active = document.activeElement;
          // Tab walks the parts of a date-time field (day, month, year, time) inside the one control.
          const sameControl = active === state.previousFocus && active instanceof HTMLInputElement && active.type === 'datetime-local';
          const forward = !state.previousFocus || !active || sameControl || Boolean(state.previousFocus.compareDocumentPosition(active) & Node.DOCUMENT_POSITION_FOLLOWING);
          if (active) state.previousFocus = active;
          return { id: active?.id || active?.getAttribute('data-preset') || active?.tagName || '', forward };
        });
        assert.ok(step.forward, `focus went backwards to ${step.id} after ${stops.at(-1)}`);
        stops.push(step.id);
        if (step.id === 'save') break;
      }
      assert.equal(stops.at(-1), 'save', 'the save button is reached by Tab');
      for (const id of ['f-tool-lms_preset', 'f-tool-quiz_url', 'derive-pages', 'f-launch_url', 'strict-lockdown', 'f-exam_settings-record_video', 'f-exam_settings-allowed_macos_apps', 'f-behavior_settings-frame_metrics-keystrokes', 'f-breaks_enabled', 'f-expire', 'f-availability-opens_at', 'f-availability-closes_at', 'f-availability-time_zone', 'f-availability-practice']) {
        assert.ok(stops.includes(id), `${id} is reachable by Tab`);
      }
      assert.ok(stops.indexOf('f-tool-quiz_url') < stops.indexOf('strict-lockdown') && stops.indexOf('strict-lockdown') < stops.indexOf('f-exam_settings-record_video'), 'sections in reading order');

      // Arrow keys in a radio group choose an option; what it needs switches on, as with the mouse.
      for (const name of ['close_tabs', 'one_screen']) await page.locator(`input[name="exam_settings.${name}"]`).setChecked(false);
      await page.locator('input[name="exam_settings.full_screen"][value="0"]').check();
      await page.locator('input[name="exam_settings.full_screen"][value="0"]').focus();
      await page.keyboard.press('ArrowRight');
      assert.equal(await page.locator('input[name="exam_settings.full_screen"][value="1"]').isChecked(), true);
      assert.equal(await page.getByLabel('Close other tabs').isChecked(), true);
      assert.equal(await page.getByLabel('One screen only').isChecked(), true);
      // Space toggles a checkbox; Enter presses a preset button.
      await page.locator('input[name="exam_settings.verify_audio"]').setChecked(false);
      await page.locator('input[name="exam_settings.record_audio"]').setChecked(false);
      await page.getByLabel('Verify microphone').focus();
      await page.keyboard.press('Space');
      assert.equal(await page.getByLabel('Record audio').isChecked(), true);
      await page.getByRole('button', { name: 'Use “Record only”' }).focus();
      await page.keyboard.press('Enter');
      assert.equal(await page.locator('input[name="exam_settings.full_screen"][value="0"]').isChecked(), true);
      await page.waitForFunction(() => /Record only/.test(document.getElementById('preset-status')?.textContent ?? ''));

      // Several wrong fields: each is marked beside itself, everything typed stays, the summary links to each.
      const apps = Array.from({ length: 11 }, (_, i) => `com.example.app${i}`).join('\n');
      await page.getByLabel('Quiz address').fill('https://moodle.example.edu/mod/quiz/view.php?id=5');
      await page.getByRole('button', { name: 'Fill in the pages' }).click();
      await page.waitForFunction(() => (document.getElementById('f-launch_url') as HTMLInputElement).value.includes('id=5'));
      await page.getByLabel('Allowed macOS apps').fill(apps);
      await page.getByLabel('Link validity (minutes)').fill('99999');
      await page.getByLabel('To this address:').check();
      await page.getByLabel('Address after the exam').fill('not a web address');
      await page.getByRole('button', { name: 'Save settings' }).focus();
      await page.keyboard.press('Enter');
      await page.locator('#error-summary').waitFor({ state: 'visible' });
      const marked = ['f-expire', 'f-exam_settings-allowed_macos_apps', 'f-tool-redirect_url'];
      for (const id of marked) {
        assert.equal(await page.locator(`#${id}`).getAttribute('aria-invalid'), 'true', id);
        assert.ok(((await page.locator(`#${id}-error`).textContent()) ?? '').length > 10, `${id}: its own message`);
        assert.match((await page.locator(`#${id}`).getAttribute('aria-describedby')) ?? '', new RegExp(`${id}-error`), `${id}: the message is tied to the field`);
      }
      assert.equal(await page.getByLabel('Allowed macOS apps').inputValue(), apps);
      assert.equal(await page.getByLabel('Link validity (minutes)').inputValue(), '99999');
      assert.equal(await page.getByLabel('Address after the exam').inputValue(), 'not a web address');
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'error-summary');
      const targets = await page.locator('#error-summary a').evaluateAll((links) => links.map((a) => a.getAttribute('href')));
      for (const id of marked) assert.ok(targets.includes(`#${id}`), `the summary links to ${id}`);
      const link = page.locator('#error-summary a[href="#f-tool-redirect_url"]');
      await link.focus();
      await page.keyboard.press('Enter');
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'f-tool-redirect_url', 'Enter on a summary link moves focus to the field');
      const lms = app.tool.sandbox!.demoLms;
      const exam = await createExamStore(app.db).find({ issuer: lms.registration.issuer, clientId: lms.registration.clientId, deploymentId: '1', contextId: lms.course.id, resourceLinkId: 'exam-keyboard' });
      assert.equal(exam?.settings, null, 'nothing was saved');

      // An impossible combination is marked as it is chosen, and a save refuses it together with the other wrong fields.
      await page.getByLabel('Allowed macOS apps').fill('com.example.app1');
      await page.getByLabel('Back to the course in the LMS').check();
      await page.locator('input[name="exam_settings.verify_id"][value="2"]').check();
      await page.getByLabel('Allow mobile devices').check();
      assert.equal(await page.locator('#f-exam_settings-mobile').getAttribute('aria-invalid'), 'true', 'marked while editing');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.waitForFunction(() => /Nothing was saved: \d+ problem/.test(document.getElementById('save-status')?.textContent ?? ''));
      for (const id of ['f-exam_settings-mobile', 'f-expire']) assert.equal(await page.locator(`#${id}`).getAttribute('aria-invalid'), 'true', id);
      assert.match((await page.locator('#f-exam_settings-mobile-error').textContent()) ?? '', /ID|verify/i);
      const again = await createExamStore(app.db).get(exam!.id);
      assert.equal(again?.settings, null, 'the impossible combination was not saved');
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

      page = await launchFromCourse(context, { baseUrl: app.baseUrl, button: 'resource:instructor:exam-midterm' });
      await page.waitForURL(/\/lti\//, { timeout: 20_000 });
      await page.waitForLoadState('load');
      await check(page, 'instructor hub');

      page = await launchFromCourse(context, { baseUrl: app.baseUrl, button: 'deep-linking:instructor' });
      await page.getByRole('button', { name: 'Add the exam to the course' }).waitFor({ timeout: 20_000 });
      await check(page, 'content picker');
      await page.getByLabel('Quiz address').fill('https://moodle.example.edu/not-a-quiz');
      await page.getByRole('button', { name: 'Add the exam to the course' }).click();
      await page.locator('#error-summary').waitFor();
      await check(page, 'content picker with errors');

      app.tool.sandbox!.demoLms.course.links.push({ id: 'exam-unready', title: 'Not ready yet' });
      page = await launchFromCourse(context, { baseUrl: app.baseUrl, button: 'resource:student:exam-unready' });
      await page.waitForURL(/\/lti\/launch/, { timeout: 20_000 });
      await page.waitForLoadState('load');
      assert.match(await page.content(), /not ready/i);
      await check(page, 'student page: exam not ready');
    });
  });
});
