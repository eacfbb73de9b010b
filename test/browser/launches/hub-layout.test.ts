// The hub as an instructor sees it on a laptop (1,280 px) and a phone (390 px): results first, the settings in a few
// lines, the page's width used, and on a phone every result's suspicion and flags on screen without sideways scrolling.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { assertNoAxeViolations, horizontalOverflow, PAGE_BEST_PRACTICES } from '../../helpers/axe.js';
import { withBrowser } from '../../helpers/browser.js';
import { launchFromCourse, untilSession } from '../../helpers/demo-course.js';
import { waitFor } from '../../helpers/wait.js';

describe('in a browser: the hub’s layout on a laptop and a phone', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
    await app.tool.afterListen();
  });
  after(async () => {
    await app.close();
  });

  async function results(): Promise<number> {
    return Number((await app.db.query<{ n: string }>('SELECT count(*) AS n FROM webhook_deliveries WHERE attempt_id IS NOT NULL')).rows[0]?.n ?? 0);
  }

  async function submitExamAs(context: BrowserContext, user: string): Promise<void> {
    const before = await results();
    const page = await launchFromCourse(context, { baseUrl: app.baseUrl, button: `resource:${user}:${app.tool.sandbox!.demoLms.course.exam.id}`, flavor: 'canvas' });
    await untilSession(page);
    await page.getByRole('button', { name: 'Submit exam' }).click({ timeout: 20_000 });
    await waitFor(`a result for ${user}`, async () => (await results()) > before, { timeoutMs: 10_000, intervalMs: 100 });
    await page.close();
  }

  async function openHub(context: BrowserContext, locale?: string): Promise<Page> {
    const hub = await launchFromCourse(context, { baseUrl: app.baseUrl, button: `resource:instructor:${app.tool.sandbox!.demoLms.course.exam.id}`, flavor: 'canvas', ...(locale ? { locale } : {}) });
    await hub.locator('[data-results]').waitFor({ timeout: 20_000 });
    return hub;
  }

  it('results before a five-line settings summary; wide at 1,280 px; cards at 390 px with suspicion and flags on screen; axe-clean', async (t) => {
    await withBrowser(t, async (context) => {
      await submitExamAs(context, 'student');
      await submitExamAs(context, 'test-student');
      for (const locale of [undefined, 'ar']) {
        const hub = await openHub(context, locale);
        const what = `the hub (${locale ?? 'en'})`;
        const order = await hub.locator('main > section, main > details').evaluateAll((sections) => sections.map((s) => s.getAttribute('aria-labelledby') ?? s.tagName));
        assert.ok(order.indexOf('attempts-heading') < order.indexOf('settings-heading'), `results before settings: ${order.join(', ')}`);
        assert.equal(await hub.locator('[data-summary="short"] dt').count(), 5, 'the settings in five lines');
        assert.equal(await hub.locator('[data-all-settings]').evaluate((details) => (details as HTMLDetailsElement).open), false, 'every setting folded away');
        assert.ok((await hub.locator('[data-time-limit]').count()) === 1, 'where time limits and extra time are set');

        await hub.setViewportSize({ width: 1280, height: 900 });
        const mainWidth = await hub.locator('main').evaluate((main) => main.getBoundingClientRect().width);
        assert.ok(mainWidth >= 1100, `${what} uses a laptop's width (${mainWidth} px)`);
        await assertNoAxeViolations(hub, `${what} at 1,280 px`, { bestPractices: PAGE_BEST_PRACTICES });

        await hub.setViewportSize({ width: 390, height: 844 });
        assert.ok((await horizontalOverflow(hub)) <= 0, `${what} fits 390 px`);
        const cells = await hub.locator('table[data-table="attempts"] [data-cell="suspicion"], table[data-table="attempts"] [data-cell="flags"]').evaluateAll((tds) =>
          tds.map((td) => {
            const box = td.getBoundingClientRect();
            return { left: box.left, right: box.right };
          }),
        );
        assert.equal(cells.length, 4, 'two results, each with suspicion and flags');
        for (const cell of cells) assert.ok(cell.left >= 0 && cell.right <= 390, `${what}: a result's cell on screen at 390 px (${cell.left}–${cell.right})`);
        const sideways = await hub.locator('.table-scroll').evaluateAll((boxes) => boxes.filter((box) => box.scrollWidth > box.clientWidth + 1).length);
        assert.equal(sideways, 0, `${what}: no table scrolls sideways at 390 px`);
        await assertNoAxeViolations(hub, `${what} at 390 px`, { bestPractices: PAGE_BEST_PRACTICES });
        const height = await hub.evaluate(() => document.documentElement.scrollHeight);
        t.diagnostic(`${what}: ${height} px tall at 390 px`);
        await hub.close();
      }
    });
  });
});
