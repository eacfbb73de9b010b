// The LTI session token (ltik) never travels in a URL: not in a redirect, a link, a form action, a script's
// request nor a Referer header, for every kind of launch and the pages that follow it. Access logs of a
// reverse proxy and browser histories hold URLs.
import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import type { JWTPayload } from 'jose';
import type supertest from 'supertest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { withBrowser } from '../../helpers/browser.js';
import { CLAIMS, demoExam, launchAs, type Agent, type LaunchOptions } from '../../helpers/launches.js';
import { launch } from '../../helpers/lti-flow.js';

const newLink = (claims: JWTPayload) => {
  claims[CLAIMS.resourceLink] = { id: `exam-new-${Math.random().toString(36).slice(2)}`, title: 'New exam' };
};

/** Every launch kind, and the page it must end on. */
const LAUNCHES: Array<{ name: string; options: LaunchOptions; expect: RegExp | number }> = [
  { name: 'student, window → proctoring URL', options: { user: 'student', flavor: 'moodle', presentation: 'window' }, expect: 302 },
  { name: 'student, framed → start page', options: { user: 'student', flavor: 'canvas', presentation: 'iframe' }, expect: /data-start/ },
  { name: 'instructor → hub', options: { user: 'instructor', flavor: 'canvas', presentation: 'window' }, expect: /Open review center/ },
  { name: 'teaching assistant → hub', options: { user: 'ta', flavor: 'canvas', presentation: 'iframe' }, expect: /data-roles-panel/ },
  { name: 'instructor, first launch of a link → settings', options: { user: 'instructor', flavor: 'moodle', presentation: 'window', claims: newLink }, expect: /id="settings-form"/ },
  { name: 'proctor in course navigation → launchpad', options: { user: 'instructor', flavor: 'moodle', kind: 'course', presentation: 'window' }, expect: 302 },
  { name: 'student in course navigation → exam list', options: { user: 'student', flavor: 'canvas', kind: 'course', presentation: 'window' }, expect: /class="exam-start"/ },
  { name: 'deep linking → content picker form', options: { user: 'instructor', flavor: 'moodle', kind: 'deep-linking', presentation: 'window' }, expect: /name="security_preset"/ },
];

/** URL-valued attributes of a page: links, form actions, sources. */
function urlsOf(html: string): string[] {
  return [...html.matchAll(/\b(?:href|action|formaction|src|content)="([^"]*)"/gi)].map((m) => m[1]!).filter((value) => value.includes('/') || value.includes('?'));
}

function assertNoTokenInUrls(response: supertest.Response, tokens: string[], where: string): void {
  const location = String(response.headers.location ?? '');
  for (const token of tokens) assert.equal(location.includes(token), false, `${where}: Location carries a session token`);
  assert.doesNotMatch(location, /ltik/i, `${where}: Location`);
  for (const url of urlsOf(response.text)) {
    assert.doesNotMatch(url, /ltik/i, `${where}: ${url.slice(0, 120)}`);
    for (const token of tokens) assert.equal(url.includes(token), false, `${where}: a URL in the page carries a session token`);
  }
}

/** The POST forms of a page that carry the session (hidden ltik), with their other hidden fields and each list's first choice. */
function sessionForms(html: string): Array<{ action: string; fields: Record<string, string> }> {
  const forms = [...html.matchAll(/<form method="post" action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/g)];
  return forms
    .map((form) => {
      const fields: Record<string, string> = {};
      for (const input of form[2]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[input[1]!] = input[2]!;
      for (const select of form[2]!.matchAll(/<select [^>]*name="([^"]+)"[^>]*>\s*<option value="([^"]*)"/g)) fields[select[1]!] ??= select[2]!;
      return { action: form[1]!, fields };
    })
    .filter((form) => form.fields.ltik);
}

describe('session tokens stay out of URLs', () => {
  let app: TestApp;

  before(async () => {
    app = await startTestApp();
    await demoExam(app);
  });
  after(async () => {
    await app.close();
  });

  for (const { name, options, expect } of LAUNCHES) {
    it(`${name}: no token in the answer's Location, links or form actions, nor in the pages its forms open`, async () => {
      const launched = await launchAs(app, options);
      const tokens = app.issuedSessionTokens();
      assert.ok(launched.ltik, 'the launch opened a session');
      if (typeof expect === 'number') assert.equal(launched.response.status, expect, launched.response.text.slice(0, 300));
      else assert.match(launched.response.text, expect);
      assertNoTokenInUrls(launched.response, tokens, name);
      // One level further: every page a session form of this page opens (hub → settings, results, CSV; list → start).
      for (const form of sessionForms(launched.response.text)) {
        if (form.action.endsWith('/review') || form.action.endsWith('/live') || form.action.includes('/deep-linking/')) continue;
        const next = await (launched.agent as Agent).post(form.action).type('form').send(form.fields);
        assert.ok(next.status < 400, `${form.action}: ${next.status} ${next.text.slice(0, 200)}`);
        assertNoTokenInUrls(next, app.issuedSessionTokens(), `${name} → ${form.action}`);
      }
    });
  }

  it('in Chromium: hub, settings (with its scripts\' requests), exam list and content picker put no token in any request URL, Referer or Location', async (t: TestContext) => {
    // The student has seen the exam's privacy notice, so that the exam list's start goes on to the session.
    await launch(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
    await withBrowser(t, async (context) => {
      const seen: Array<{ url: string; referer: string; location: string }> = [];
      context.on('request', (request) => {
        seen.push({ url: request.url(), referer: request.headers().referer ?? '', location: '' });
      });
      context.on('response', (response) => {
        seen.push({ url: response.url(), referer: '', location: response.headers().location ?? '' });
      });
      const course = await context.newPage();
      const open = async (button: string) => {
        await course.goto(`${app.baseUrl}/sandbox/lms/?presentation=window&flavor=moodle`);
        const popupPromise = context.waitForEvent('page', { timeout: 10_000 });
        await course.locator(`button[value="${button}"]`).first().click();
        return popupPromise;
      };

      const hub = await open('resource:instructor:' + app.tool.sandbox!.demoLms.course.exam.id);
      await hub.getByRole('button', { name: 'Edit settings' }).click({ timeout: 20_000 });
      await hub.waitForURL(/\/lti\/exams\/[0-9a-f-]+\/settings$/, { timeout: 20_000 });
      await hub.locator('#settings-form').waitFor();
      await hub.getByRole('button', { name: 'Fill in the pages' }).click();
      await hub.getByRole('button', { name: 'Save settings' }).click();
      await hub.waitForFunction(() => /Saved|attention/.test(document.getElementById('save-status')?.textContent ?? document.getElementById('error-summary')?.textContent ?? ''), undefined, { timeout: 20_000 });
      await hub.reload();
      await hub.locator('#settings-form').waitFor();

      const list = await open('course:student');
      await list.locator('.exam-start button').first().click({ timeout: 20_000 });
      await list.waitForURL(/\/sandbox\/proctoring\/session\//, { timeout: 20_000 });

      const picker = await open('deep-linking:instructor');
      await picker.locator('input[name="security_preset"]').first().waitFor({ timeout: 20_000 });

      const tokens = app.issuedSessionTokens();
      assert.ok(tokens.length >= 3, 'three sessions were opened');
      const toTool = seen.filter((entry) => entry.url.startsWith(app.baseUrl));
      assert.ok(toTool.some((entry) => entry.url.includes('/lti/api/')), 'the settings page\'s scripts called the API');
      for (const entry of seen) {
        for (const value of [entry.url, entry.referer, entry.location]) {
          assert.doesNotMatch(value, /ltik/i, value.slice(0, 160));
          for (const token of tokens) assert.equal(value.includes(token), false, `a session token in ${value.slice(0, 100)}`);
        }
      }
    });
  });
});
