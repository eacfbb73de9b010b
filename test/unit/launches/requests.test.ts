import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_INSTITUTION_SETTINGS, type InstitutionSettings } from '../../../src/institution/settings.js';
import {
  brandingOf,
  candidateRequest,
  displayNameFor,
  expireFor,
  launchpadRequest,
  linkTtlSeconds,
  liveRequest,
  proctorSettingsOf,
  redirectOf,
  reviewerRequest,
} from '../../../src/launches/requests.js';
import { isTestLaunch } from '../../../src/launches/service.js';
import { readSettingsDocument, validateSettingsDocument, type ExamSettingsDocument } from '../../../src/exams/settings/document.js';
import { EXAM_SETTINGS_OFF, validateCandidateLaunch, validateLaunchpad, validateLiveLaunch, validateReviewerLaunch } from '../../../src/proctoring/contract.js';

const QUIZ = 'https://moodle.example.edu/mod/quiz/view.php?id=7';
const PAGES = {
  launch_url: QUIZ,
  exam_start: '^https://moodle\\.example\\.edu/mod/quiz/view\\.php\\?id=7$',
  exam_take: '^https://moodle\\.example\\.edu/mod/quiz/attempt\\.php.*',
  exam_end: '^https://moodle\\.example\\.edu/mod/quiz/review\\.php.*',
};
const SETTINGS = { ...EXAM_SETTINGS_OFF, record_video: true, verify_video: true, calculator: 2 };
const IDS = { userId: '0c1f6b0e-1b2a-8c3d-9e4f-0123456789ab', examTag: 'ex-abcdefghijklmnopqrstuvwxyz', sectionId: 'sec-abcdefghijklmnopqrstuvwxyz' };
const ROSTER = 'https://tool.example.edu/hosted/roster?t=token';
const RETURN = { graceful: 'https://tool.example.edu/return/a/submitted?sig=x', ungraceful: 'https://tool.example.edu/return/a/ended?sig=y' };
const ATTEMPT = '5e0b7c1a-8f5e-4f7e-9d6a-3b2c1d0e9f8a';

const institution = (change: Partial<InstitutionSettings> = {}): InstitutionSettings => ({ ...DEFAULT_INSTITUTION_SETTINGS, ...change });
/** The parsed settings document of the exam, with a change: the requests are built from parsed documents only. */
const config = (change: Record<string, unknown> = {}): ExamSettingsDocument => {
  const parsed = validateSettingsDocument({ ...PAGES, exam_settings: SETTINGS, ...change });
  assert.ok(parsed.ok, JSON.stringify(!parsed.ok && parsed.violations));
  return parsed.value;
};

describe('stored documents that are not a set-up exam', () => {
  const table: [string, Record<string, unknown>][] = [
    ['empty settings', {}],
    ['pages without exam_settings', { ...PAGES }],
    ['exam_settings without launch_url', { ...PAGES, launch_url: undefined, exam_settings: SETTINGS }],
    ['empty exam_end', { ...PAGES, exam_end: '', exam_settings: SETTINGS }],
    ['exam_settings not an object', { ...PAGES, exam_settings: [] }],
  ];
  for (const [name, settings] of table) {
    it(`${name} → refused on read, with what is wrong`, () => {
      const read = readSettingsDocument(settings);
      assert.equal(read.ok, false);
      assert.ok(!read.ok && read.violations.length > 0);
    });
  }
  it('pages and exam_settings → a document', () => assert.equal(readSettingsDocument({ ...PAGES, exam_settings: SETTINGS }).ok, true));
});

describe('redirectOf', () => {
  it('reads the tool options: redirect mode and address, back to the course by default', () => {
    assert.deepEqual(redirectOf(null), { mode: 'lms' });
    assert.deepEqual(redirectOf(config()), { mode: 'lms' });
    assert.deepEqual(redirectOf(config({ tool: { redirect: 'message' } })), { mode: 'message' });
    assert.deepEqual(redirectOf(config({ tool: { redirect: 'url', redirect_url: 'https://x.example/done' } })), { mode: 'url', url: 'https://x.example/done' });
    assert.equal(validateSettingsDocument({ ...PAGES, exam_settings: SETTINGS, tool: { redirect: 'bogus' } }).ok, false, 'an unknown mode never reaches a launch');
  });
});

describe('expire', () => {
  const table: ['candidate' | 'staff', number | undefined, number | undefined][] = [
    ['candidate', undefined, undefined],
    ['candidate', 1, 1],
    ['candidate', 18000, 18000],
    ['candidate', 18001, undefined],
    ['candidate', 0, undefined],
    ['candidate', 7200.5, undefined],
    ['staff', 3600, 3600],
    ['staff', 7200, undefined],
    ['staff', 60, 60],
  ];
  for (const [endpoint, exam, expected] of table) {
    it(`${endpoint} with exam expire ${exam} → ${expected ?? 'omitted'}`, () => assert.equal(expireFor(endpoint, exam), expected));
  }
  it('roster links live as long as the URL they go with', () => {
    assert.equal(linkTtlSeconds('candidate', undefined), 18000);
    assert.equal(linkTtlSeconds('staff', undefined), 3600);
    assert.equal(linkTtlSeconds('candidate', 600), 600);
  });
});

describe('branding, proctor settings, display name', () => {
  it('branding: the institution colours and the logo endpoint, nothing when nothing is set', () => {
    assert.equal(brandingOf(institution(), undefined), undefined);
    assert.deepEqual(brandingOf(institution({ branding: { primary_color: '0b5cad' } }), undefined), { primary_color: '0b5cad' });
    assert.deepEqual(brandingOf(institution({ branding: { primary_color: '0b5cad', secondary_color: 'ffffff' } }), 'https://t.example/hosted/logo/k'), {
      primary_color: '0b5cad',
      secondary_color: 'ffffff',
      logo_url: 'https://t.example/hosted/logo/k',
    });
  });

  it('proctor settings: the exam wins member by member, the institution fills the rest', () => {
    assert.equal(proctorSettingsOf(institution(), undefined), undefined);
    assert.deepEqual(proctorSettingsOf(institution({ proctorSettings: { break_allowed: true, kickout_allowed: false } }), { kickout_allowed: true }), {
      break_allowed: true,
      kickout_allowed: true,
    });
  });

  const names: [string, { namesRolesUrl?: string; displayName?: string }, string | undefined][] = [
    ['with Names and Roles: never', { namesRolesUrl: 'https://lms/nrps', displayName: 'Ana' }, undefined],
    ['without Names and Roles: the name claim', { displayName: 'Ana Núñez' }, 'Ana Núñez'],
    ['trimmed', { displayName: '  Ana  ' }, 'Ana'],
    ['blank: nothing', { displayName: '   ' }, undefined],
    ['no name: nothing', {}, undefined],
    ['cut to 100 characters (code points)', { displayName: '名'.repeat(150) }, '名'.repeat(100)],
  ];
  for (const [name, input, expected] of names) {
    it(`display_name ${name}`, () => assert.equal(displayNameFor(input), expected));
  }

  // The contract counts JavaScript characters (UTF-16 code units): a name outside the Basic Multilingual
  // Plane must be cut by that count, never in the middle of a character, or the request is refused.
  const long: [string, string, string][] = [
    ['CJK Extension B (two code units each)', '𠀋'.repeat(80), '𠀋'.repeat(50)],
    ['emoji after 99 letters', `${'a'.repeat(99)}😀b`, 'a'.repeat(99)],
    ['mixed, cut on a character boundary', `${'é'.repeat(97)}𝔸𝔸𝔸`, `${'é'.repeat(97)}𝔸`],
  ];
  for (const [name, text, expected] of long) {
    it(`display_name and exam_name cut to the contract's 100: ${name}`, () => {
      const displayName = displayNameFor({ displayName: text });
      assert.equal(displayName, expected);
      const candidate = candidateRequest(config(), { ids: IDS, institution: institution(), attemptId: ATTEMPT, returnLinks: RETURN, rosterUrl: ROSTER, displayName });
      assert.deepEqual(validateCandidateLaunch(candidate), { ok: true, value: candidate });
      const live = liveRequest(null, { examName: text, ids: IDS, institution: institution(), rosterUrl: ROSTER });
      assert.equal(live.exam_name, expected);
      assert.ok(validateLiveLaunch(live).ok);
    });
  }
});

describe('request builders', () => {
  it('candidate: every field from its source, valid against the contract', () => {
    const request = candidateRequest(config({ expire: 5400, break_settings: { number: 2, duration: 10 }, pre_auth_bypass: false }), {
      ids: IDS,
      institution: institution({ branding: { primary_color: '0b5cad' }, domain: 'exams.example.edu', extensionAllowlist: ['a'.repeat(32)], preAuth: 'https://sso.example.edu/pre', postAuth: 'https://sso.example.edu/post' }),
      attemptId: ATTEMPT,
      returnLinks: RETURN,
      rosterUrl: ROSTER,
      logoUrl: 'https://tool.example.edu/hosted/logo/k',
      extensionAllowlistUrl: 'https://tool.example.edu/hosted/extension-allowlist/k',
      displayName: 'Ana',
    });
    assert.deepEqual(request, {
      ...PAGES,
      exam_settings: SETTINGS,
      user_id: IDS.userId,
      exam_tag: IDS.examTag,
      section_id: IDS.sectionId,
      roster_url: ROSTER,
      attempt_id: ATTEMPT,
      redirect_url: RETURN.graceful,
      redirect_settings: { graceful_submission_url: RETURN.graceful, ungraceful_submission_url: RETURN.ungraceful },
      expire: 5400,
      pre_auth: 'https://sso.example.edu/pre',
      post_auth: 'https://sso.example.edu/post',
      pre_auth_bypass: false,
      break_settings: { number: 2, duration: 10 },
      branding: { primary_color: '0b5cad', logo_url: 'https://tool.example.edu/hosted/logo/k' },
      domain: 'exams.example.edu',
      extension_allowlist_url: 'https://tool.example.edu/hosted/extension-allowlist/k',
      display_name: 'Ana',
    });
    assert.ok(validateCandidateLaunch(request).ok);
  });

  it('candidate: the minimum when the institution sets nothing', () => {
    const request = candidateRequest(config(), { ids: IDS, institution: institution(), attemptId: ATTEMPT, returnLinks: RETURN, rosterUrl: ROSTER, extensionAllowlistUrl: 'https://t/x' });
    assert.deepEqual(Object.keys(request).sort(), ['attempt_id', 'exam_end', 'exam_settings', 'exam_start', 'exam_tag', 'exam_take', 'launch_url', 'redirect_settings', 'redirect_url', 'roster_url', 'section_id', 'user_id']);
    assert.ok(validateCandidateLaunch(request).ok);
  });

  it("candidate: the exam's own pre_auth wins over the institution's, and takes its post_auth with it", () => {
    const request = candidateRequest(config({ pre_auth: 'https://exam.example/pre' }), {
      ids: IDS,
      institution: institution({ preAuth: 'https://sso.example/pre', postAuth: 'https://sso.example/post' }),
      attemptId: ATTEMPT,
      returnLinks: RETURN,
      rosterUrl: ROSTER,
    });
    assert.equal(request.pre_auth, 'https://exam.example/pre');
    assert.equal(request.post_auth, undefined);
  });

  it('reviewer: exam settings and behaviour, branding and domain; every setting off when not set up', () => {
    const behavior = { exam_metrics: { exam_collusion: true } };
    const request = reviewerRequest(config({ behavior_settings: behavior, expire: 900 }), { ids: IDS, institution: institution({ domain: 'exams.example.edu' }), rosterUrl: ROSTER });
    assert.deepEqual(request, { user_id: IDS.userId, exam_settings: SETTINGS, exam_tag: IDS.examTag, section_id: IDS.sectionId, roster_url: ROSTER, expire: 900, behavior_settings: behavior, domain: 'exams.example.edu' });
    assert.ok(validateReviewerLaunch(request).ok);
    const unconfigured = reviewerRequest(null, { ids: IDS, institution: institution(), rosterUrl: ROSTER });
    assert.deepEqual(unconfigured.exam_settings, EXAM_SETTINGS_OFF);
    assert.ok(validateReviewerLaunch(unconfigured).ok);
  });

  it('live: exam name, proctor settings from exam and institution, the same tag and section', () => {
    const request = liveRequest(config({ proctor_settings: { kickout_allowed: true } }), { examName: '  Midterm  ', ids: IDS, institution: institution({ proctorSettings: { break_allowed: true } }), rosterUrl: ROSTER });
    assert.deepEqual(request, { user_id: IDS.userId, exam_tag: IDS.examTag, section_id: IDS.sectionId, roster_url: ROSTER, exam_name: 'Midterm', proctor_settings: { break_allowed: true, kickout_allowed: true } });
    assert.ok(validateLiveLaunch(request).ok);
    assert.equal(liveRequest(null, { examName: 'x'.repeat(300), ids: IDS, institution: institution(), rosterUrl: ROSTER }).exam_name?.length, 100);
  });

  it('launchpad: exam roster and roster of the course, institution proctor settings', () => {
    const request = launchpadRequest({ userId: IDS.userId, institution: institution({ proctorSettings: { desk_scan_allowed: true } }), examRosterUrl: 'https://t/hosted/exam-roster?t=x', rosterUrl: ROSTER });
    assert.deepEqual(request, { user_id: IDS.userId, exam_roster: 'https://t/hosted/exam-roster?t=x', roster_url: ROSTER, proctor_settings: { desk_scan_allowed: true } });
    assert.ok(validateLaunchpad(request).ok);
  });
});

describe('test users', () => {
  const cases: { name: string; custom: Record<string, string>; isTestUser: boolean; expected: boolean }[] = [
    { name: 'TestUser role', custom: {}, isTestUser: true, expected: true },
    { name: "Canvas's $Canvas.user.isFakeStudent custom field", custom: { canvas_user_is_test: 'true' }, isTestUser: false, expected: true },
    { name: 'the field false', custom: { canvas_user_is_test: 'false' }, isTestUser: false, expected: false },
    { name: 'an unsubstituted variable (another LMS)', custom: { canvas_user_is_test: '$Canvas.user.isFakeStudent' }, isTestUser: false, expected: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(isTestLaunch({ custom: c.custom }, { isTestUser: c.isTestUser }), c.expected);
    });
  }
});

// One mapping function per endpoint: each row is a settings document (or none) and the request members
// the endpoint must carry, or must not carry, from it. Every request built is valid against the contract.
describe('one mapping per endpoint, from the parsed document', () => {
  const behavior = { frame_metrics: { keystrokes: 4 }, exam_metrics: { exam_collusion: true } };
  const breaks = { number: 3, duration: 15, cumulative: false, on_time_exceeded: 1 as const, desk_scan_after_break: true };
  const tool = { redirect: 'url' as const, redirect_url: 'https://college.example.edu/after', lms_preset: 'moodle', security_preset: 'standard' };
  type Row = { name: string; document: ExamSettingsDocument | null; has: Record<string, unknown>; lacks: string[] };
  const full = () => config({ expire: 3000, behavior_settings: behavior, proctor_settings: { interrupt_allowed: false }, break_settings: breaks, pre_auth_bypass: true, tool });

  const endpoints: Record<'candidate' | 'reviewer' | 'live', { build: (document: ExamSettingsDocument | null) => object; validate: (request: unknown) => { ok: boolean }; rows: Row[] }> = {
    candidate: {
      build: (document) => {
        assert.ok(document, 'a candidate launch needs a set-up exam');
        return candidateRequest(document, { ids: IDS, institution: institution(), attemptId: ATTEMPT, returnLinks: RETURN, rosterUrl: ROSTER });
      },
      validate: validateCandidateLaunch,
      rows: [
        { name: 'the minimum', document: config(), has: { ...PAGES, exam_settings: SETTINGS }, lacks: ['expire', 'break_settings', 'pre_auth_bypass', 'behavior_settings', 'proctor_settings', 'tool', 'version'] },
        {
          name: 'everything an exam sets',
          document: full(),
          has: { expire: 3000, break_settings: breaks, pre_auth_bypass: true, redirect_url: RETURN.graceful },
          lacks: ['behavior_settings', 'proctor_settings', 'tool', 'version'],
        },
      ],
    },
    reviewer: {
      build: (document) => reviewerRequest(document, { ids: IDS, institution: institution(), rosterUrl: ROSTER }),
      validate: validateReviewerLaunch,
      rows: [
        { name: 'an exam not set up', document: null, has: { exam_settings: EXAM_SETTINGS_OFF }, lacks: ['expire', 'behavior_settings'] },
        { name: 'the minimum', document: config(), has: { exam_settings: SETTINGS }, lacks: ['expire', 'behavior_settings', 'break_settings', 'launch_url'] },
        { name: 'everything an exam sets', document: full(), has: { exam_settings: SETTINGS, expire: 3000, behavior_settings: behavior }, lacks: ['proctor_settings', 'break_settings', 'tool', 'version'] },
      ],
    },
    live: {
      build: (document) => liveRequest(document, { examName: 'Midterm', ids: IDS, institution: institution(), rosterUrl: ROSTER }),
      validate: validateLiveLaunch,
      rows: [
        { name: 'an exam not set up', document: null, has: { exam_name: 'Midterm' }, lacks: ['expire', 'behavior_settings', 'proctor_settings', 'exam_settings'] },
        { name: 'everything an exam sets', document: full(), has: { expire: 3000, behavior_settings: behavior, proctor_settings: { interrupt_allowed: false } }, lacks: ['exam_settings', 'break_settings', 'tool', 'version'] },
      ],
    },
  };
  for (const [endpoint, { build, validate, rows }] of Object.entries(endpoints)) {
    for (const row of rows) {
      it(`${endpoint}: ${row.name}`, () => {
        const request: Record<string, unknown> = { ...build(row.document) };
        for (const [field, value] of Object.entries(row.has)) assert.deepEqual(request[field], value, field);
        for (const field of row.lacks) assert.equal(field in request, false, `${field} is not sent`);
        assert.equal(validate(request).ok, true);
      });
    }
  }
  it('launchpad: no exam, only the course and the institution', () => {
    const request = launchpadRequest({ userId: IDS.userId, institution: institution(), examRosterUrl: 'https://t/hosted/exam-roster?t=x', rosterUrl: ROSTER });
    assert.deepEqual(request, { user_id: IDS.userId, exam_roster: 'https://t/hosted/exam-roster?t=x', roster_url: ROSTER });
    assert.ok(validateLaunchpad(request).ok);
  });
});
