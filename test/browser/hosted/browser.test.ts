import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { createHostedLinks, type HostedLinks } from '../../../src/hosted/links.js';
import { createLogoStore } from '../../../src/hosted/logos.js';
import { deriveSectionId, platformKey } from '../../../src/lti/identifiers.js';
import { startTestApp, type TestApp, installationSecret } from '../../helpers/app.js';
import { withBrowser } from '../../helpers/browser.js';
import { launch } from '../../helpers/lti-flow.js';
import { SANDBOX_API_KEY } from '../../helpers/hosted.js';

/**
 * In Chromium, the emulator's pages (served from http://127.0.0.1:PORT) read the tool's hosted endpoints
 * from another origin (http://localhost:PORT), as the proctoring portal does: CORS, no cookies.
 */
describe('in a browser: the proctoring pages read the hosted endpoints cross-origin', () => {
  let app: TestApp;
  let links: HostedLinks;
  let sectionId: string;
  let candidateBody: Record<string, unknown>;
  let otherOrigin: string;

  before(async () => {
    app = await startTestApp();
    const demo = app.tool.sandbox!.demoLms;
    const before = app.tool.sandbox!.emulator.received.length;
    await launch(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
    const call = app.tool.sandbox!.emulator.received.slice(before).find((c) => c.endpoint === '/v2/candidate/launch');
    assert.ok(call, 'the student launch reached the emulator');
    candidateBody = call.body as Record<string, unknown>;
    otherOrigin = app.baseUrl.replace('127.0.0.1', 'localhost');
    links = createHostedLinks({ baseUrl: otherOrigin, secret: await installationSecret(app.db, 'hosted-links') });
    const pseudonyms = await installationSecret(app.db, 'pseudonyms');
    sectionId = deriveSectionId(pseudonyms, demo.registration.issuer, demo.registration.deploymentIds[0]!, demo.course.id);
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="96" height="32" viewBox="0 0 96 32" onload="alert(1)"><rect width="96" height="32" fill="#123456"/><script>alert(2)</script></svg>';
    await createLogoStore(app.db).save(demo.registration.issuer, demo.registration.clientId, new TextEncoder().encode(svg));
  });
  after(async () => {
    await app.close();
  });

  /** Asks the emulator (as the tool would) for a session URL on 127.0.0.1. */
  async function emulatorSession(kind: 'reviewer' | 'candidate', body: Record<string, unknown>): Promise<string> {
    const response = await supertest(app.baseUrl).post(`/sandbox/proctoring/v2/${kind}/launch`).set('api_key', SANDBOX_API_KEY).send(body);
    assert.equal(response.status, 200, response.text);
    const url = response.text.trim().replace(/^"|"$/g, '');
    assert.ok(url.startsWith(`${app.baseUrl}/sandbox/proctoring/session/`), url);
    return url;
  }

  it("the reviewer page fetches the roster and shows the candidates' names", async (t) => {
    const rosterUrl = await links.rosterUrl(sectionId, 3600);
    const url = await emulatorSession('reviewer', {
      user_id: '00000000-0000-8000-8000-000000000001',
      exam_settings: candidateBody.exam_settings,
      exam_tag: candidateBody.exam_tag,
      section_id: sectionId,
      roster_url: rosterUrl,
    });
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      const origins: Array<Promise<string | null>> = [];
      page.on('request', (request) => {
        if (request.url().startsWith(`${otherOrigin}/hosted/roster`)) origins.push(request.headerValue('origin'));
      });
      await page.goto(url);
      await page.locator('#roster[data-state="loaded"]').waitFor({ timeout: 15_000 });
      const names = await page.locator('#roster-table tbody tr td:nth-child(2)').allInnerTexts();
      // The class's candidates: its teacher (Instructor in Names and Roles) is not one.
      assert.equal(names.length, 31);
      for (const name of ['María José Núñez', '李明', 'فاطمة الزهراء']) assert.ok(names.includes(name), `${name} is listed`);
      assert.ok(!names.includes('Олена Коваленко'), 'the teacher is not a candidate');
      assert.deepEqual(await Promise.all(origins), [new URL(app.baseUrl).origin], 'fetched by the browser from the emulator page, cross-origin');
    });
  });

  it('the candidate page shows the institution logo and the name from the roster', async (t) => {
    const demo = app.tool.sandbox!.demoLms;
    const logoUrl = `${otherOrigin}/hosted/logo/${platformKey(demo.registration.issuer, demo.registration.clientId)}`;
    const url = await emulatorSession('candidate', {
      ...candidateBody,
      attempt_id: undefined,
      branding: { primary_color: '123456', logo_url: logoUrl },
      section_id: sectionId,
      roster_url: await links.rosterUrl(sectionId, 3600),
    });
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      await page.goto(url);
      const logo = page.locator('header img.logo');
      assert.equal(await logo.getAttribute('src'), logoUrl);
      await page.waitForFunction(() => {
        const img = document.querySelector<HTMLImageElement>('header img.logo');
        return Boolean(img && img.complete && img.naturalWidth > 0);
      }, undefined, { timeout: 15_000 });
      assert.equal(await logo.evaluate((img: HTMLImageElement) => img.naturalWidth), 96);
      await page.locator('#roster-name:not([hidden])').waitFor({ timeout: 15_000 });
      assert.equal(await page.locator('#roster-name').textContent(), 'Name from the roster: María José Núñez');
    });
  });
});
