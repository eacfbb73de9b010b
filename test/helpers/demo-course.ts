import type { BrowserContext, Page } from 'playwright-core';

export interface CourseLaunch {
  baseUrl: string;
  /** The launch button: its value (`resource:<user>:<link>`) or its accessible name. */
  button: string | RegExp;
  flavor?: 'moodle' | 'canvas' | 'ultra';
  /** The language the launch asks for (the course page's choice, sent as the launch's locale). */
  locale?: string;
}

/**
 * Opens the demo LMS course page with "new window" launches, clicks a launch button and answers the tab the launch
 * opened; a launch that opens no tab fails the test.
 */
export async function launchFromCourse(context: BrowserContext, { baseUrl, button, flavor = 'moodle', locale }: CourseLaunch): Promise<Page> {
  const course = await context.newPage();
  await course.goto(`${baseUrl}/sandbox/lms/?presentation=window&flavor=${flavor}`);
  if (locale) await course.locator('#launch-locale').selectOption(locale);
  const opened = context.waitForEvent('page', { timeout: 20_000 });
  const target = typeof button === 'string' ? course.locator(`button[value="${button}"]`) : course.getByRole('button', { name: button }).first();
  await target.click();
  return opened;
}

/**
 * A student's first launch of an exam in a window shows the privacy notice: presses its button (the page then goes on
 * to the session). Fails when the page shows no notice.
 */
export async function continuePastNotice(page: Page): Promise<void> {
  await page.locator('[data-notice-continue] button[type="submit"]').click({ timeout: 20_000 });
}

/**
 * Waits until a student's launch tab is on the proctoring session, pressing the privacy notice's button when the
 * launch shows it first (a student's first launch of an exam in a window). Returns whether it did.
 */
export async function untilSession(page: Page): Promise<boolean> {
  const session = /\/sandbox\/proctoring\/session\//;
  const reached = await Promise.any([
    page.waitForURL(session, { timeout: 20_000 }).then(() => 'session' as const),
    page.locator('[data-notice-continue]').waitFor({ timeout: 20_000 }).then(() => 'notice' as const),
  ]);
  if (reached === 'notice') await continuePastNotice(page);
  await page.waitForURL(session, { timeout: 20_000 });
  return reached === 'notice';
}
