import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[]; failureSummary?: string }>;
}

/**
 * Runs axe-core (WCAG 2.0/2.1 A and AA rules, and `options.bestPractices`) in the page, in one pass. Injected
 * through the DevTools protocol, which the pages' CSP (script-src 'self') does not apply to, once per document.
 */
export async function axeViolations(page: Page, options: AxeOptions = {}): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async (bestPractices) => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    // A rule named in `rules` runs besides the tags' rules (axe's ruleShouldRun): one pass over the page.
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
      rules: Object.fromEntries(bestPractices.map((rule) => [rule, { enabled: true }])),
      // Every rule still runs; only violations are collected node by node (passes would be, for nothing).
      resultTypes: ['violations'],
    });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })) }));
  }, options.bestPractices ?? []);
}

export interface AxeOptions {
  /** Rules of axe's best practices to run besides the WCAG ones (e.g. `landmark-unique`, `scrollable-region-focusable`). */
  bestPractices?: readonly string[];
}

/** The best practices the instructor's pages and the sandbox keep: uniquely named landmarks, scrollable boxes a keyboard reaches. */
export const PAGE_BEST_PRACTICES = ['landmark-unique', 'scrollable-region-focusable', 'region'] as const;

export function describeViolations(violations: AxeViolation[]): string {
  return violations.map((v) => `${v.id} (${v.impact}): ${v.help}\n  ${v.nodes.map((n) => n.target.join(' ')).join('\n  ')}`).join('\n');
}

/** How far the page scrolls sideways (0 or less: it fits the viewport's width). */
export function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

/**
 * Pages as the tool answered them, each served at the tool's origin (so its stylesheet loads), checked with axe
 * and for sideways overflow on a desktop (1,280 px) and a phone (390 px).
 */
export async function assertAnsweredPagesAccessible(page: Page, baseUrl: string, pages: ReadonlyArray<readonly [name: string, html: string]>): Promise<void> {
  for (const [name, html] of pages) {
    const at = `${baseUrl}/__answered-${name}`;
    await page.route(at, (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html }));
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 800 });
      await page.goto(at, { timeout: 15_000 });
      const violations = await axeViolations(page);
      assert.deepEqual(violations, [], `${name} at ${width}px:\n${describeViolations(violations)}`);
      const overflow = await horizontalOverflow(page);
      assert.ok(overflow <= 0, `${name} at ${width}px overflows by ${overflow}px`);
    }
  }
}

/** Fails the test with every axe violation on the page, named by `what`. */
export async function assertNoAxeViolations(page: Page, what: string, options: AxeOptions = {}): Promise<void> {
  const violations = await axeViolations(page, options);
  assert.equal(violations.length, 0, `${what}:\n${describeViolations(violations)}`);
}
