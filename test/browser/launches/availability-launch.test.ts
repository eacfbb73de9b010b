// Opening and closing times through the real app: the app's clock is injected (no sleeps), students launch
// before, at and after each boundary, staff are unaffected, and the pages are ordinary, localized and axe clean.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { zonedInstant } from '../../../src/exams/availability.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { assertAnsweredPagesAccessible } from '../../helpers/axe.js';
import { withBrowser } from '../../helpers/browser.js';
import { demoExam, incidentOf, launchAs } from '../../helpers/launches.js';
import { invalidateReadCaches } from '../../../src/db/read-cache.js';

function instant(local: string, timeZone: string): Date {
  const result = zonedInstant(local, timeZone);
  assert.ok(result.ok, `${local} ${timeZone}`);
  return result.instant;
}

const minutes = (date: Date, n: number) => new Date(date.getTime() + n * 60_000);

describe('exam availability at launch, with the clock injected', () => {
  let app: TestApp;
  let examId: string;
  let clock = new Date('2026-11-20T12:00:00Z');

  before(async () => {
    app = await startTestApp({}, { now: () => clock });
    examId = (await demoExam(app)).id;
  });
  after(async () => {
    await app.close();
  });

  async function setWindow(opensAt: Date | null, closesAt: Date | null, timeZone: string, practice = false): Promise<void> {
    await app.db.query('UPDATE exams SET opens_at = $2, closes_at = $3, time_zone = $4, practice = $5 WHERE id = $1', [examId, opensAt, closesAt, timeZone, practice]);
    invalidateReadCaches(); // written with SQL: this process's cached exam reads see it at once
  }

  const student = (locale?: string) =>
    launchAs(app, {
      user: 'student',
      flavor: 'canvas',
      presentation: 'window',
      claims: locale ? (claims) => void ((claims['https://purl.imsglobal.org/spec/lti/claim/launch_presentation'] as Record<string, unknown>).locale = locale) : undefined,
    });

  const opens = instant('2026-11-24T09:00', 'Europe/Berlin');
  const closes = instant('2026-11-24T11:00', 'Europe/Berlin');

  const boundaries: Array<{ name: string; at: Date; status: number; text?: RegExp }> = [
    { name: 'a minute before opening', at: minutes(opens, -1), status: 403, text: /This exam opens Tuesday, November 24, 2026 at 9:00\sAM \(Europe\/Berlin\)\./ },
    { name: 'at the opening instant', at: opens, status: 302 },
    { name: 'a minute before closing', at: minutes(closes, -1), status: 302 },
    { name: 'at the closing instant', at: closes, status: 403, text: /This exam closed on Tuesday, November 24, 2026 at 11:00\sAM \(Europe\/Berlin\)\./ },
    { name: 'a day after closing', at: minutes(closes, 24 * 60), status: 403, text: /This exam closed on/ },
  ];
  for (const b of boundaries) {
    it(`student ${b.name}: ${b.status}`, async () => {
      await setWindow(opens, closes, 'Europe/Berlin');
      clock = b.at;
      const { response } = await student();
      assert.equal(response.status, b.status, response.text.slice(0, 400));
      if (b.text) {
        assert.match(response.text, b.text);
        assert.equal(incidentOf(response.text), undefined, 'an ordinary page: no incident id');
      } else {
        assert.match(response.headers.location ?? '', /\/sandbox\/proctoring\/session\//);
      }
    });
  }

  it('before opening no attempt starts and no candidate launch reaches the proctoring service', async () => {
    await setWindow(opens, closes, 'Europe/Berlin');
    clock = minutes(opens, -30);
    const before = app.tool.sandbox!.emulator.received.length;
    const attempts = await app.db.query('SELECT count(*)::int AS n FROM attempts WHERE exam_id = $1', [examId]);
    const { response } = await student();
    assert.equal(response.status, 403);
    assert.equal(app.tool.sandbox!.emulator.received.length, before);
    const afterCount = await app.db.query('SELECT count(*)::int AS n FROM attempts WHERE exam_id = $1', [examId]);
    assert.deepEqual(afterCount.rows, attempts.rows);
  });

  it('in the student’s language, in the exam’s time zone', async () => {
    await setWindow(opens, closes, 'Europe/Berlin');
    clock = minutes(opens, -1);
    const { response } = await student('de');
    assert.match(response.text, /<html lang="de"/);
    assert.match(response.text, /Diese Prüfung öffnet am Dienstag, 24\. November 2026 um 9:00 \(Europe\/Berlin\)\./);
  });

  const zones: Array<{ name: string; local: string; timeZone: string }> = [
    // 02:00–03:00 does not exist on 29 March 2026 in Berlin: the first minute after the gap.
    { name: 'Europe/Berlin, just after the spring-forward gap', local: '2026-03-29T03:00', timeZone: 'Europe/Berlin' },
    // 02:30 happens twice on 25 October 2026: the first occurrence (CEST).
    { name: 'Europe/Berlin, in the fall-back overlap', local: '2026-10-25T02:30', timeZone: 'Europe/Berlin' },
    { name: 'America/New_York, the morning of the spring change', local: '2026-03-08T03:30', timeZone: 'America/New_York' },
    { name: 'Australia/Sydney, the day daylight saving ends', local: '2026-04-05T02:30', timeZone: 'Australia/Sydney' },
    { name: 'UTC', local: '2026-06-01T00:00', timeZone: 'UTC' },
  ];
  for (const z of zones) {
    it(`opening boundary, ${z.name}: closed a minute before, open at the instant`, async () => {
      const at = instant(z.local, z.timeZone);
      await setWindow(at, null, z.timeZone);
      clock = minutes(at, -1);
      const early = await student();
      assert.equal(early.response.status, 403);
      assert.match(early.response.text, new RegExp(`\\(${z.timeZone.replace('/', '\\/')}\\)`));
      clock = at;
      assert.equal((await student()).response.status, 302);
    });
  }

  it('staff launches are unaffected: the instructor gets the hub before opening', async () => {
    await setWindow(opens, closes, 'Europe/Berlin');
    clock = minutes(opens, -60);
    const { response } = await launchAs(app, { user: 'instructor', flavor: 'canvas', presentation: 'window' });
    assert.equal(response.status, 200);
    assert.doesNotMatch(response.text, /not open yet/);
  });

  it('a practice exam: the start page says so and the attempt is a practice attempt', async () => {
    await setWindow(null, null, 'UTC', true);
    await app.db.query("UPDATE attempts SET status = 'ended', ended_at = now() WHERE exam_id = $1 AND status = 'started'", [examId]);
    const { response } = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'iframe' });
    assert.equal(response.status, 200);
    assert.match(response.text, /<h1>Start your practice exam<\/h1>/);
    assert.match(response.text, /data-practice/);
    assert.match(response.text, /data-start>Start the practice exam</);
    const attempt = await app.db.query<{ practice: boolean }>("SELECT practice FROM attempts WHERE exam_id = $1 AND status = 'started'", [examId]);
    assert.deepEqual(attempt.rows.map((r) => r.practice), [true]);
    await setWindow(null, null, 'UTC', false);
  });

  it('in Chromium: the not-yet-open and closed pages are axe clean and fit 390 px', async (t) => {
    await setWindow(opens, closes, 'Europe/Berlin');
    clock = minutes(opens, -1);
    const early = (await student()).response.text;
    clock = closes;
    const late = (await student('ar')).response.text;
    assert.match(late, /dir="rtl"/);
    await withBrowser(t, async (context) => {
      await assertAnsweredPagesAccessible(await context.newPage(), app.baseUrl, [['not-yet-open', early], ['closed-ar', late]]);
    });
  });
});
