import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createExamStore } from '../../../src/exams/store.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { assertNoAxeViolations } from '../../helpers/axe.js';
import { withBrowser } from '../../helpers/browser.js';
import { launchFromCourse, untilSession } from '../../helpers/demo-course.js';

/** A copied exam in the demo course: the settings of the demo exam, still marked "check the quiz address". */
describe('in a browser: a copied exam asks the instructor to check the quiz address', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
    const lms = app.tool.sandbox!.demoLms;
    lms.course.links.push({ id: 'exam-copied', title: 'Copied exam' }, { id: 'exam-copied-2', title: 'Copied exam 2' });
    const exams = createExamStore(app.db);
    const key = { issuer: lms.registration.issuer, clientId: lms.registration.clientId, deploymentId: '1', contextId: lms.course.id };
    const source = await exams.find({ ...key, resourceLinkId: lms.course.exam.id });
    assert.ok(source?.settings);
    for (const [link, title] of [['exam-copied', 'Copied exam'], ['exam-copied-2', 'Copied exam 2']] as const) {
      const copy = await exams.ensure({ ...key, resourceLinkId: link }, title);
      await exams.saveSettings(copy.id, source.settings);
      await exams.setQuizAddressCheck(copy.id, true);
    }
  });
  after(async () => {
    await app.close();
  });

  it("hub and settings page show the mark (axe clean); one click uses this course's quiz; the student then reaches the proctoring service", async (t) => {
    await withBrowser(t, async (context) => {
      const student = await launchFromCourse(context, { baseUrl: app.baseUrl, button: 'resource:student:exam-copied' });
      await student.getByRole('heading', { name: 'This exam is not ready yet' }).waitFor({ timeout: 20_000 });
      assert.equal(await student.getByText(/incident id/i).count(), 0);
      await assertNoAxeViolations(student, 'the not-ready page');

      const hub = await launchFromCourse(context, { baseUrl: app.baseUrl, button: 'resource:instructor:exam-copied' });
      await hub.locator('#quiz-address-check').waitFor({ timeout: 20_000 });
      assert.match(String(await hub.locator('[data-quiz-address-check]').textContent()), /Check the quiz address/);
      await assertNoAxeViolations(hub, 'the hub');

      await hub.getByRole('button', { name: 'Edit settings' }).click();
      await hub.locator('#settings-form').waitFor({ timeout: 20_000 });
      assert.equal(await hub.getByRole('heading', { name: 'Check the quiz address' }).count(), 1);
      await assertNoAxeViolations(hub, 'the settings page');
      assert.equal(await hub.getByRole('button', { name: 'This is this course’s quiz address' }).count(), 0, "never the original course's quiz");
      await hub.getByRole('button', { name: 'Use this course’s quiz address' }).click();
      await hub.locator('#settings-form').waitFor({ timeout: 20_000 });
      assert.equal(await hub.locator('#quiz-address-check').count(), 0);

      const again = await launchFromCourse(context, { baseUrl: app.baseUrl, button: 'resource:student:exam-copied' });
      await untilSession(again);
    });
  });

  it('the settings page offers the preset with this course\'s quiz address; filling in and saving replaces it', async (t) => {
    const lms = app.tool.sandbox!.demoLms;
    const expected = `${lms.registration.issuer}/quiz/exam-copied-2`;
    await withBrowser(t, async (context) => {
      const hub = await launchFromCourse(context, { baseUrl: app.baseUrl, button: 'resource:instructor:exam-copied-2' });
      await hub.getByRole('button', { name: 'Edit settings' }).click();
      await hub.locator('#suggested-quiz-address').waitFor({ timeout: 20_000 });
      assert.equal(await hub.getByLabel('The quiz is in').inputValue(), 'demo-lms');
      assert.equal(await hub.locator('#f-tool-quiz_url').inputValue(), expected);
      await hub.getByRole('button', { name: 'Fill in the pages' }).click();
      await hub.waitForFunction((url) => (document.getElementById('f-launch_url') as HTMLInputElement).value === url, expected);
      await hub.getByRole('button', { name: 'Save settings' }).click();
      await hub.waitForFunction(() => /saved/i.test(document.getElementById('save-status')?.textContent ?? ''), undefined, { timeout: 20_000 });

      const student = await launchFromCourse(context, { baseUrl: app.baseUrl, button: 'resource:student:exam-copied-2' });
      await untilSession(student);
      const sent = JSON.parse(String(await student.locator('#request').textContent())) as { launch_url: string };
      assert.equal(sent.launch_url, expected);
    });
  });
});
