import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import express from 'express';
import { createProctoringClient, type ProctoringClient } from '../../../src/proctoring/client.js';
import { withBrowser } from '../../helpers/browser.js';
import { MAIN, candidateRequest, launchpadRequest, liveRequest, reviewerRequest, startEmulator, startSideServer, type EmulatorServer } from '../../helpers/proctoring.js';

/**
 * The emulator's pages in Chromium. A second server, on another port and so another origin, plays the
 * learning platform: it serves the roster and exam roster (with CORS, as the tool does) and the
 * return pages.
 */
describe('in a browser: the emulator pages', () => {
  let emulator: EmulatorServer;
  let platform: { origin: string; close(): Promise<void> };
  let client: ProctoringClient;
  const rosterRequests: (string | undefined)[] = [];

  before(async () => {
    emulator = await startEmulator();
    const app = express();
    const cors = (req: express.Request, res: express.Response, next: express.NextFunction) => {
      rosterRequests.push(req.get('origin'));
      res.set('Access-Control-Allow-Origin', '*');
      next();
    };
    app.get('/roster', cors, (_req, res) => {
      res.json([
        ['student-1', 'Ana Lima'],
        ['student-2', 'Ben Okafor'],
      ]);
    });
    app.get('/exams', cors, (_req, res) => {
      res.json([
        { exam_name: 'Midterm', exam_tag: 'midterm', section_id: 'sec-1', roster_url: 'https://tool.example.edu/roster/1' },
        { name: 'Final exam', exam_tag: 'final', section_id: 'sec-1' },
      ]);
    });
    // No CORS header: the browser must refuse to let the page read it.
    app.get('/private-roster', (_req, res) => {
      res.json([['student-1', 'Ana Lima']]);
    });
    app.get('/returned/:outcome', (req, res) => {
      res.type('html').send(`<!doctype html><title>Back in the course</title><h1 id="outcome">${req.params.outcome === 'submitted' ? 'submitted' : 'ended'}</h1>`);
    });
    platform = await startSideServer(app);
    client = createProctoringClient({ baseUrl: emulator.base, credentials: MAIN });
  });
  after(async () => {
    await client.close();
    await platform.close();
    await emulator.close();
  });

  it('the reviewer page fetches the roster cross-origin and lists the candidates and attempts', async (t) => {
    await client.candidateLaunch(candidateRequest({ user_id: 'student-2', exam_tag: 'browser-exam', section_id: 'sec-1', roster_url: `${platform.origin}/roster` }));
    await client.candidateLaunch(candidateRequest({ user_id: 'stranger-9', exam_tag: 'browser-exam', section_id: 'sec-1', roster_url: `${platform.origin}/roster` }));
    const { url } = await client.reviewerLaunch(reviewerRequest({ exam_tag: 'browser-exam', section_id: 'sec-1', roster_url: `${platform.origin}/roster` }));
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      await page.goto(url);
      await page.locator('#roster[data-state="loaded"]').waitFor({ timeout: 10_000 });
      const rows = await page.locator('#roster-table tbody tr').allInnerTexts();
      assert.deepEqual(rows.map((r) => r.replace(/\s+/g, ' ').trim()), ['student-1 Ana Lima', 'student-2 Ben Okafor']);
      assert.equal(await page.locator('#attempts tr[data-user-id="student-2"] .name').textContent(), 'Ben Okafor');
      assert.equal(await page.locator('#attempts tr[data-user-id="stranger-9"] .name').textContent(), 'Unmatched');
      assert.ok(rosterRequests.includes(emulator.origin), 'the roster was fetched by the browser, from the emulator origin');
    });
  });

  it('the live page shows the error when the roster does not allow its origin', async (t) => {
    const { url } = await client.liveLaunch(liveRequest({ roster_url: `${platform.origin}/private-roster` }));
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      await page.goto(url);
      await page.locator('#roster[data-state="error"]').waitFor({ timeout: 10_000 });
      assert.match(String(await page.locator('#roster-error').textContent()), /Access-Control-Allow-Origin/);
    });
  });

  it('the launchpad lists the exams of the exam roster', async (t) => {
    const { url } = await client.launchpad(launchpadRequest({ exam_roster: `${platform.origin}/exams` }));
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      await page.goto(url);
      await page.locator('#exams[data-state="loaded"]').waitFor({ timeout: 10_000 });
      const rows = await page.locator('#exams-table tbody tr').allInnerTexts();
      assert.equal(rows.length, 2);
      assert.match(rows[0]!, /Midterm.*midterm.*sec-1/);
    });
  });

  it("the candidate page's Submit button goes to the graceful redirect", async (t) => {
    const { url } = await client.candidateLaunch(
      candidateRequest({
        redirect_url: `${platform.origin}/returned/fallback`,
        redirect_settings: { graceful_submission_url: `${platform.origin}/returned/submitted`, ungraceful_submission_url: `${platform.origin}/returned/ended` },
      }),
    );
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      await page.goto(url);
      assert.equal(await page.getByRole('heading', { name: 'Proctored exam session' }).count(), 1);
      await page.getByRole('button', { name: 'Submit exam' }).click();
      await page.waitForURL(`${platform.origin}/returned/submitted`, { timeout: 10_000 });
      assert.equal(await page.locator('#outcome').textContent(), 'submitted');
    });
  });

  it("the candidate page's Leave button goes to the ungraceful redirect", async (t) => {
    const { url } = await client.candidateLaunch(
      candidateRequest({ redirect_settings: { graceful_submission_url: `${platform.origin}/returned/submitted`, ungraceful_submission_url: `${platform.origin}/returned/ended` } }),
    );
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      await page.goto(url);
      await page.getByRole('button', { name: 'Leave exam' }).click();
      await page.waitForURL(`${platform.origin}/returned/ended`, { timeout: 10_000 });
    });
  });
});
