import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

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
  const userDataDir = mkdtempSync(join(tmpdir(), 'proctor-lti-chromium-'));
  if (options.preferences) {
    mkdirSync(join(userDataDir, 'Default'));
    writeFileSync(join(userDataDir, 'Default', 'Preferences'), JSON.stringify(options.preferences));
  }
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
      ...(options.args ?? []),
    ],
  });
  try {
    await fn(context);
  } finally {
    await context.close();
    rmSync(userDataDir, { recursive: true, force: true });
  }
}
