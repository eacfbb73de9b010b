// Every role × (Canvas-like, Moodle-like): the full OIDC flow through the demo LMS ends in a 302 to the
// emulator (or the hub page, whose buttons then do), and the emulator received exactly the expected
// body, valid against the contract.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createInstitutionSettingsStore, type InstitutionSettingsInput } from '../../../src/institution/settings.js';
import type { DemoUserKey } from '../../../src/sandbox/demo-lms/index.js';
import { checkRequest } from '../../contract/launch-api-checker.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import {
  attemptOf,
  callsDuring,
  demoExam,
  derived,
  launchAs,
  launchLog,
  oneCall,
  pressHubButton,
  ROLES,
  setInstitution,
  withRoles,
  type Derived,
  type Flavor,
} from '../../helpers/launches.js';

const FLAVORS: readonly Flavor[] = ['canvas', 'moodle'];
const SUBS: Record<DemoUserKey, string> = { student: '5', instructor: '3', ta: '4', proctor: '6', 'test-student': '7', admin: '2' };

interface HubExpectation {
  edit: boolean;
  review: boolean;
  live: boolean;
}

describe('launch of every role, Canvas-like and Moodle-like', () => {
  let app: TestApp;
  let d: Derived;
  let issuer: string;
  let exam: { id: string; settings: Record<string, unknown> | null };
  let examTag: string;
  let sectionId: string;

  before(async () => {
    app = await startTestApp();
    // The sandbox names the Canvas-like proctor's role; the matrix starts from a platform that names none.
    await setInstitution(app, {});
    d = await derived(app);
    issuer = app.tool.sandbox!.demoLms.registration.issuer;
    exam = await demoExam(app);
    examTag = d.examTag(issuer, '1', 'exam-midterm');
    sectionId = d.sectionId(issuer, '1', 'course-101');
  });
  after(async () => {
    await app.close();
  });

  /** Runs `work` with the demo platform's settings replaced by these, then puts back the settings it had. */
  async function withInstitution<T>(settings: InstitutionSettingsInput, work: () => Promise<T>): Promise<T> {
    const store = createInstitutionSettingsStore(app.db);
    const { clientId } = app.tool.sandbox!.demoLms.registration;
    const previous = await store.get(issuer, clientId);
    await store.save(issuer, clientId, settings);
    try {
      return await work();
    } finally {
      await store.save(issuer, clientId, previous);
    }
  }

  async function startedAttempt(userId: string): Promise<string> {
    const result = await app.db.query<{ id: string }>("SELECT id FROM attempts WHERE exam_id = $1 AND user_id = $2 AND status = 'started'", [exam.id, userId]);
    assert.ok(result.rows[0], 'an attempt was started');
    return result.rows[0].id;
  }

  /** Checks a candidate body field by field against values derived independently. */
  async function expectCandidateBody(body: Record<string, unknown>, sub: string): Promise<string> {
    const userId = d.userId(issuer, sub);
    const attemptId = await startedAttempt(userId);
    const links = d.returnLinks(attemptId);
    await d.checkHostedUrl(body.roster_url, 'roster', sectionId, 18000);
    const settings = exam.settings!;
    assert.deepEqual(body, {
      launch_url: settings.launch_url,
      exam_start: settings.exam_start,
      exam_take: settings.exam_take,
      exam_end: settings.exam_end,
      exam_settings: settings.exam_settings,
      user_id: userId,
      exam_tag: examTag,
      section_id: sectionId,
      roster_url: body.roster_url,
      attempt_id: attemptId,
      redirect_url: links.graceful,
      redirect_settings: { graceful_submission_url: links.graceful, ungraceful_submission_url: links.ungraceful },
    });
    assert.deepEqual(checkRequest('candidate', body), []);
    return attemptId;
  }

  async function expectReviewerBody(body: Record<string, unknown>, sub: string): Promise<void> {
    await d.checkHostedUrl(body.roster_url, 'roster', sectionId, 3600);
    assert.deepEqual(body, { user_id: d.userId(issuer, sub), exam_settings: exam.settings!.exam_settings, exam_tag: examTag, section_id: sectionId, roster_url: body.roster_url });
    assert.deepEqual(checkRequest('reviewer', body), []);
  }

  async function expectLiveBody(body: Record<string, unknown>, sub: string): Promise<void> {
    await d.checkHostedUrl(body.roster_url, 'roster', sectionId, 3600);
    assert.deepEqual(body, { user_id: d.userId(issuer, sub), exam_tag: examTag, section_id: sectionId, roster_url: body.roster_url, exam_name: 'Midterm exam' });
    assert.deepEqual(checkRequest('live', body), []);
  }

  const toEmulator = (location: unknown) => {
    assert.equal(typeof location, 'string');
    assert.ok((location as string).startsWith(`${app.baseUrl}/sandbox/proctoring/session/`), String(location));
    assert.ok((location as string).endsWith(`#${examTag}`), 'the #exam_tag fragment is kept');
  };

  async function candidateLaunch(flavor: Flavor, user: DemoUserKey, options: { roles?: string[]; sub?: string } = {}) {
    const { result, body } = await oneCall(app, '/v2/candidate/launch', () =>
      launchAs(app, { user, flavor, presentation: 'window', claims: options.roles ? withRoles(...options.roles) : undefined }),
    );
    assert.equal(result.response.status, 302, result.response.text.slice(0, 400));
    toEmulator(result.response.headers.location);
    return { attemptId: await expectCandidateBody(body, options.sub ?? SUBS[user]), launched: result };
  }

  async function hubLaunch(flavor: Flavor, user: DemoUserKey, expected: HubExpectation, options: { roles?: string[] } = {}) {
    const { result: launched, calls } = await callsDuring(app, () =>
      launchAs(app, { user, flavor, presentation: 'window', claims: options.roles ? withRoles(...options.roles) : undefined }),
    );
    assert.equal(calls.length, 0, 'opening the hub calls nothing upstream');
    const html = launched.response.text;
    assert.equal(launched.response.status, 200, html.slice(0, 400));
    assert.match(html, /<h1>Midterm exam<\/h1>/);
    assert.equal(/data-edit-settings/.test(html), expected.edit, 'Edit settings link');
    assert.equal(/data-action="review"/.test(html), expected.review, 'review button');
    assert.equal(/data-action="live"/.test(html), expected.live, 'live button');
    assert.match(html, /data-roles-panel/, 'staff see the roles received');
    for (const role of launched.claims['https://purl.imsglobal.org/spec/lti/claim/roles'] as string[]) assert.ok(html.includes(role), `panel lists ${role}`);
    if (expected.review) {
      const { result, body } = await oneCall(app, '/v2/reviewer/launch', () => pressHubButton(launched, 'review'));
      assert.equal(result.status, 302, result.text.slice(0, 400));
      toEmulator(result.headers.location);
      await expectReviewerBody(body, SUBS[user]);
    } else {
      const { result, calls: none } = await callsDuring(app, () => pressHubButton(launched, 'review', { examId: exam.id }));
      assert.equal(result.status, 403);
      assert.match(result.text, /may not open the review center/);
      assert.equal(none.length, 0);
    }
    if (expected.live) {
      const { result, body } = await oneCall(app, '/v2/live/launch', () => pressHubButton(launched, 'live'));
      assert.equal(result.status, 302, result.text.slice(0, 400));
      toEmulator(result.headers.location);
      await expectLiveBody(body, SUBS[user]);
    } else {
      const { result, calls: none } = await callsDuring(app, () => pressHubButton(launched, 'live', { examId: exam.id }));
      assert.equal(result.status, 403);
      assert.match(result.text, /may not monitor exams live/);
      assert.equal(none.length, 0);
    }
    return launched;
  }

  for (const flavor of FLAVORS) {
    describe(`${flavor}-like`, () => {
      it('student → candidate launch, 302 to the emulator with the exact candidate body', async () => {
        const { attemptId } = await candidateLaunch(flavor, 'student');
        assert.equal((await attemptOf(app, attemptId))?.is_test, false);
      });

      it('instructor → hub with settings, review center and live monitoring', async () => {
        await hubLaunch(flavor, 'instructor', { edit: true, review: true, live: true });
      });

      it(
        flavor === 'canvas'
          ? 'teaching assistant (Instructor + Instructor#TeachingAssistant) → hub, settings read-only'
          : 'non-editing teacher (plain Instructor in the launch, Learner in Names and Roles) → hub, settings read-only',
        async () => {
          await hubLaunch(flavor, 'ta', { edit: false, review: true, live: true });
        },
      );

      it('content developer → hub with settings only, no review center, no live monitoring', async () => {
        await hubLaunch(flavor, 'instructor', { edit: true, review: false, live: false }, { roles: [ROLES.contentDeveloper, ROLES.systemUser] });
      });

      it('LMS administrator → hub with everything', async () => {
        const launched = await hubLaunch(flavor, 'admin', { edit: true, review: true, live: true });
        assert.match(launched.response.text, /LMS system administrator/);
      });

      it(
        flavor === 'canvas' ? 'test user (Canvas Student View) → candidate, attempt marked as a test' : 'test student (Moodle: a teacher switched to the Student role, under their own id) → candidate',
        async () => {
          // Moodle's "Switch role to… Student" sends the teacher's own user id with the role Learner only: the
          // launch cannot tell, the hub does (the roster lists the teacher as staff).
          const sub = flavor === 'canvas' ? SUBS['test-student'] : SUBS.instructor;
          await app.db.query("UPDATE attempts SET status = 'ended', ended_at = now() WHERE user_id = $1 AND status = 'started'", [d.userId(issuer, sub)]);
          const { attemptId } = await candidateLaunch(flavor, 'test-student', { sub });
          assert.equal((await attemptOf(app, attemptId))?.is_test, flavor === 'canvas');
        },
      );

      it('mentor / observer → refused page, nothing sent upstream, refusal recorded', async () => {
        const { result, calls } = await callsDuring(app, () => launchAs(app, { user: 'student', flavor, presentation: 'window', claims: withRoles(ROLES.mentor, ROLES.systemUser) }));
        assert.equal(result.response.status, 403);
        assert.match(result.response.text, /does not allow opening this proctored exam/);
        assert.doesNotMatch(result.response.text, /For administrators/);
        assert.equal(calls.length, 0);
        const last = (await launchLog(app)).at(-1)!;
        assert.deepEqual([last.role, last.outcome, last.error_code], ['none', 'refused', 'role_not_allowed']);
      });

      it('faculty at the institution who is a Learner in this course → candidate', async () => {
        await candidateLaunch(flavor, 'student', { roles: [ROLES.learner, ROLES.institutionInstructor] });
      });
    });
  }

  describe('proctors named in the platform settings', () => {
    // Canvas sends a custom "Proctor" course role based on Designer as ContentDeveloper (demo user "proctor").
    const contentDeveloperProctors: InstitutionSettingsInput = { proctorRoles: [ROLES.contentDeveloper] };

    it('canvas-like proctor (custom role sent as ContentDeveloper) → live launch, 302 with the exact live body', async () => {
      await withInstitution(contentDeveloperProctors, async () => {
        const { result, body } = await oneCall(app, '/v2/live/launch', () => launchAs(app, { user: 'proctor', flavor: 'canvas', presentation: 'window' }));
        assert.equal(result.response.status, 302, result.response.text.slice(0, 300));
        toEmulator(result.response.headers.location);
        await expectLiveBody(body, SUBS.proctor);
      });
    });

    it('moodle-like proctor (plain Instructor in the launch, Learner in Names and Roles: a non-editing teacher) → hub with "Monitor live", settings read-only', async () => {
      await withInstitution(contentDeveloperProctors, () => hubLaunch('moodle', 'proctor', { edit: false, review: true, live: true }));
    });

    it('moodle-like proctor when the platform names Instructor a proctor role → live launch', async () => {
      await withInstitution({ proctorRoles: ['Instructor'] }, async () => {
        const { result, body } = await oneCall(app, '/v2/live/launch', () => launchAs(app, { user: 'proctor', flavor: 'moodle', presentation: 'window' }));
        assert.equal(result.response.status, 302);
        await expectLiveBody(body, SUBS.proctor);
      });
    });

    it('canvas-like teaching assistant may edit settings when the institution allows it', async () => {
      await withInstitution({ teachingAssistantsMayEdit: true }, () => hubLaunch('canvas', 'ta', { edit: true, review: true, live: true }));
    });
  });

  describe('framed launches move the top window', () => {
    for (const flavor of FLAVORS) {
      it(`${flavor}-like student in an iframe gets the start page with its button to the top level`, async () => {
        const { result, body } = await oneCall(app, '/v2/candidate/launch', () => launchAs(app, { user: 'student', flavor, presentation: 'iframe' }));
        assert.equal(result.response.status, 200);
        assert.match(result.response.text, /target="_top"/);
        assert.match(result.response.text, /Start the proctored exam/);
        assert.doesNotMatch(result.response.text, /<script/, 'the button works without scripts');
        const href = /id="continue-link"[^>]*href="([^"]+)"/.exec(result.response.text)?.[1];
        assert.ok(href?.startsWith(`${app.baseUrl}/sandbox/proctoring/session/`));
        assert.equal(body.user_id, d.userId(issuer, SUBS.student));
      });
    }

    it('hub buttons of a framed launch answer with the top-level page too', async () => {
      const launched = await launchAs(app, { user: 'instructor', flavor: 'moodle', presentation: 'iframe' });
      assert.equal(launched.response.status, 200);
      const pressed = await pressHubButton(launched, 'review');
      assert.equal(pressed.status, 200);
      assert.match(pressed.text, /target="_top"/);
      assert.match(pressed.text, /sandbox\/proctoring\/session\//);
    });
  });
});
