import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext } from 'playwright-core';
import { parse } from 'csv-parse/sync';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { axeViolations, describeViolations } from '../../helpers/axe.js';
import { withBrowser } from '../../helpers/browser.js';
import { derived, emulator } from '../../helpers/launches.js';
import { launchFromCourse, untilSession } from '../../helpers/demo-course.js';
import { waitFor } from '../../helpers/wait.js';

describe('in a browser: suspicion results and names in the exam hub', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
    await app.tool.afterListen();
  });
  after(async () => {
    await app.close();
  });

  async function deliveries(): Promise<number> {
    return Number((await app.db.query<{ n: string }>('SELECT count(*) AS n FROM webhook_deliveries WHERE attempt_id IS NOT NULL')).rows[0]?.n ?? 0);
  }

  async function submitExamAs(context: BrowserContext, user: string): Promise<void> {
    const examLink = app.tool.sandbox!.demoLms.course.exam.id;
    const before = await deliveries();
    const page = await launchFromCourse(context, { baseUrl: app.baseUrl, button: `resource:${user}:${examLink}`, flavor: 'canvas' });
    await untilSession(page);
    await page.getByRole('button', { name: 'Submit exam' }).click({ timeout: 20_000 });
    await page.waitForLoadState();
    // The emulator notifies the tool's receiver once the attempt ends.
    await waitFor(`a result for ${user}`, async () => (await deliveries()) > before, { timeoutMs: 10_000, intervalMs: 100 });
    assert.equal(await deliveries(), before + 1, `one result for ${user} arrived`);
    await page.close();
  }

  it('"Submit exam" leads to a result in the hub: name, suspicion, flags, submission, test student; most suspicious first; CSV; no axe violations', async (t) => {
    await withBrowser(t, async (context) => {
      await submitExamAs(context, 'student');
      await submitExamAs(context, 'test-student');

      const hub = await launchFromCourse(context, { baseUrl: app.baseUrl, button: `resource:instructor:${app.tool.sandbox!.demoLms.course.exam.id}`, flavor: 'canvas' });
      await hub.locator('[data-results]').waitFor({ timeout: 20_000 });
      const rows = hub.locator('table[data-table="attempts"] tbody tr');
      assert.equal(await rows.count(), 2);

      const ids = await derived(app);
      const issuer = app.tool.sandbox!.demoLms.registration.issuer;
      const studentId = ids.userId(issuer, '5');
      const student = hub.locator(`tr:has([title="Pseudonymous id: ${studentId}"])`);
      assert.equal(await student.locator('[data-name]').textContent(), 'María José Núñez', 'the name comes from the roster');
      const suspicion = await student.locator('[data-cell="suspicion"]').textContent();
      assert.match(suspicion ?? '', /^\d+%$/);
      assert.equal(await student.locator('[data-cell="submission"]').evaluate((cell) => cell.firstChild?.textContent), 'Submitted');
      const flags = await student.locator('[data-cell="flags"]').innerText();
      assert.match(flags, /None|%/);

      const testStudent = hub.locator('tr:has([data-test-student])');
      assert.equal(await testStudent.count(), 1, 'the test student attempt is marked');
      // The test student is not a course member: not in the roster, so the pseudonym stands in for the name.
      assert.equal(await testStudent.locator('[data-pseudonym]').count(), 1);
      assert.equal(await hub.locator('[data-names-unavailable]').count(), 0);

      assert.deepEqual(describeViolations(await axeViolations(hub)), describeViolations([]));

      await hub.getByLabel('Order').selectOption('suspicion');
      // The filter is a POST form (the session token travels in the body): wait for its answer, then the page.
      await Promise.all([
        hub.waitForResponse((r) => r.request().method() === 'POST' && /\/lti\/hub\/[^/]+$/.test(new URL(r.url()).pathname)),
        hub.getByRole('button', { name: 'Apply' }).click(),
      ]);
      await hub.waitForLoadState();
      const ordered = await hub.locator('table[data-table="attempts"] tbody tr').evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-suspicion'))));
      assert.deepEqual(ordered, [...ordered].sort((a, b) => b - a), 'most suspicious first');
      assert.equal(await hub.getByLabel('Order').inputValue(), 'suspicion');

      const [download] = await Promise.all([hub.waitForEvent('download'), hub.locator('[data-csv]').click()]);
      assert.match(download.suggestedFilename(), /^[a-z0-9-]+-attempts\.csv$/);
      const csv = readFileSync((await download.path())!, 'utf8');
      const records = parse(csv, { bom: true, columns: true }) as Record<string, string>[];
      assert.equal(records.length, 2);
      const row = records.find((r) => r['Pseudonymous id'] === studentId)!;
      assert.equal(row.Name, 'María José Núñez');
      assert.equal(row.Outcome, 'Submitted');
      assert.equal(`${row['Suspicion (%)']}%`, suspicion);
      assert.equal(row.Submission, 'Submitted');
      assert.equal(records.find((r) => r['Pseudonymous id'] !== studentId)!['Test student'], 'yes');
      assert.ok(Object.keys(row).includes('Result received (UTC)'));
      assert.equal(emulator(app).subscriptions().length, 1);
    });
  });
});
