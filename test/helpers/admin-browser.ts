import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { ADMIN_TEST_PASSWORD } from './admin.js';

/** Signs in to the console from the keyboard only: the password field has focus on arrival, Enter submits. */
export async function signInByKeyboard(page: Page, baseUrl: string, password = ADMIN_TEST_PASSWORD): Promise<void> {
  await page.goto(`${baseUrl}/admin`);
  assert.match(page.url(), /\/admin\/sign-in/);
  // The browser moves focus to an autofocus field at its next rendering step, which may come after the load event.
  await page.waitForFunction(() => document.activeElement?.id === 'password', undefined, { timeout: 5000 }).catch(() => undefined);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'password', 'the password field has focus');
  await page.keyboard.type(password);
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
}

/** Presses Tab until the element matching `selector` has focus (at most `limit` times). */
export async function tabTo(page: Page, selector: string, limit = 60): Promise<void> {
  for (let i = 0; i < limit; i += 1) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press('Tab');
  }
  assert.fail(`${selector} is not reachable with the Tab key`);
}
