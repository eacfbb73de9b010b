import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
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
 * One Chromium per test process, a new context (its own cookies, storage and cache) for each use: starting
 * Chromium costs seconds of CPU, a context milliseconds. It is closed after the process's last test where the
 * test runner's process entry collects closers (scripts/run-tests.mjs), else once no test has used it for a
 * moment (a file run alone).
 */
let shared: { browser: Promise<Browser>; users: number; idle?: NodeJS.Timeout } | undefined;
const IDLE_CLOSE_MS = 1000;

async function inSharedBrowser(fn: (context: BrowserContext) => Promise<void>): Promise<void> {
  const current = (shared ??= launchShared());
  current.users += 1;
  clearTimeout(current.idle);
  try {
    const context = await (await current.browser).newContext();
    try {
      await fn(context);
    } finally {
      await context.close();
    }
  } finally {
    current.users -= 1;
    if (current.users === 0 && !processEndClosers()) current.idle = setTimeout(() => closeShared(current), IDLE_CLOSE_MS);
  }
}

function launchShared(): NonNullable<typeof shared> {
  const launched = { browser: chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS }), users: 0 };
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

