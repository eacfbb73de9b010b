import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { withBrowser } from '../../helpers/browser.js';

/** The target id Chromium gives a tab: the same id is the same tab, kept from one use to the next. */
async function targetIdOf(context: BrowserContext, page: Page): Promise<string> {
  const cdp = await context.newCDPSession(page);
  try {
    const { targetInfo } = await cdp.send('Target.getTargetInfo');
    return targetInfo.targetId;
  } finally {
    await cdp.detach();
  }
}

describe('in a browser: every use of the shared browser starts as a fresh browser would', () => {
  let server: Server;
  let origin: string;
  const requests: string[] = [];
  const headers: Array<Record<string, string | string[] | undefined>> = [];
  before(async () => {
    server = createServer((request, response) => {
      requests.push(request.url ?? '');
      headers.push(request.headers);
      if (request.url === '/cached.js') {
        response.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'public, max-age=3600' });
        response.end('window.cachedLoaded = true;');
        return;
      }
      response.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'visited=yes; Path=/' });
      response.end('<!doctype html><title>page</title><script src="/cached.js"></script><p>served</p>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('a use gets the last use’s tab back without its cookies, storage, permissions, headers, routes, scripts, emulation, pages or cache; a failed use’s tab is not handed on', async (t) => {
    const fetchesOfCached = () => requests.filter((url) => url === '/cached.js').length;
    const fetchedBefore = fetchesOfCached();
    let firstTab = '';
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      firstTab = await targetIdOf(context, page);
      await page.setViewportSize({ width: 400, height: 300 });
      await context.addInitScript(() => Object.assign(window, { fromContextScript: true }));
      await page.addInitScript(() => Object.assign(window, { fromPageScript: true }));
      await page.route(`${origin}/routed`, (route) => route.fulfill({ body: 'routed by the last use' }));
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
      await context.setExtraHTTPHeaders({ 'x-left-by': 'the last use' });
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.goto(`${origin}/`);
      assert.equal(await page.evaluate(async () => (await navigator.permissions.query({ name: 'clipboard-read' as PermissionName })).state), 'granted');
      await page.evaluate(() => {
        localStorage.setItem('left', 'by the last use');
        sessionStorage.setItem('left', 'by the last use');
      });
      assert.equal(await page.evaluate(() => Reflect.get(window, 'fromPageScript')), true);
      assert.equal((await context.cookies()).length, 1);
      await (await context.newPage()).goto(`${origin}/second-tab`);
      await context.setOffline(true);
    });
    assert.equal(fetchesOfCached(), fetchedBefore + 1);

    let failedTab = '';
    await withBrowser(t, async (context) => {
      assert.equal(context.pages().length, 1, 'the last use’s other tab is closed');
      const page = await context.newPage();
      assert.equal(await targetIdOf(context, page), firstTab, 'the tab is the last use’s');
      assert.equal(page.url(), 'about:blank');
      assert.deepEqual(await context.cookies(), []);
      await page.goto(`${origin}/`);
      assert.deepEqual(await page.evaluate(() => [innerWidth, innerHeight]), [1280, 720], 'the default viewport');
      assert.equal(await page.evaluate(() => localStorage.getItem('left')), null);
      assert.equal(await page.evaluate(() => sessionStorage.getItem('left')), null);
      assert.equal(await page.evaluate(() => Reflect.get(window, 'fromContextScript')), undefined);
      assert.equal(await page.evaluate(() => Reflect.get(window, 'fromPageScript')), undefined);
      assert.equal(await page.evaluate(() => Reflect.get(window, 'cachedLoaded')), true);
      assert.notEqual(await page.evaluate(async () => (await navigator.permissions.query({ name: 'clipboard-read' as PermissionName })).state), 'granted');
      assert.equal(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches), false);
      assert.equal(headers.at(-1)?.['x-left-by'], undefined, 'the last use’s extra headers are gone');
      assert.equal(fetchesOfCached(), fetchedBefore + 2, 'the cached script is fetched again');
      const routed = await page.goto(`${origin}/routed`);
      assert.match(await routed?.text() ?? '', /served/, 'the last use’s route is gone');
      assert.notEqual(await context.newPage(), page, 'a second newPage opens a tab of its own');
      failedTab = await targetIdOf(context, page);
    });

    await assert.rejects(
      withBrowser(t, async (context) => {
        const page = await context.newPage();
        failedTab = await targetIdOf(context, page);
        throw new Error('a failing use');
      }),
      /a failing use/,
    );
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      assert.notEqual(await targetIdOf(context, page), failedTab, 'a failed use’s tab is closed, not handed on');
    });
  });

  it('two uses at once get contexts of their own', async (t) => {
    await withBrowser(t, async (outer) => {
      const outerPage = await outer.newPage();
      await outerPage.goto(`${origin}/`);
      await withBrowser(t, async (inner) => {
        assert.notEqual(inner, outer);
        assert.deepEqual(await inner.cookies(), []);
        const innerPage = await inner.newPage();
        await innerPage.goto(`${origin}/inner`);
      });
      assert.equal(outerPage.url(), `${origin}/`, 'the outer use’s page was left alone');
      assert.equal((await outer.cookies()).length, 1);
    });
  });
});
