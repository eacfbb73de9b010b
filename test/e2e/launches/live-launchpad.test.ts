// Course-level launches (launchpad for staff and proctors, the exam list for students), and every field
// that comes from the institution's and the exam's settings: branding and logo, domain, extension
// allowlist, pre/post auth, breaks, behaviour, proctor settings, expire; display_name without NRPS.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JWTPayload } from 'jose';
import { createLogoStore } from '../../../src/hosted/logos.js';
import { createInstitutionSettingsStore } from '../../../src/institution/settings.js';
import { validateLaunchpad } from '../../../src/proctoring/contract.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { callsDuring, CLAIMS, demoExam, derived, launchAs, oneCall, pressHubButton, ROLES, saveExamSettings, setInstitution, withRoles, type Derived, type Flavor } from '../../helpers/launches.js';
import { continueFromNotice, noticeFormOf } from '../../helpers/lti-flow.js';
import { platformKey } from '../../../src/lti/identifiers.js';
import { invalidateReadCaches } from '../../../src/db/read-cache.js';

const FLAVORS: readonly Flavor[] = ['canvas', 'moodle'];
// The smallest valid PNG (1×1, transparent).
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

describe('live, launchpad, course exam list and settings-derived fields', () => {
  let app: TestApp;
  let d: Derived;
  let issuer: string;
  let clientId: string;
  let exam: { id: string; settings: Record<string, unknown> | null };
  let sectionId: string;

  before(async () => {
    app = await startTestApp();
    d = await derived(app);
    ({ issuer, clientId } = app.tool.sandbox!.demoLms.registration);
    exam = await demoExam(app);
    sectionId = d.sectionId(issuer, '1', 'course-101');
  });
  after(async () => {
    await app.close();
  });

  describe('launchpad (course navigation, custom placement=launchpad)', () => {
    for (const flavor of FLAVORS) {
      it(`${flavor}-like instructor → launchpad with the course's exam roster and roster`, async () => {
        const { result, body } = await oneCall(app, '/v2/live/launchpad', () => launchAs(app, { user: 'instructor', flavor, kind: 'course', presentation: 'window' }));
        assert.equal(result.response.status, 302, result.response.text.slice(0, 300));
        assert.ok((result.response.headers.location as string).startsWith(`${app.baseUrl}/sandbox/proctoring/session/`));
        await d.checkHostedUrl(body.exam_roster, 'exam-roster', sectionId, 3600);
        await d.checkHostedUrl(body.roster_url, 'roster', sectionId, 3600);
        assert.deepEqual(body, { user_id: d.userId(issuer, '3'), exam_roster: body.exam_roster, roster_url: body.roster_url });
        assert.ok(validateLaunchpad(body).ok);
      });
    }

    it('canvas-like proctor (platform proctor role) → launchpad, with the institution proctor settings', async () => {
      await setInstitution(app, { proctorRoles: [ROLES.contentDeveloper], proctorSettings: { break_allowed: true, kickout_allowed: false } });
      try {
        const { body } = await oneCall(app, '/v2/live/launchpad', () => launchAs(app, { user: 'proctor', flavor: 'canvas', kind: 'course', presentation: 'window' }));
        assert.deepEqual(body.proctor_settings, { break_allowed: true, kickout_allowed: false });
        assert.equal(body.user_id, d.userId(issuer, '6'));
      } finally {
        await setInstitution(app, {});
      }
    });

    // ltijs drops Canvas's placement claim: the tool reads it from the verified id_token itself, so a course
    // navigation entry without the custom parameter (e.g. added by hand to a developer key) still works.
    const placementClaimOnly = (claims: JWTPayload) => {
      assert.equal(claims[CLAIMS.placement], 'course_navigation');
      const custom = claims[CLAIMS.custom] as Record<string, string> | undefined;
      if (custom) delete custom.placement;
    };

    it("canvas-like instructor in course navigation known only from Canvas's placement claim → launchpad", async () => {
      const { result, body } = await oneCall(app, '/v2/live/launchpad', () =>
        launchAs(app, { user: 'instructor', flavor: 'canvas', kind: 'course', presentation: 'window', claims: placementClaimOnly }),
      );
      assert.equal(result.response.status, 302, result.response.text.slice(0, 300));
      assert.deepEqual(body, { user_id: d.userId(issuer, '3'), exam_roster: body.exam_roster, roster_url: body.roster_url });
    });

    it("canvas-like student in course navigation known only from Canvas's placement claim → the course's exam list", async () => {
      const { result, calls } = await callsDuring(app, () =>
        launchAs(app, { user: 'student', flavor: 'canvas', kind: 'course', presentation: 'window', claims: placementClaimOnly }),
      );
      assert.equal(calls.length, 0);
      assert.equal(result.response.status, 200);
      assert.match(result.response.text, /Midterm exam<\/button>/);
    });

    it('a designer (cannot proctor) in course navigation is refused', async () => {
      // The sandbox makes ContentDeveloper a proctor role: here the institution names none.
      const institutions = createInstitutionSettingsStore(app.db);
      const seeded = await institutions.get(issuer, clientId);
      await institutions.update(issuer, clientId, { proctorRoles: [] });
      try {
        const { result, calls } = await callsDuring(app, () => launchAs(app, { user: 'instructor', flavor: 'canvas', kind: 'course', presentation: 'window', claims: withRoles(ROLES.contentDeveloper) }));
        assert.equal(result.response.status, 403);
        assert.equal(calls.length, 0);
      } finally {
        await institutions.update(issuer, clientId, { proctorRoles: seeded.proctorRoles });
      }
    });

    it('framed course navigation moves the top window to the launchpad', async () => {
      const { result } = await oneCall(app, '/v2/live/launchpad', () => launchAs(app, { user: 'instructor', flavor: 'moodle', kind: 'course', presentation: 'iframe' }));
      assert.equal(result.response.status, 200);
      assert.match(result.response.text, /target="_top"/);
    });
  });

  describe('students at course level', () => {
    for (const flavor of FLAVORS) {
      it(`${flavor}-like student → the course's exams with links; a link starts the candidate launch without the LMS`, async () => {
        // A second exam in the course that is not set up yet: listed, without a link.
        await app.db.query(
          `INSERT INTO exams (id, issuer, client_id, deployment_id, context_id, resource_link_id, title) VALUES (gen_random_uuid(), $1, $2, '1', 'course-101', 'exam-later', 'Later quiz')
           ON CONFLICT DO NOTHING`,
          [issuer, clientId],
        );
        const { result: list, calls } = await callsDuring(app, () => launchAs(app, { user: 'student', flavor, kind: 'course', presentation: 'window' }));
        assert.equal(calls.length, 0);
        assert.equal(list.response.status, 200);
        assert.match(list.response.text, /Midterm exam<\/button>/);
        assert.match(list.response.text, /Later quiz<\/span> <span class="muted">\(Not set up yet\)/);
        const start = new RegExp(`<form method="post" action="(/lti/course/exams/${exam.id}/start)"[^>]*>\\s*<input type="hidden" name="ltik" value="([^"]+)">`).exec(list.response.text);
        assert.ok(start, 'a button posting the session to start the configured exam');
        assert.equal(start[2], list.ltik);
        const { result, body } = await oneCall(app, '/v2/candidate/launch', async () => {
          const started = await list.agent.post(start[1]!).type('form').send({ ltik: start[2] });
          // The student's first start of the exam shows the privacy notice, whose button goes on (later starts go straight in).
          return noticeFormOf(started) ? continueFromNotice(list.agent, started) : started;
        });
        assert.equal(result.status, 302);
        assert.equal(body.user_id, d.userId(issuer, '5'));
        assert.equal(body.exam_tag, d.examTag(issuer, '1', 'exam-midterm'));
        assert.equal(body.section_id, sectionId);
        await d.checkHostedUrl(body.roster_url, 'roster', sectionId, 18000);
      });
    }

    it('an instructor session cannot use the student start link', async () => {
      const launched = await launchAs(app, { user: 'instructor', flavor: 'canvas', presentation: 'window' });
      const { result, calls } = await callsDuring(app, () => launched.agent.post(`/lti/course/exams/${exam.id}/start`).type('form').send({ ltik: launched.ltik }));
      assert.equal(result.status, 403);
      assert.equal(calls.length, 0);
    });
  });

  describe('fields from institution and exam settings', () => {
    it('candidate: branding (logo only once uploaded), domain, extension allowlist, pre/post auth, breaks, expire', async () => {
      await setInstitution(app, {
        branding: { primary_color: '0b5cad', secondary_color: 'f2a900' },
        domain: 'exams.college.example',
        extensionAllowlist: ['a'.repeat(32)],
        preAuth: 'https://sso.college.example/pre',
        postAuth: 'https://sso.college.example/post',
      });
      await saveExamSettings(app, exam.id, { ...exam.settings, expire: 5400, break_settings: { number: 2, duration: 10, cumulative: true } });
      try {
        const first = await oneCall(app, '/v2/candidate/launch', () => launchAs(app, { user: 'student', flavor: 'canvas', presentation: 'window' }));
        assert.deepEqual(first.body.branding, { primary_color: '0b5cad', secondary_color: 'f2a900' }, 'no logo uploaded: no logo_url');
        assert.equal(first.body.domain, 'exams.college.example');
        assert.equal(first.body.extension_allowlist_url, `${app.baseUrl}/hosted/extension-allowlist/${platformKey(issuer, clientId)}`);
        assert.equal(first.body.pre_auth, 'https://sso.college.example/pre');
        assert.equal(first.body.post_auth, 'https://sso.college.example/post');
        assert.equal(first.body.expire, 5400);
        assert.deepEqual(first.body.break_settings, { number: 2, duration: 10, cumulative: true });
        await d.checkHostedUrl(first.body.roster_url, 'roster', sectionId, 5400);

        await createLogoStore(app.db).save(issuer, clientId, PNG);
        const second = await oneCall(app, '/v2/candidate/launch', () => launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window' }));
        assert.deepEqual(second.body.branding, { primary_color: '0b5cad', secondary_color: 'f2a900', logo_url: `${app.baseUrl}/hosted/logo/${platformKey(issuer, clientId)}` });
      } finally {
        await setInstitution(app, {});
        await saveExamSettings(app, exam.id, exam.settings);
      }
    });

    it('reviewer and live: behaviour settings, exam proctor settings over the institution, expire within the staff range', async () => {
      await setInstitution(app, { proctorSettings: { break_allowed: true, interrupt_allowed: false }, domain: 'exams.college.example' });
      const behavior = { frame_metrics: { navigating_away: 4 }, exam_metrics: { exam_collusion: true } };
      await saveExamSettings(app, exam.id, { ...exam.settings, expire: 1800, behavior_settings: behavior, proctor_settings: { interrupt_allowed: true } });
      try {
        const hub = await launchAs(app, { user: 'instructor', flavor: 'canvas', presentation: 'window' });
        const reviewer = await oneCall(app, '/v2/reviewer/launch', () => pressHubButton(hub, 'review'));
        assert.equal(reviewer.body.expire, 1800);
        assert.deepEqual(reviewer.body.behavior_settings, behavior);
        assert.equal(reviewer.body.domain, 'exams.college.example');
        await d.checkHostedUrl(reviewer.body.roster_url, 'roster', sectionId, 1800);
        const live = await oneCall(app, '/v2/live/launch', () => pressHubButton(hub, 'live'));
        assert.deepEqual(live.body.proctor_settings, { break_allowed: true, interrupt_allowed: true });
        assert.deepEqual(live.body.behavior_settings, behavior);
        assert.equal(live.body.exam_name, 'Midterm exam');
        assert.equal(live.body.expire, 1800);

        // An exam expire beyond the staff range is left to the service's default (3600).
        await saveExamSettings(app, exam.id, { ...exam.settings, expire: 7200 });
        const long = await oneCall(app, '/v2/reviewer/launch', () => pressHubButton(hub, 'review'));
        assert.equal(long.body.expire, undefined);
        await d.checkHostedUrl(long.body.roster_url, 'roster', sectionId, 3600);
      } finally {
        await setInstitution(app, {});
        await saveExamSettings(app, exam.id, exam.settings);
      }
    });

    it('display_name only when the platform gives no Names and Roles, and it is never stored', async () => {
      const noNrps = (claims: JWTPayload) => {
        delete claims[CLAIMS.nrps];
        const custom = claims[CLAIMS.custom] as Record<string, string> | undefined;
        if (custom) delete custom.context_memberships_url;
      };
      const without = await oneCall(app, '/v2/candidate/launch', () => launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window', claims: noNrps }));
      assert.equal(without.body.display_name, 'María José Núñez');
      const withNrps = await oneCall(app, '/v2/candidate/launch', () => launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window' }));
      assert.equal(withNrps.body.display_name, undefined);
      await app.tool.launchesRecorded();
      for (const table of ['attempts', 'launch_log', 'exams']) {
        const dump = await app.db.query<{ row: string }>(`SELECT row_to_json(t)::text AS row FROM ${table} t`);
        assert.equal(dump.rows.some((r) => r.row.includes('Núñez') || r.row.includes('N\\u00fa\\u00f1ez')), false, `${table} holds no name`);
      }
    });

    it('a closed exam: a clear page, nothing sent upstream', async () => {
      await app.db.query("UPDATE exams SET status = 'closed' WHERE id = $1", [exam.id]);
      invalidateReadCaches(); // written with SQL: this process's cached exam reads see it at once
      try {
        const { result, calls } = await callsDuring(app, () => launchAs(app, { user: 'student', flavor: 'canvas', presentation: 'window' }));
        assert.equal(result.response.status, 409);
        assert.match(result.response.text, /not open for students/);
        assert.doesNotMatch(result.response.text, /incident id/i, 'an ordinary page, not an incident to quote');
        assert.equal(calls.length, 0);
        const hub = await launchAs(app, { user: 'instructor', flavor: 'canvas', presentation: 'window' });
        assert.match(hub.response.text, /data-exam-status="closed"/);
      } finally {
        await app.db.query("UPDATE exams SET status = 'open' WHERE id = $1", [exam.id]);
        invalidateReadCaches(); // written with SQL: this process's cached exam reads see it at once
      }
    });
  });
});
