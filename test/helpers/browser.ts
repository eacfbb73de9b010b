import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions } from 'playwright-core';
import { processEndClosers } from './process-end.js';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Runs `fn` with a fresh headless Chromium context. Where Chromium is absent the test is skipped with a
 * message, unless REQUIRE_BROWSER=1 (set by CI), where a missing browser fails the test.
 */
export interface BrowserOptions {
  /** Extra Chromium switches (e.g. --host-resolver-rules, --ignore-certificate-errors). */
  args?: string[];
  /** The profile's preferences (Default/Preferences), written before Chromium starts: cookie settings. */
  preferences?: Record<string, unknown>;
}

export async function withBrowser(t: TestContext, fn: (context: BrowserContext) => Promise<void>, options: BrowserOptions = {}): Promise<void> {
  if (!existsSync(CHROMIUM_PATH)) {
    if (process.env.REQUIRE_BROWSER === '1') throw new Error(`Chromium is required but missing at ${CHROMIUM_PATH}`);
    t.skip(`Chromium not found at ${CHROMIUM_PATH}: install it (apt-get install -y chromium) to run browser tests`);
    return;
  }
  if (!options.args && !options.preferences) return inSharedBrowser(fn);
  const userDataDir = mkdtempSync(join(tmpdir(), 'proctor-lti-chromium-'));
  if (options.preferences) {
    mkdirSync(join(userDataDir, 'Default'));
    writeFileSync(join(userDataDir, 'Default', 'Preferences'), JSON.stringify(options.preferences));
  }
  const context = await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_ARGS, ...(options.args ?? [])] });
  try {
    await fn(context);
  } finally {
    await context.close();
    rmSync(userDataDir, { recursive: true, force: true });
  }
}

/**
 * One Chromium per test process, and one context in it that each use gets back as a fresh browser would be:
 * starting Chromium costs seconds of CPU, a new context with its first page about a second (a renderer process
 * started, a second of wall time). Playwright's context reuse, the one its own test runner offers, puts the context
 * back between uses: other pages closed, the kept page on about:blank, cookies and the storage of every origin
 * visited cleared, routes, init scripts, viewport and emulation reset, no listener of the last use left.
 * Permissions, extra headers, the offline switch and the HTTP cache are reset here. The use's first `newPage()`
 * gets the kept page. A use that fails closes the context, so that whatever it left cannot reach the next; a use
 * while another holds the context gets a new context of its own. `test/browser/harness/reused-context.test.ts`
 * checks each of these. The browser is closed after the process's last test where the test runner's process entry
 * collects closers (scripts/run-tests.mjs), else once no test has used it for a moment (a file run alone).
 */
let shared: { browser: Promise<Browser>; users: number; reusedContextBusy: boolean; idle?: NodeJS.Timeout } | undefined;
const IDLE_CLOSE_MS = 1000;
/** Playwright's default for a new context. */
const DEFAULT_VIEWPORT = { width: 1280, height: 720 };

/** The part of Playwright's context reuse this helper calls: public in behaviour, absent from its type declarations. */
interface ReusingBrowser {
  _newContextForReuse(options: BrowserContextOptions): Promise<BrowserContext>;
  _disconnectFromReusedContext(reason: string): Promise<void>;
}

function canReuseContexts(browser: Browser): browser is Browser & ReusingBrowser {
  return typeof Reflect.get(browser, '_newContextForReuse') === 'function' && typeof Reflect.get(browser, '_disconnectFromReusedContext') === 'function';
}

async function inSharedBrowser(fn: (context: BrowserContext) => Promise<void>): Promise<void> {
  const current = (shared ??= launchShared());
  current.users += 1;
  clearTimeout(current.idle);
  try {
    const browser = await current.browser;
    if (current.reusedContextBusy || !canReuseContexts(browser)) {
      const context = await browser.newContext();
      try {
        await fn(context);
      } finally {
        await context.close();
      }
      return;
    }
    current.reusedContextBusy = true;
    try {
      await inReusedContext(browser, fn);
    } finally {
      current.reusedContextBusy = false;
    }
  } finally {
    current.users -= 1;
    if (current.users === 0 && !processEndClosers()) current.idle = setTimeout(() => closeShared(current), IDLE_CLOSE_MS);
  }
}

async function inReusedContext(browser: Browser & ReusingBrowser, fn: (context: BrowserContext) => Promise<void>): Promise<void> {
  // The viewport given, not left to the default: a reused tab keeps a viewport the last use set unless told otherwise.
  const context = await browser._newContextForReuse({ viewport: DEFAULT_VIEWPORT });
  let succeeded = false;
  try {
    // What Playwright's reset leaves as the last use set it.
    await context.clearPermissions();
    await context.setExtraHTTPHeaders({});
    await context.setOffline(false);
    const kept = context.pages()[0];
    if (kept) {
      const cdp = await context.newCDPSession(kept);
      await cdp.send('Network.clearBrowserCache');
      await cdp.detach();
      const newPage = context.newPage.bind(context);
      let handedOut = false;
      context.newPage = async () => {
        if (handedOut || kept.isClosed()) return newPage();
        handedOut = true;
        return kept;
      };
    }
    await fn(context);
    succeeded = true;
  } finally {
    if (succeeded) await browser._disconnectFromReusedContext('the test ended');
    else await context.close();
  }
}

function launchShared(): NonNullable<typeof shared> {
  const launched = { browser: chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS }), users: 0, reusedContextBusy: false };
  launched.browser.then((browser) => browser.on('disconnected', () => forget(launched)), () => forget(launched));
  processEndClosers()?.push(() => closeShared(launched));
  return launched;
}

function forget(launched: NonNullable<typeof shared>): void {
  if (shared === launched) shared = undefined;
}

async function closeShared(launched: NonNullable<typeof shared>): Promise<void> {
  forget(launched);
  const browser = await launched.browser.catch(() => undefined);
  await browser?.close();
}

