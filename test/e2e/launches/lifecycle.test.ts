// Attempt lifecycle (launch, resume, graceful and ungraceful return, next attempt) and the stability of
// the derived ids: the same across launches and roles of one exam, different across issuers,
// deployments and resource links.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JWTPayload } from 'jose';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { attemptOf, callsDuring, CLAIMS, demoExam, derived, launchAs, launchLog, oneCall, pressHubButton, saveExamSettings, setInstitution, settingsPageExamId, withRoles, ROLES, type Derived } from '../../helpers/launches.js';
import { invalidateReadCaches } from '../../../src/db/read-cache.js';
import { pathOf } from '../../helpers/urls.js';

describe('attempt lifecycle and id stability', () => {
  let app: TestApp;
  let d: Derived;
  let issuer: string;
  let exam: { id: string; settings: Record<string, unknown> | null };

  before(async () => {
    app = await startTestApp();
    d = await derived(app);
    issuer = app.tool.sandbox!.demoLms.registration.issuer;
    exam = await demoExam(app);
  });
  after(async () => {
    await app.close();
  });

  const studentLaunch = async (flavor: 'canvas' | 'moodle' = 'moodle', claims?: (c: JWTPayload) => void) =>
    oneCall(app, '/v2/candidate/launch', () => launchAs(app, { user: 'student', flavor, presentation: 'window', claims }));

  describe('attempts', () => {
    it('launch, resume with the same attempt_id, graceful return, hub shows it, next launch gets a new attempt_id', async () => {
      const first = await studentLaunch('moodle');
      const attemptId = first.body.attempt_id as string;
      assert.match(attemptId, /^[0-9a-f-]{36}$/);
      assert.equal((await attemptOf(app, attemptId))?.status, 'started');

      const resumed = await studentLaunch('canvas');
      assert.equal(resumed.body.attempt_id, attemptId, 'a resume keeps the attempt id');

      const graceful = (first.body.redirect_settings as { graceful_submission_url: string }).graceful_submission_url;
      assert.equal(first.body.redirect_url, graceful);
      const back = await first.result.agent.get(pathOf(graceful));
      assert.equal(back.status, 303);
      // Forwarded to the launch's launch_presentation.return_url (the LMS course page).
      const returnUrl = (first.result.claims[CLAIMS.presentation] as { return_url: string }).return_url;
      assert.ok([returnUrl, (resumed.result.claims[CLAIMS.presentation] as { return_url: string }).return_url].includes(back.headers.location as string));
      const finished = await attemptOf(app, attemptId);
      assert.equal(finished?.status, 'submitted');
      assert.ok(finished?.ended_at);

      // A second visit of a return link changes nothing.
      const ungracefulOfFinished = (first.body.redirect_settings as { ungraceful_submission_url: string }).ungraceful_submission_url;
      assert.equal((await first.result.agent.get(pathOf(ungracefulOfFinished))).status, 303);
      assert.equal((await attemptOf(app, attemptId))?.status, 'submitted');

      const hub = await launchAs(app, { user: 'instructor', flavor: 'moodle', presentation: 'window' });
      assert.match(hub.response.text, new RegExp(`data-attempt="${attemptId}" data-outcome="submitted"`));

      const next = await studentLaunch('moodle');
      assert.notEqual(next.body.attempt_id, attemptId, 'a finished attempt is not resumed');
    });

    it('an ungraceful end is recorded and shown on the hub', async () => {
      const launched = await studentLaunch('canvas');
      const attemptId = launched.body.attempt_id as string;
      const ungraceful = (launched.body.redirect_settings as { ungraceful_submission_url: string }).ungraceful_submission_url;
      const back = await launched.result.agent.get(pathOf(ungraceful));
      assert.equal(back.status, 303);
      assert.equal((await attemptOf(app, attemptId))?.status, 'ended');
      const hub = await launchAs(app, { user: 'instructor', flavor: 'canvas', presentation: 'window' });
      assert.match(hub.response.text, new RegExp(`data-attempt="${attemptId}" data-outcome="ended"`));
      assert.match(hub.response.text, /Ended without submitting/);
      assert.match(hub.response.text, /data-launch-outcome="redirected"/);
    });

    it('the exam may send candidates to a closing message or an address of its own instead of the LMS', async () => {
      await saveExamSettings(app, exam.id, { ...exam.settings, tool: { redirect: 'message' } });
      const toMessage = await studentLaunch();
      const page = await toMessage.result.agent.get(pathOf(toMessage.body.redirect_url as string));
      assert.equal(page.status, 200);
      assert.match(page.text, /Your exam was submitted/);

      await saveExamSettings(app, exam.id, { ...exam.settings, tool: { redirect: 'url', redirect_url: 'https://college.example.edu/after-exam' } });
      const toUrl = await studentLaunch();
      const forwarded = await toUrl.result.agent.get(pathOf((toUrl.body.redirect_settings as { ungraceful_submission_url: string }).ungraceful_submission_url));
      assert.equal(forwarded.status, 303);
      assert.equal(forwarded.headers.location, 'https://college.example.edu/after-exam');
      await saveExamSettings(app, exam.id, exam.settings);
    });

    it('an exam stored before settings documents had a version (version 1) launches as before', async () => {
      const { version, ...unversioned } = exam.settings as Record<string, unknown>;
      assert.equal(version, 2, 'the seeded exam is stored as the current version');
      const { tabs, ...olderSettings } = unversioned.exam_settings as Record<string, unknown>;
      assert.equal(tabs, 1);
      // Also without a setting added after it was stored: the setting gets its default (tabs: 0 is off).
      await saveExamSettings(app, exam.id, { ...unversioned, exam_settings: { ...olderSettings, full_screen: 0 } });
      try {
        const launched = await studentLaunch();
        assert.deepEqual(launched.body.exam_settings, { ...(unversioned.exam_settings as object), tabs: 0, full_screen: 0 });
        assert.equal(launched.body.launch_url, unversioned.launch_url);
      } finally {
        await saveExamSettings(app, exam.id, exam.settings);
      }
    });

    it('every launch is recorded: pseudonymous user, exam, role, endpoint, outcome, duration', async () => {
      const candidate = await studentLaunch('canvas');
      const hub = await launchAs(app, { user: 'instructor', flavor: 'moodle', presentation: 'window' });
      await oneCall(app, '/v2/live/launch', () => pressHubButton(hub, 'live'));
      const [student, shown, live] = (await launchLog(app)).slice(-3);
      assert.deepEqual(
        [student, shown, live].map((r) => [r?.user_id, r?.exam_id, r?.role, r?.endpoint, r?.outcome, r?.error_code]),
        [
          [d.userId(issuer, '5'), exam.id, 'candidate', 'candidate', 'redirected', null],
          [d.userId(issuer, '3'), exam.id, 'instructor', 'hub', 'shown', null],
          [d.userId(issuer, '3'), exam.id, 'instructor', 'live', 'redirected', null],
        ],
      );
      for (const record of [student, shown, live]) assert.ok(Number.isInteger(record?.duration_ms) && record!.duration_ms >= 0);
      assert.equal(candidate.body.user_id, student?.user_id, 'the same pseudonym as the request, never the LMS user id');
      await app.tool.launchesRecorded();
      const row = await app.db.query<{ issuer: string; context_id: string }>('SELECT issuer, context_id FROM launch_log ORDER BY id DESC LIMIT 1');
      assert.deepEqual(row.rows[0], { issuer, context_id: 'course-101' });
    });

    it('concurrent launches of one candidate (double click, two tabs) share one attempt', async () => {
      const before = app.tool.sandbox!.emulator.received.length;
      const statuses = await Promise.all(Array.from({ length: 8 }, () => launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window' }).then((l) => l.response.status)));
      assert.deepEqual(statuses, Array.from({ length: 8 }, () => 302));
      const ids = new Set(app.tool.sandbox!.emulator.received.slice(before).map((c) => (c.body as { attempt_id: string }).attempt_id));
      assert.equal(ids.size, 1);
    });
  });

  describe('ids', () => {
    it('user_id, exam_tag and section_id are the same in candidate, reviewer and live launches of one exam, and for one person in every role', async () => {
      const candidate = await studentLaunch('canvas');
      const hub = await launchAs(app, { user: 'instructor', flavor: 'moodle', presentation: 'window' });
      const reviewer = await oneCall(app, '/v2/reviewer/launch', () => pressHubButton(hub, 'review'));
      const live = await oneCall(app, '/v2/live/launch', () => pressHubButton(hub, 'live'));
      for (const body of [reviewer.body, live.body]) {
        assert.equal(body.exam_tag, candidate.body.exam_tag);
        assert.equal(body.section_id, candidate.body.section_id);
      }
      assert.equal(candidate.body.exam_tag, d.examTag(issuer, '1', 'exam-midterm'));
      assert.equal(candidate.body.section_id, d.sectionId(issuer, '1', 'course-101'));
      assert.match(String(candidate.body.exam_tag), /^[\x21-\x7e]{1,100}$/);

      // The student (sub 5) launching with an instructor role keeps the same pseudonymous user_id.
      const asInstructor = await launchAs(app, { user: 'student', flavor: 'canvas', presentation: 'window', claims: withRoles(ROLES.instructor) });
      const sameUser = await oneCall(app, '/v2/reviewer/launch', () => pressHubButton(asInstructor, 'review'));
      assert.equal(sameUser.body.user_id, candidate.body.user_id);
      assert.equal(candidate.body.user_id, d.userId(issuer, '5'));
      assert.match(String(candidate.body.user_id), /^[a-zA-Z0-9-]{36}$/);
      assert.notEqual(reviewer.body.user_id, candidate.body.user_id, 'another person, another user_id');
    });

    it('another resource link is another exam: new exam_tag, same section_id and user_id; a first instructor launch opens its settings', async () => {
      const link = (claims: JWTPayload) => {
        claims[CLAIMS.resourceLink] = { id: 'exam-final', title: 'Final exam' };
      };
      // Not set up yet: the student gets a clear page and nothing is sent upstream.
      const { result: early, calls } = await callsDuring(app, () => launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window', claims: link }));
      assert.equal(calls.length, 0, 'nothing sent upstream');
      assert.equal(early.response.status, 409);
      assert.match(early.response.text, /Your instructor has not set up this exam yet/);

      const instructor = await launchAs(app, { user: 'instructor', flavor: 'moodle', presentation: 'window', claims: link });
      // The settings page, posted the session by the launch's answer: the session is in the page, not in a URL.
      const examId = settingsPageExamId(instructor.response);
      assert.match(instructor.response.text, new RegExp(`<meta name="ltik" content="${instructor.ltik}">`));

      await saveExamSettings(app, examId, exam.settings);
      const other = await studentLaunch('moodle', link);
      const main = await studentLaunch('moodle');
      assert.notEqual(other.body.exam_tag, main.body.exam_tag);
      assert.equal(other.body.exam_tag, d.examTag(issuer, '1', 'exam-final'));
      assert.equal(other.body.section_id, main.body.section_id);
      assert.equal(other.body.user_id, main.body.user_id);
      assert.notEqual(other.body.attempt_id, main.body.attempt_id);
    });

    it('a student who is the first to open a copied link (custom proctor_exam_id) gets the original exam settings', async () => {
      const copied = (claims: JWTPayload) => {
        claims[CLAIMS.context] = { id: 'course-101-copy', label: 'STAT101', title: 'Statistics (next term)', type: ['CourseSection'] };
        claims[CLAIMS.resourceLink] = { id: 'exam-midterm-copy', title: 'Midterm exam' };
        claims[CLAIMS.custom] = { ...(claims[CLAIMS.custom] as Record<string, string> | undefined), proctor_exam_id: exam.id };
      };
      // The copy keeps the original course's quiz address: "not ready yet" until an instructor confirms it.
      const waiting = await callsDuring(app, () => launchAs(app, { user: 'student', flavor: 'canvas', presentation: 'window', claims: copied }));
      assert.equal(waiting.result.response.status, 409);
      assert.deepEqual(waiting.calls, []);
      const copy = (await app.db.query<{ id: string }>("SELECT id FROM exams WHERE resource_link_id = 'exam-midterm-copy'")).rows[0];
      assert.ok(copy);
      await app.db.query('UPDATE exams SET quiz_address_check = false WHERE id = $1', [copy.id]);
      invalidateReadCaches(); // written with SQL: this process's cached exam reads see it at once
      const launched = await studentLaunch('canvas', copied);
      assert.equal(launched.result.response.status, 302);
      assert.equal(launched.body.launch_url, exam.settings!.launch_url);
      assert.deepEqual(launched.body.exam_settings, exam.settings!.exam_settings);
      assert.equal(launched.body.exam_tag, d.examTag(issuer, '1', 'exam-midterm-copy'));
      assert.equal(launched.body.section_id, d.sectionId(issuer, '1', 'course-101-copy'));
    });

    it('another deployment: new exam_tag and section_id, the same user_id (same issuer and sub)', async () => {
      const { registration } = app.tool.sandbox!.demoLms;
      await app.tool.lti.deployments.add(registration.issuer, registration.clientId, '2');
      const deployment = (claims: JWTPayload) => {
        claims[CLAIMS.deploymentId] = '2';
      };
      const login = (params: Record<string, string>) => {
        params.lti_deployment_id = '2';
      };
      const instructor = await launchAs(app, { user: 'instructor', flavor: 'moodle', presentation: 'window', claims: deployment, login });
      const examId = settingsPageExamId(instructor.response);
      await saveExamSettings(app, examId, exam.settings);
      const there = await oneCall(app, '/v2/candidate/launch', () => launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window', claims: deployment, login }));
      const here = await studentLaunch('moodle');
      assert.equal(there.body.exam_tag, d.examTag(issuer, '2', 'exam-midterm'));
      assert.equal(there.body.section_id, d.sectionId(issuer, '2', 'course-101'));
      assert.notEqual(there.body.exam_tag, here.body.exam_tag);
      assert.notEqual(there.body.section_id, here.body.section_id);
      assert.equal(there.body.user_id, here.body.user_id);
    });

    it('another issuer (a second LMS with the same user and course ids): every id differs', async () => {
      const demoLms = app.tool.sandbox!.demoLms;
      const { registration } = demoLms;
      const otherIssuer = 'https://moodle.other-college.example';
      await app.tool.lti.platforms.register({
        issuer: otherIssuer,
        clientId: registration.clientId,
        authUrl: registration.authUrl,
        tokenUrl: registration.tokenUrl,
        key: { jwk: JSON.stringify(demoLms.jwks().keys[0]) },
        deploymentIds: ['1'],
      });
      await setInstitution(app, {});
      const login = (params: Record<string, string>) => {
        params.iss = otherIssuer;
      };
      const fromOther = (claims: JWTPayload) => {
        claims.iss = otherIssuer;
      };
      const instructor = await launchAs(app, { user: 'instructor', flavor: 'moodle', presentation: 'window', claims: fromOther, login });
      const examId = settingsPageExamId(instructor.response);
      assert.notEqual(examId, exam.id);
      await saveExamSettings(app, examId, exam.settings);
      const there = await oneCall(app, '/v2/candidate/launch', () => launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window', claims: fromOther, login }));
      const here = await studentLaunch('moodle');
      assert.equal(there.body.user_id, d.userId(otherIssuer, '5'));
      assert.notEqual(there.body.user_id, here.body.user_id);
      assert.notEqual(there.body.exam_tag, here.body.exam_tag);
      assert.notEqual(there.body.section_id, here.body.section_id);
    });
  });
});
