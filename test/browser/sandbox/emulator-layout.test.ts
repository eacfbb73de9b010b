import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { withBrowser } from '../../helpers/browser.js';
import { launchFromCourse, untilSession } from '../../helpers/demo-course.js';

async function emulatorPage(opened: Page): Promise<Page> {
  await opened.waitForURL(/\/sandbox\/proctoring\/session\//, { timeout: 20_000 });
  await opened.waitForLoadState('networkidle');
  return opened;
}

const WIDTHS = [1280, 390];

async function widths(page: Page): Promise<{ viewport: number; scrollWidth: number }[]> {
  const measured: { viewport: number; scrollWidth: number }[] = [];
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await page.reload({ waitUntil: 'networkidle' });
    measured.push({ viewport: width, scrollWidth: await page.evaluate(() => document.documentElement.scrollWidth) });
  }
  return measured;
}

describe('in a browser: the sandbox pages fit the screen, have an icon, and the demo proctor monitors live', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app.close();
  });

  it('/favicon.ico and the page icon answer with the tool icon', async () => {
    for (const path of ['/favicon.ico', '/static/favicon.svg']) {
      const response = await fetch(`${app.baseUrl}${path}`);
      assert.equal(response.status, 200, path);
      assert.match(String(response.headers.get('content-type')), /^image\/svg\+xml/, path);
      assert.match(await response.text(), /^<svg /, path);
    }
    const home = await (await fetch(`${app.baseUrl}/`)).text();
    assert.match(home, /<link rel="icon" href="\/static\/favicon.svg"/);
  });

  it('"Open the exam as a proctor" (Canvas-like custom Proctor role) opens live monitoring with no request failing', async (t) => {
    await withBrowser(t, async (context) => {
      const notFound: string[] = [];
      context.on('response', (response) => {
        if (response.status() === 404) notFound.push(response.url());
      });
      const page = await emulatorPage(await launchFromCourse(context, { baseUrl: app.baseUrl, button: /exam as a proctor/i, flavor: 'canvas' }));
      assert.equal(await page.getByRole('heading', { level: 1, name: 'Live monitoring' }).count(), 1);
      const sent = JSON.parse(String(await page.locator('#request').textContent())) as Record<string, unknown>;
      assert.equal(typeof sent.exam_name, 'string', 'a live launch names the exam');
      assert.deepEqual(notFound, []);
    });
  });

  it('every emulator page a launch shows has no horizontal overflow at 1280 and 390 px', async (t) => {
    await withBrowser(t, async (context) => {
      const pages: { name: string; open: () => Promise<Page> }[] = [
        {
          name: 'candidate',
          open: async () => {
            const student = await launchFromCourse(context, { baseUrl: app.baseUrl, button: /exam as a student/i, flavor: 'moodle' });
            await untilSession(student);
            return emulatorPage(student);
          },
        },
        { name: 'live', open: async () => emulatorPage(await launchFromCourse(context, { baseUrl: app.baseUrl, button: /exam as a proctor/i, flavor: 'canvas' })) },
        { name: 'launchpad', open: async () => emulatorPage(await launchFromCourse(context, { baseUrl: app.baseUrl, button: /course navigation \(launchpad\)/i, flavor: 'canvas' })) },
        {
          name: 'review',
          open: async () => {
            const hub = await launchFromCourse(context, { baseUrl: app.baseUrl, button: /exam as an instructor/i, flavor: 'moodle' });
            await hub.getByRole('button', { name: /open review center/i }).click();
            return emulatorPage(hub);
          },
        },
      ];
      const overflowing: string[] = [];
      for (const { name, open } of pages) {
        const page = await open();
        for (const { viewport, scrollWidth } of await widths(page)) {
          t.diagnostic(`${name} at ${viewport} px: scrollWidth ${scrollWidth}`);
          if (scrollWidth > viewport) overflowing.push(`${name} at ${viewport} px is ${scrollWidth} px wide`);
        }
      }
      assert.deepEqual(overflowing, []);
    });
  });
});
