// The start page of a framed launch: what it says from the exam's settings (pure, table-driven), per
// role and language through the real app, and in Chromium: the demo LMS frames the tool, the button moves
// the top window, and the page is axe clean and fits 1,280 and 390 px.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { EXAM_SETTINGS_OFF } from '../../../src/proctoring/contract.js';
import type { ExamSettings } from '../../../src/proctoring/contract.js';
import { candidateStart, checksOf } from '../../../src/launches/start-page.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { assertAnsweredPagesAccessible } from '../../helpers/axe.js';
import { withBrowser } from '../../helpers/browser.js';
import { demoExam, launchAs, pressHubButton, saveExamSettings } from '../../helpers/launches.js';
import { settingsDocument } from '../../helpers/proctoring.js';
import { invalidateReadCaches } from '../../../src/db/read-cache.js';

const off: ExamSettings = { ...EXAM_SETTINGS_OFF };

describe('start page: what the exam settings make it say', () => {
  const cases: Array<{ name: string; change: Partial<ExamSettings>; recorded: string[]; checked: string[]; needed: string[] }> = [
    { name: 'everything off: only the extension', change: {}, recorded: [], checked: [], needed: ['extension'] },
    {
      name: 'camera and microphone recorded and verified',
      change: { record_video: true, verify_video: true, record_audio: true, verify_audio: true },
      recorded: ['camera', 'microphone'],
      checked: ['cameraCheck', 'microphoneCheck'],
      needed: ['extension', 'webcam', 'microphone'],
    },
    { name: 'screen and web traffic', change: { record_screen: true, verify_desktop: true, record_web_traffic: true }, recorded: ['screen', 'webTraffic'], checked: ['screenCheck'], needed: ['extension'] },
    { name: 'ID scanned automatically needs a webcam', change: { verify_id: 1 }, recorded: [], checked: ['idAutomatic'], needed: ['extension', 'webcam'] },
    {
      name: 'ID by a person, desk scan at start only, live proctor',
      change: { record_video: true, verify_video: true, verify_id: 2, record_desk: 2, live_proctor: true },
      recorded: ['camera'],
      checked: ['cameraCheck', 'idPerson', 'deskAtStart', 'liveProctor'],
      needed: ['extension', 'webcam'],
    },
    { name: 'periodic desk scan', change: { record_video: true, verify_video: true, record_desk: 1 }, recorded: ['camera'], checked: ['cameraCheck', 'deskPeriodic'], needed: ['extension', 'webcam'] },
    {
      name: 'lockdown: one screen, closed tabs, full screen, signature',
      change: { one_screen: true, close_tabs: true, tabs: 1, full_screen: 2, verify_signature: true },
      recorded: [],
      checked: ['signature', 'oneScreen', 'closeTabs', 'fullScreen'],
      needed: ['extension'],
    },
    { name: 'advanced detection needs the companion app', change: { advanced_vm_detection: true }, recorded: [], checked: [], needed: ['extension', 'companionApp'] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const derived = checksOf({ ...off, ...c.change } as ExamSettings);
      assert.deepEqual(derived, { recorded: c.recorded, checked: c.checked, needed: c.needed });
    });
  }

  const base = { examTitle: 'Midterm', practice: false, settings: settingsDocument('https://lms.example.edu/quiz/1') };
  const afterCases: Array<{ name: string; redirect?: 'lms' | 'message' | 'url'; returnUrl?: string; after: string; returnShown: boolean }> = [
    { name: 'default, with the course address: back to the course', returnUrl: 'https://lms.example.edu/course/1', after: 'lms', returnShown: true },
    { name: 'default, no course address: the confirmation page', after: 'message', returnShown: false },
    { name: 'a script address is never linked', returnUrl: 'javascript:alert(1)', after: 'message', returnShown: false },
    { name: 'message mode', redirect: 'message', returnUrl: 'https://lms.example.edu/course/1', after: 'message', returnShown: true },
    { name: 'an address of the instructor', redirect: 'url', after: 'url', returnShown: false },
  ];
  for (const c of afterCases) {
    it(`afterwards: ${c.name}`, () => {
      const tool = c.redirect ? { redirect: c.redirect, ...(c.redirect === 'url' ? { redirect_url: 'https://example.edu/next' } : {}) } : undefined;
      const page = candidateStart({ ...base, settings: { ...base.settings, ...(tool ? { tool } : {}) }, displayName: undefined, returnUrl: c.returnUrl });
      assert.equal(page.after, c.after);
      assert.equal(page.returnUrl !== undefined, c.returnShown);
    });
  }

  it('the name is mentioned exactly when the request carries it', () => {
    assert.equal(candidateStart({ ...base, displayName: 'Ada Lovelace' }).nameSent, true);
    assert.equal(candidateStart({ ...base, displayName: undefined }).nameSent, false);
  });
});

describe('start page through the real app', () => {
  let app: TestApp;
  let exam: { id: string; settings: Record<string, unknown> | null };

  before(async () => {
    app = await startTestApp();
    exam = await demoExam(app);
  });
  after(async () => {
    await app.close();
  });

  async function withSettings(change: Partial<ExamSettings>): Promise<void> {
    const stored = exam.settings as { exam_settings: ExamSettings };
    await saveExamSettings(app, exam.id, { ...stored, exam_settings: { ...off, ...change } });
  }

  it('a framed student launch shows the exam, course, checks, privacy and one button to the top', async () => {
    await withSettings({ record_video: true, verify_video: true, verify_id: 2, record_desk: 2, record_screen: true, verify_desktop: true });
    const { response } = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'iframe' });
    assert.equal(response.status, 200);
    const html = response.text;
    assert.match(html, /<h1>Start your proctored exam<\/h1>/);
    const demoLms = app.tool.sandbox!.demoLms;
    assert.ok(html.includes(`>${demoLms.course.exam.title}<`), 'the exam title');
    assert.ok(html.includes(`Course: ${demoLms.course.title}`), 'the course title');
    for (const item of ['camera', 'screen', 'idPerson', 'deskAtStart', 'cameraCheck', 'screenCheck', 'extension', 'webcam']) assert.match(html, new RegExp(`data-item="${item}"`), item);
    assert.doesNotMatch(html, /data-item="microphone"/);
    assert.match(html, /receives a code that identifies you for this course, not your name/);
    const buttons = [...html.matchAll(/<a [^>]*data-start[^>]*>/g)];
    assert.equal(buttons.length, 1);
    assert.match(buttons[0]![0], /target="_top"/);
    assert.match(buttons[0]![0], /href="[^"]*\/sandbox\/proctoring\/session\//);
    assert.match(html, /<a id="new-window-link" href="[^"]+" target="_blank" rel="noopener"/);
    assert.doesNotMatch(html, /<script/);
  });

  it('a course without a roster: the privacy note says the name is sent', async () => {
    await withSettings({});
    const { response } = await launchAs(app, {
      user: 'student',
      flavor: 'moodle',
      presentation: 'iframe',
      claims: (claims) => {
        delete claims['https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice'];
        claims.name = 'Ada Lovelace';
      },
    });
    assert.equal(response.status, 200);
    assert.match(response.text, /receives your name as your course shows it/);
    assert.match(response.text, /Nothing is recorded by camera, microphone or screen/);
  });

  it('in the launch’s language (launch_presentation.locale)', async () => {
    const { response } = await launchAs(app, {
      user: 'student',
      flavor: 'moodle',
      presentation: 'iframe',
      claims: (claims) => {
        (claims['https://purl.imsglobal.org/spec/lti/claim/launch_presentation'] as Record<string, unknown>).locale = 'de-DE';
      },
    });
    assert.match(response.text, /<html lang="de" dir="ltr">/);
    assert.match(response.text, /Beaufsichtigte Prüfung starten/);
  });

  it('a launch the browser loads at the top level (Sec-Fetch-Dest: document) is a window launch, whatever document_target says', async () => {
    const agent = supertest.agent(app.baseUrl).set('Sec-Fetch-Dest', 'document');
    const { response, notice } = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'iframe', agent, claims: (claims) => void (claims.sub = 'top-level-student') });
    assert.ok(notice, 'its first launch of the exam: the privacy notice, not the framed page');
    assert.equal(response.status, 302, 'its button: the redirect');
    const again = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'iframe', agent, claims: (claims) => void (claims.sub = 'top-level-student'), stopAtNotice: true });
    assert.equal(again.response.status, 302);
  });

  it('a window launch keeps the direct redirect once the student has seen the privacy notice', async () => {
    await launchAs(app, { user: 'student', flavor: 'canvas', presentation: 'window' });
    const { response } = await launchAs(app, { user: 'student', flavor: 'canvas', presentation: 'window', stopAtNotice: true });
    assert.equal(response.status, 302);
    assert.match(response.headers.location ?? '', /\/sandbox\/proctoring\/session\//);
  });

  it('staff get their own wording: live monitoring and the review center from the hub', async () => {
    const hub = await launchAs(app, { user: 'instructor', flavor: 'moodle', presentation: 'iframe' });
    const live = await pressHubButton(hub, 'live');
    assert.equal(live.status, 200);
    assert.match(live.text, /<h1>Open live monitoring<\/h1>/);
    assert.doesNotMatch(live.text, /data-start-privacy|What is recorded/);
    const review = await pressHubButton(hub, 'review');
    assert.equal(review.status, 200);
    assert.match(review.text, /<h1>Open the review center<\/h1>/);
    assert.match(review.text, /<a [^>]*target="_top"[^>]*data-start>Open the review center<\/a>/);
  });

  it('in Chromium: the demo LMS embeds the tool, the start page shows, the button moves the top window', async (t) => {
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      await page.goto(`${app.baseUrl}/sandbox/lms/?flavor=moodle&presentation=iframe`, { timeout: 15_000 });
      await page.getByRole('button', { name: 'Open the exam as a student' }).first().click({ timeout: 10_000 });
      const frame = await (await page.waitForSelector('iframe.lms-tool-frame', { timeout: 15_000 })).contentFrame();
      assert.ok(frame);
      const button = frame.locator('[data-start]');
      await button.waitFor({ state: 'visible', timeout: 20_000 });
      assert.doesNotMatch(page.url(), /\/sandbox\/proctoring\/session\//, 'nothing moves before the click');
      await button.click({ timeout: 10_000 });
      await page.waitForURL(/\/sandbox\/proctoring\/session\//, { timeout: 20_000 });
    });
  });

  it('in Chromium: axe clean, no sideways overflow at 1,280 and 390 px, staff and student pages', async (t) => {
    await withSettings({ record_video: true, verify_video: true, verify_id: 2, record_desk: 1, live_proctor: true, record_audio: true, verify_audio: true });
    // The instructor's own words, long and in two scripts, stay inside the page at 390 px.
    await app.db.query('UPDATE exams SET tool_settings = tool_settings || $2::jsonb WHERE id = $1', [exam.id, JSON.stringify({ instructions: `Bring your student card.\n${'أحضر بطاقة هويتك الجامعية. '.repeat(8)}https://example.edu/a-very-long-address-without-any-break-in-it` })]);
    invalidateReadCaches();
    const student = (await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'iframe' })).response.text;
    assert.match(student, /data-instructions>Bring your student card\.\n/);
    const live = (await pressHubButton(await launchAs(app, { user: 'instructor', flavor: 'moodle', presentation: 'iframe' }), 'live')).text;
    await withBrowser(t, async (context) => {
      await assertAnsweredPagesAccessible(await context.newPage(), app.baseUrl, [['student', student], ['live', live]]);
    });
  });
});
