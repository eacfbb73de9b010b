import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { z } from 'zod';
import { propertyRuns } from '../../helpers/property-runs.js';
import { apiKeyFor } from '../../../src/proctoring/api-key.js';
import {
  EXAM_METRICS,
  EXAM_SETTINGS_MEMBERS,
  EXAM_SETTINGS_OFF,
  FRAME_METRICS,
  HOSTNAME,
  PROCTOR_SETTINGS,
  RESERVED_EXAM_TAGS,
  candidateLaunchSchema,
  isAbsoluteHttpUrl,
  launchpadSchema,
  liveLaunchSchema,
  reviewerLaunchSchema,
  ruleSentence,
  subscribeSchema,
  toViolations,
  validateBehaviorSettings,
  validateBreakSettings,
  validateCandidateLaunch,
  validateExamSettings,
  validateLaunchpad,
  validateLiveLaunch,
  validateProctorSettings,
  validateReviewerLaunch,
  validateSubscribe,
  validateUnsubscribe,
  type Rule,
  type ValidationResult,
  type Violation,
} from '../../../src/proctoring/contract.js';
import { FIELD_LABELS, fieldLabel } from '../../../src/proctoring/labels.js';
import {
  behaviorSettingsArb,
  breakSettingsArb,
  candidateArb,
  candidateRequest,
  examSettingsArb,
  launchpadArb,
  liveArb,
  reviewerArb,
  subscribeArb,
} from '../../helpers/proctoring.js';

type Kind = 'candidate' | 'reviewer' | 'live' | 'launchpad' | 'subscribe';
type Loose = Record<string, unknown>;

const ARBITRARIES: Record<Kind, fc.Arbitrary<object>> = {
  candidate: candidateArb,
  reviewer: reviewerArb,
  live: liveArb,
  launchpad: launchpadArb,
  subscribe: subscribeArb,
};
const VALIDATORS: Record<Kind, (body: unknown) => ValidationResult<unknown>> = {
  candidate: validateCandidateLaunch,
  reviewer: validateReviewerLaunch,
  live: validateLiveLaunch,
  launchpad: validateLaunchpad,
  subscribe: validateSubscribe,
};

const DELETE = Symbol('delete');

/** Sets (or deletes) a dotted path, creating the objects on the way. */
function setPath(target: Loose, path: string, value: unknown): void {
  const parts = path.split('.');
  let current: Loose = target;
  for (const part of parts.slice(0, -1)) {
    if (typeof current[part] !== 'object' || current[part] === null) current[part] = {};
    current = current[part] as Loose;
  }
  const last = parts.at(-1)!;
  if (value === DELETE) delete current[last];
  else current[last] = value;
}

interface Case {
  kind: Kind;
  rule: Rule;
  path: string;
  name: string;
  changes: [string, unknown][];
}

const cases: Case[] = [];
function breaks(kind: Kind | Kind[], rule: Rule, path: string, changes: [string, unknown][] | unknown, name?: string): void {
  const list = Array.isArray(changes) && changes.every((c) => Array.isArray(c) && typeof c[0] === 'string') ? (changes as [string, unknown][]) : [[path, changes] as [string, unknown]];
  for (const k of Array.isArray(kind) ? kind : [kind]) {
    cases.push({ kind: k, rule, path, changes: list, name: `${k}: ${name ?? `${path} = ${show(changes)}`} → ${rule}` });
  }
}
function show(value: unknown): string {
  if (value === DELETE) return '(missing)';
  const text = JSON.stringify(value);
  return text && text.length > 40 ? `${text.slice(0, 37)}…` : String(text);
}
const long = (n: number) => 'a'.repeat(n);
const longUrl = (n: number) => `https://example.edu/${'p'.repeat(n - 'https://example.edu/'.length)}`;
const STAFF: Kind[] = ['reviewer', 'live', 'launchpad'];

// Required fields per request (spec: "Required minimum bodies").
for (const field of ['launch_url', 'exam_start', 'exam_take', 'exam_end', 'exam_settings', 'user_id']) breaks('candidate', 'required', field, DELETE);
for (const field of ['user_id', 'exam_settings']) breaks('reviewer', 'required', field, DELETE);
breaks('live', 'required', 'user_id', DELETE);
for (const field of ['user_id', 'exam_roster']) breaks('launchpad', 'required', field, DELETE);
for (const field of ['type', 'client', 'client.url']) breaks('subscribe', 'required', field, DELETE);
for (const member of EXAM_SETTINGS_MEMBERS) breaks(['candidate', 'reviewer'], 'required', `exam_settings.${member}`, DELETE);
breaks('candidate', 'required', 'break_settings.number', [['break_settings', { duration: 5 }]], 'break_settings without number');
breaks('candidate', 'required', 'break_settings.duration', [['break_settings', { number: 2 }]], 'break_settings without duration');
breaks('candidate', 'required', 'exam_settings.allowed_windows_apps.0.company_name', [['exam_settings.allowed_windows_apps', [{ binary_name: 'a.exe', product_name: 'A' }]]], 'a Windows app without company_name');

// Types: int32 integers, strings, booleans, objects.
breaks('candidate', 'integer', 'expire', 1.5);
breaks('candidate', 'type', 'expire', '600');
breaks(STAFF, 'integer', 'expire', 60.25);
breaks('candidate', 'type', 'user_id', 12345);
breaks('candidate', 'type', 'exam_settings.record_video', 'yes');
breaks('candidate', 'type', 'exam_settings', 'all');
breaks('candidate', 'integer', 'exam_settings.calculator', 1.5);
breaks('candidate', 'type', 'exam_settings.full_screen', '1');
breaks('candidate', 'type', 'exam_settings.allowed_macos_apps', 'com.apple.calculator');
breaks('reviewer', 'integer', 'behavior_settings.frame_metrics.keystrokes', 2.5);
breaks('reviewer', 'type', 'behavior_settings.frame_metrics.keystrokes', { weight: 2 }, 'a weight sent as an object');
breaks('reviewer', 'type', 'behavior_settings.exam_metrics.clicking', 1);
breaks('live', 'type', 'proctor_settings.kickout_allowed', 'true');
breaks('candidate', 'integer', 'break_settings.number', [['break_settings', { number: 1.5, duration: 5 }]], 'break number 1.5');
breaks('candidate', 'type', 'pre_auth_bypass', 'false');

// Patterns.
breaks('candidate', 'pattern', 'user_id', 'user 1');
breaks(['reviewer', 'live', 'launchpad'], 'pattern', 'user_id', 'user_1');
breaks('candidate', 'pattern', 'attempt_id', 'attempt#1');
breaks('candidate', 'pattern', 'branding.primary_color', 'zzzzzz');
breaks('candidate', 'pattern', 'branding.secondary_color', '#12345');
breaks(['candidate', 'reviewer', 'live'], 'ascii_no_spaces', 'exam_tag', 'my exam');
breaks('candidate', 'ascii_no_spaces', 'exam_tag', 'exámen');
for (const word of RESERVED_EXAM_TAGS) breaks(['candidate', 'reviewer', 'live'], 'reserved_word', 'exam_tag', word);
breaks('reviewer', 'hostname', 'domain', 'https://exams.example.edu');

// Lengths (Limits table, and assumptions.ts where the spec says "not shown").
const lengths: [Kind | Kind[], string, number, Rule][] = [
  [['candidate', 'reviewer', 'live', 'launchpad'], 'user_id', 37, 'max_length'],
  [['candidate', 'reviewer', 'live', 'launchpad'], 'user_id', 0, 'min_length'],
  ['candidate', 'attempt_id', 37, 'max_length'],
  ['candidate', 'attempt_id', 0, 'min_length'],
  ['candidate', 'exam_take', 1001, 'max_length'],
  ['candidate', 'exam_take', 0, 'min_length'],
  ['candidate', 'exam_start', 601, 'max_length'],
  ['candidate', 'exam_start', 0, 'min_length'],
  ['candidate', 'exam_end', 601, 'max_length'],
  ['candidate', 'exam_end', 0, 'min_length'],
  [['candidate', 'reviewer'], 'domain', 101, 'max_length'],
  [['candidate', 'reviewer'], 'domain', 0, 'min_length'],
  ['candidate', 'display_name', 101, 'max_length'],
  ['candidate', 'display_name', 0, 'min_length'],
  [['candidate', 'reviewer', 'live'], 'exam_tag', 101, 'max_length'],
  [['candidate', 'reviewer', 'live'], 'exam_tag', 0, 'min_length'],
  [['candidate', 'reviewer'], 'branding.primary_color', 5, 'length'],
  [['candidate', 'reviewer'], 'branding.secondary_color', 7, 'length'],
  [['candidate', 'reviewer', 'live'], 'section_id', 101, 'max_length'],
  ['live', 'exam_name', 101, 'max_length'],
  ['live', 'exam_name', 0, 'min_length'],
  ['subscribe', 'client.key', 51, 'max_length'],
];
for (const [kind, path, n, rule] of lengths) {
  const value = path.endsWith('_color') ? '1'.repeat(n) : long(n);
  const changes: [string, unknown][] = [[path, value]];
  if (path === 'section_id') changes.push(['roster_url', 'https://tool.example.edu/roster']);
  breaks(kind, rule, path, changes, `${path} of ${n} characters`);
}
for (const field of ['binary_name', 'product_name', 'company_name']) {
  for (const [n, rule] of [
    [51, 'max_length'],
    [0, 'min_length'],
  ] as const) {
    const app = { binary_name: 'a.exe', product_name: 'A', company_name: 'B', [field]: long(n) };
    breaks('candidate', rule, `exam_settings.allowed_windows_apps.0.${field}`, [['exam_settings.allowed_windows_apps', [app]]], `Windows app ${field} of ${n} characters`);
  }
}
breaks('candidate', 'max_items', 'exam_settings.allowed_macos_apps', Array.from({ length: 11 }, (_, i) => `com.example.app${i}`), '11 macOS apps');
breaks(
  'candidate',
  'max_items',
  'exam_settings.allowed_windows_apps',
  Array.from({ length: 11 }, (_, i) => ({ binary_name: `a${i}.exe`, product_name: 'A', company_name: 'B' })),
  '11 Windows apps',
);

// URL fields: at most 600 characters (roster_url, logo_url, launch_url, pre_auth stated; others assumed), absolute http(s).
const urlFields: [Kind | Kind[], string][] = [
  ['candidate', 'launch_url'],
  ['candidate', 'pre_auth'],
  ['candidate', 'post_auth'],
  ['candidate', 'redirect_url'],
  ['candidate', 'redirect_settings.graceful_submission_url'],
  ['candidate', 'redirect_settings.ungraceful_submission_url'],
  ['candidate', 'extension_allowlist_url'],
  [['candidate', 'reviewer'], 'branding.logo_url'],
  [['candidate', 'reviewer', 'live', 'launchpad'], 'roster_url'],
  ['launchpad', 'exam_roster'],
  ['subscribe', 'client.url'],
];
for (const [kind, path] of urlFields) {
  const extra: [string, unknown][] = path === 'launch_url' ? [['exam_start', '.*']] : path === 'post_auth' ? [['pre_auth', 'https://lms.example.edu/login']] : [];
  breaks(kind, 'max_length', path, [[path, longUrl(601)], ...extra], `${path} of 601 characters`);
  breaks(kind, 'absolute_url', path, [[path, '/relative/path'], ...extra], `${path} relative`);
}
breaks('candidate', 'absolute_url', 'launch_url', [['launch_url', 'ftp://lms.example.edu/quiz'], ['exam_start', '.*']], 'launch_url with ftp:');
breaks('candidate', 'min_length', 'redirect_url', '', 'redirect_url empty');

// Ranges and enumerations.
breaks('candidate', 'range', 'expire', 0);
breaks('candidate', 'range', 'expire', 18001);
breaks(STAFF, 'range', 'expire', 3601);
breaks(STAFF, 'range', 'expire', 0);
for (const metric of FRAME_METRICS) {
  breaks(['reviewer', 'live', 'launchpad', 'subscribe'], 'range', `behavior_settings.frame_metrics.${metric}`, 6);
  breaks('reviewer', 'range', `behavior_settings.frame_metrics.${metric}`, -1);
}
for (const [field, low, high] of [
  ['number', 0, 11],
  ['duration', 0, 31],
] as const) {
  for (const value of [low, high]) {
    breaks('candidate', 'range', `break_settings.${field}`, [['break_settings', { number: 2, duration: 10, [field]: value }]], `break ${field} ${value}`);
  }
}
const enums: [string, unknown][] = [
  ['exam_settings.record_desk', 3],
  ['exam_settings.verify_id', 3],
  ['exam_settings.full_screen', 4],
  ['exam_settings.tabs', 3],
  ['exam_settings.calculator', 4],
  ['exam_settings.strict_apps_validation', 2],
  ['exam_settings.record_desk', -1],
];
for (const [path, value] of enums) breaks(['candidate', 'reviewer'], 'enum', path, value);
breaks('candidate', 'enum', 'break_settings.on_time_exceeded', [['break_settings', { number: 1, duration: 5, on_time_exceeded: 2 }]], 'on_time_exceeded 2');
breaks('subscribe', 'enum', 'version', '4');
breaks('subscribe', 'enum', 'type', '2');

// Regular expressions.
breaks('candidate', 'regex', 'exam_start', '(unclosed');
breaks('candidate', 'regex', 'exam_take', '[a-');
breaks('candidate', 'regex', 'exam_end', '(?<bad');
breaks('candidate', 'exam_start_must_match_launch_url', 'exam_start', [
  ['launch_url', 'https://other.example.org/quiz/1'],
  ['exam_start', '^https://lms\\.example\\.edu/'],
]);

// Prerequisites (spec: exam_settings table; candidate launch request).
const es = (changes: Record<string, unknown>): [string, unknown][] => Object.entries(changes).map(([k, v]) => [`exam_settings.${k}`, v]);
breaks(['candidate', 'reviewer'], 'record_desk_requires_video', 'exam_settings.record_desk', es({ record_desk: 1, record_video: false }), 'record_desk 1 without record_video');
breaks(['candidate', 'reviewer'], 'record_desk_requires_video', 'exam_settings.record_desk', es({ record_desk: 2, record_video: true, verify_video: false }), 'record_desk 2 without verify_video');
breaks(['candidate', 'reviewer'], 'verify_video_requires_record_video', 'exam_settings.verify_video', es({ verify_video: true, record_video: false }), 'verify_video without record_video');
breaks(['candidate', 'reviewer'], 'verify_audio_requires_record_audio', 'exam_settings.verify_audio', es({ verify_audio: true, record_audio: false }), 'verify_audio without record_audio');
breaks(['candidate', 'reviewer'], 'verify_desktop_requires_record_screen', 'exam_settings.verify_desktop', es({ verify_desktop: true, record_screen: false }), 'verify_desktop without record_screen');
breaks(['candidate', 'reviewer'], 'verify_id_2_requires_video', 'exam_settings.verify_id', es({ verify_id: 2, mobile: false, record_video: true, verify_video: false }), 'verify_id 2 without verify_video');
breaks(['candidate', 'reviewer'], 'verify_id_2_requires_video', 'exam_settings.verify_id', es({ verify_id: 2, mobile: false, record_video: false }), 'verify_id 2 without record_video');
for (const level of [1, 2, 3]) {
  breaks(['candidate', 'reviewer'], 'full_screen_requires_lockdown', 'exam_settings.full_screen', es({ full_screen: level, close_tabs: false }), `full_screen ${level} without close_tabs`);
  breaks(['candidate', 'reviewer'], 'full_screen_requires_lockdown', 'exam_settings.full_screen', es({ full_screen: level, one_screen: false }), `full_screen ${level} without one_screen`);
  breaks(['candidate', 'reviewer'], 'full_screen_requires_lockdown', 'exam_settings.full_screen', es({ full_screen: level, tabs: 2 }), `full_screen ${level} with tabs 2`);
  breaks(['candidate', 'reviewer'], 'full_screen_requires_lockdown', 'exam_settings.full_screen', es({ full_screen: level, tabs: 0 }), `full_screen ${level} with tabs 0`);
}
breaks(['candidate', 'reviewer'], 'live_proctor_requires_video', 'exam_settings.live_proctor', es({ live_proctor: true, verify_video: false }), 'live_proctor without verify_video');
breaks(['candidate', 'reviewer'], 'live_proctor_requires_video', 'exam_settings.live_proctor', es({ live_proctor: true, record_video: false }), 'live_proctor without record_video');
breaks('candidate', 'mobile_requires_pre_auth', 'exam_settings.mobile', [...es({ mobile: true, verify_id: 0 }), ['pre_auth', DELETE], ['post_auth', DELETE]], 'mobile without pre_auth');
breaks('candidate', 'mobile_excludes_verify_id_2', 'exam_settings.mobile', [...es({ mobile: true, verify_id: 2, record_video: true, verify_video: true }), ['pre_auth', 'https://lms.example.edu/login']], 'mobile with verify_id 2');
breaks('reviewer', 'mobile_excludes_verify_id_2', 'exam_settings.mobile', es({ mobile: true, verify_id: 2, record_video: true, verify_video: true }), 'mobile with verify_id 2');
breaks('candidate', 'post_auth_requires_pre_auth', 'post_auth', [['post_auth', 'https://lms.example.edu/after-login'], ['pre_auth', DELETE], ['exam_settings.mobile', false]], 'post_auth without pre_auth');
breaks(['candidate', 'reviewer', 'live'], 'section_id_requires_roster_url', 'section_id', [['section_id', 'course-1'], ['roster_url', DELETE]], 'section_id without roster_url');

// Unknown fields, including names renamed in earlier releases.
breaks(['candidate', 'reviewer'], 'unknown_field', 'exam_settings.clipboard', true, 'old name clipboard');
breaks('candidate', 'unknown_field', 'name', 'Ana', 'old name name');
breaks('candidate', 'unknown_field', 'behavior_settings', {}, 'behavior_settings on the candidate launch');
breaks('reviewer', 'unknown_field', 'behavior_settings.frame_metrics.multiple_face', 3, 'old name multiple_face');
breaks('launchpad', 'unknown_field', 'section_id', 'x', 'section_id on the launchpad');

describe('the Launch API contract: generated valid requests pass', () => {
  for (const kind of Object.keys(ARBITRARIES) as Kind[]) {
    it(`every generated ${kind} request is valid`, () => {
      fc.assert(
        fc.property(ARBITRARIES[kind], (request) => {
          const result = VALIDATORS[kind](request);
          assert.deepEqual(result.ok ? [] : result.violations, []);
        }),
        { numRuns: propertyRuns(300) },
      );
    });
  }

  it('generated settings pass their own validators', () => {
    fc.assert(
      fc.property(examSettingsArb, behaviorSettingsArb, breakSettingsArb, (exam, behavior, breaks_) => {
        assert.equal(validateExamSettings(exam).ok, true);
        assert.equal(validateBehaviorSettings(behavior).ok, true);
        assert.equal(validateBreakSettings(breaks_).ok, true);
      }),
      { numRuns: propertyRuns(300) },
    );
  });

  it('the hand-written examples and the all-off settings are valid', () => {
    assert.deepEqual(validateCandidateLaunch(candidateRequest()), { ok: true, value: candidateRequest() });
    assert.equal(validateExamSettings(EXAM_SETTINGS_OFF).ok, true);
    assert.equal(validateProctorSettings({ break_allowed: true }).ok, true);
    assert.equal(validateUnsubscribe({ id: 'abc' }).ok, true);
    assert.equal(validateUnsubscribe({ id: 17 }).ok, true);
    assert.equal(validateCandidateLaunch(candidateRequest({ exam_take: 'post_message_nofication', exam_end: 'post_message_nofication' })).ok, true);
  });

  it('names the single-page option in words, never by its API keyword, when a page pattern is refused', () => {
    const result = validateCandidateLaunch(candidateRequest({ exam_take: '(unclosed', exam_end: '(unclosed' }));
    assert.equal(result.ok, false);
    if (result.ok) return;
    const messages = result.violations.filter((v) => v.path === 'exam_take' || v.path === 'exam_end').map((v) => v.message);
    assert.equal(messages.length, 2, JSON.stringify(result.violations));
    for (const message of messages) {
      assert.match(message, /must be a valid regular expression .*\(or a post-message notification, for single-page exams\)\.$/);
      assert.doesNotMatch(message, /nofication|post_message/);
    }
  });
});

describe('the Launch API contract: every rule broken in an otherwise valid request', () => {
  for (const c of cases) {
    it(c.name, () => {
      fc.assert(
        fc.property(ARBITRARIES[c.kind], (valid) => {
          const request = structuredClone(valid) as Loose;
          for (const [path, value] of c.changes) setPath(request, path, value);
          const result = VALIDATORS[c.kind](request);
          assert.equal(result.ok, false, 'the request should be refused');
          if (result.ok) return;
          const hit = result.violations.find((v) => v.path === c.path && v.rule === c.rule);
          assert.ok(hit, `expected ${c.path} ${c.rule}, got ${JSON.stringify(result.violations)}`);
          assert.match(hit.message, /^[A-Z'].*\.$/);
          assert.doesNotMatch(hit.message, /undefined|\[object/);
        }),
        { numRuns: propertyRuns(25) },
      );
    });
  }
});

describe('violations', () => {
  it('lists every violation, not just the first', () => {
    const request = candidateRequest({
      user_id: 'not valid!',
      expire: 0,
      exam_tag: 'setup',
      exam_settings: { ...candidateRequest().exam_settings, full_screen: 3, tabs: 2, verify_audio: true, record_audio: false, calculator: 9 as 0 },
    });
    const result = validateCandidateLaunch(request);
    assert.equal(result.ok, false);
    if (result.ok) return;
    const found = result.violations.map((v) => `${v.path} ${v.rule}`).sort();
    assert.deepEqual(found, [
      'exam_settings.calculator enum',
      'exam_settings.full_screen full_screen_requires_lockdown',
      'exam_settings.verify_audio verify_audio_requires_record_audio',
      'exam_tag reserved_word',
      'expire range',
      'user_id pattern',
    ]);
  });

  it('says what an instructor should change, in their words', () => {
    const result = validateExamSettings({ ...EXAM_SETTINGS_OFF, full_screen: 1 });
    assert.deepEqual(result, {
      ok: false,
      violations: [
        {
          path: 'exam_settings.full_screen',
          rule: 'full_screen_requires_lockdown',
          message: "Full-screen removal needs 'Close other tabs', 'One screen only' and 'No new tabs'.",
        },
      ],
    });
    const range = validateCandidateLaunch(candidateRequest({ expire: 20000 }));
    assert.equal(range.ok ? '' : range.violations[0]?.message, "'Link validity (seconds)' must be between 1 and 18000.");
    const choice = validateExamSettings({ ...EXAM_SETTINGS_OFF, verify_id: 5 });
    assert.equal(choice.ok ? '' : choice.violations[0]?.message, "'ID check' must be one of 0 (Off), 1 (Scanned automatically), 2 (Reviewed by a person).");
  });

  it('reports a missing or non-object body at the root', () => {
    assert.deepEqual(validateLiveLaunch(undefined), { ok: false, violations: [{ path: '', rule: 'required', message: 'The request body is missing: send a JSON object.' }] });
    const wrong = validateLiveLaunch([]);
    assert.equal(wrong.ok ? '' : wrong.violations[0]?.rule, 'type');
  });

  it('the standalone validators keep the paths of a request', () => {
    const breaksResult = validateBreakSettings({ number: 11 });
    assert.deepEqual(breaksResult.ok ? [] : breaksResult.violations.map((v) => `${v.path} ${v.rule}`), ['break_settings.number range', 'break_settings.duration required']);
    const behavior = validateBehaviorSettings({ frame_metrics: { leaving_room: 9 } });
    assert.deepEqual(behavior.ok ? [] : behavior.violations.map((v) => v.path), ['behavior_settings.frame_metrics.leaving_room']);
  });
});

describe('labels', () => {
  it('every field of every request has a human label', () => {
    const paths: string[] = [];
    for (const schema of [candidateLaunchSchema, reviewerLaunchSchema, liveLaunchSchema, launchpadSchema, subscribeSchema]) paths.push(...Object.keys(schema.shape));
    paths.push(...EXAM_SETTINGS_MEMBERS.map((m) => `exam_settings.${m}`));
    paths.push(...FRAME_METRICS.map((m) => `behavior_settings.frame_metrics.${m}`));
    paths.push(...EXAM_METRICS.map((m) => `behavior_settings.exam_metrics.${m}`));
    paths.push(...PROCTOR_SETTINGS.map((m) => `proctor_settings.${m}`));
    paths.push('break_settings.number', 'break_settings.duration', 'break_settings.cumulative', 'break_settings.on_time_exceeded', 'break_settings.desk_scan_after_break');
    paths.push('branding.primary_color', 'branding.secondary_color', 'branding.logo_url', 'client.url', 'client.key');
    assert.equal(EXAM_SETTINGS_MEMBERS.length, 30);
    assert.equal(EXAM_METRICS.length, 14);
    assert.equal(FRAME_METRICS.length, 8);
    for (const path of paths) assert.ok(FIELD_LABELS[path], `no label for ${path}`);
  });

  it('labels array items by their field', () => {
    assert.equal(fieldLabel('exam_settings.allowed_windows_apps.3.binary_name'), 'Windows app file name');
  });
});

describe('apiKeyFor', () => {
  it('is consumer_key followed by the lowercase hex MD5 of the secret', () => {
    assert.equal(apiKeyFor({ consumerKey: 'ck-1', secret: 'secret' }), 'ck-15ebe2294ecd0e0f08eab7690d2a6ee69');
  });
  it('returns a ready API key as is', () => {
    assert.equal(apiKeyFor({ apiKey: 'ready' }), 'ready');
  });
});

// The sentences below are written out by hand: they are what an instructor reads beside a field.
const labelled = (path: string) => `'${fieldLabel(path)}'`;
const violationsOf = (result: ValidationResult<unknown>): Violation[] => (result.ok ? [] : result.violations);
const at = (result: ValidationResult<unknown>, path: string) => violationsOf(result).filter((v) => v.path === path);

describe('toViolations: each kind of zod issue in words', () => {
  const refused = (schema: z.ZodType, input: unknown, prefix?: string): Violation[] => {
    const result = schema.safeParse(input);
    assert.equal(result.success, false, 'the example must be refused');
    if (result.success) return [];
    // Without a prefix, called without one: the default is part of what is checked.
    return prefix === undefined ? toViolations(result.error.issues, input) : toViolations(result.error.issues, input, prefix);
  };
  const failing = (params?: object) => z.string().refine(() => false, params ? { params } : undefined);
  const table: [string, z.ZodType, unknown, string | undefined, Violation[]][] = [
    ['an unknown field at the root', z.strictObject({}), { x: 1 }, undefined, [{ path: 'x', rule: 'unknown_field', message: "'x' is not a field the proctoring service accepts." }]],
    ['an unknown field in a group', z.strictObject({ branding: z.strictObject({}) }), { branding: { x: 1 } }, undefined, [
      { path: 'branding.x', rule: 'unknown_field', message: `'x' is not a field the proctoring service accepts in ${labelled('branding')}.` },
    ]],
    ['an unknown field of standalone settings', z.strictObject({}), { x: 1 }, 'exam_settings', [
      { path: 'exam_settings.x', rule: 'unknown_field', message: `'x' is not a field the proctoring service accepts in ${labelled('exam_settings')}.` },
    ]],
    ['a missing field', z.object({ user_id: z.string() }), {}, undefined, [{ path: 'user_id', rule: 'required', message: `${labelled('user_id')} is required.` }]],
    ['a body that is not an object', z.object({}), [], undefined, [{ path: '', rule: 'type', message: 'The request body must be a group of settings (an object).', params: { expected: 'object' } }]],
    ['text expected', z.object({ user_id: z.string() }), { user_id: 5 }, undefined, [{ path: 'user_id', rule: 'type', message: `${labelled('user_id')} must be text.`, params: { expected: 'string' } }]],
    ['true or false expected, with the settings prefix', z.object({ record_video: z.boolean() }), { record_video: 'yes' }, 'exam_settings', [
      { path: 'exam_settings.record_video', rule: 'type', message: `${labelled('exam_settings.record_video')} must be true or false.`, params: { expected: 'boolean' } },
    ]],
    ['a number expected', z.object({ expire: z.number() }), { expire: 'x' }, undefined, [{ path: 'expire', rule: 'type', message: `${labelled('expire')} must be a whole number.`, params: { expected: 'number' } }]],
    ['a whole number expected, a fraction received', z.object({ expire: z.int() }), { expire: 1.5 }, undefined, [{ path: 'expire', rule: 'integer', message: `${labelled('expire')} must be a whole number.` }]],
    ['a whole number expected, text received', z.object({ expire: z.int() }), { expire: 'x' }, undefined, [{ path: 'expire', rule: 'type', message: `${labelled('expire')} must be a whole number.`, params: { expected: 'number' } }]],
    ['a list expected', z.object({ allowed_macos_apps: z.array(z.string()) }), { allowed_macos_apps: 'x' }, 'exam_settings', [
      { path: 'exam_settings.allowed_macos_apps', rule: 'type', message: `${labelled('exam_settings.allowed_macos_apps')} must be a list.`, params: { expected: 'array' } },
    ]],
    ['a type without words', z.object({ x: z.bigint() }), { x: 'y' }, undefined, [{ path: 'x', rule: 'type', message: "'x' must be bigint.", params: { expected: 'bigint' } }]],
    ['one of several texts', z.object({ type: z.literal(['a', 'b']) }), { type: 'c' }, undefined, [{ path: 'type', rule: 'enum', message: `${labelled('type')} must be one of 'a', 'b'.`, params: { values: 'a|b' } }]],
    ['one of several numbers without names', z.object({ x: z.literal([1, 2]) }), { x: 3 }, undefined, [{ path: 'x', rule: 'enum', message: "'x' must be one of 1, 2.", params: { values: '1|2' } }]],
    ['one of a number and a text', z.object({ x: z.literal([1, 'a']) }), { x: 'b' }, undefined, [{ path: 'x', rule: 'enum', message: "'x' must be one of 1, 'a'.", params: { values: '1|a' } }]],
    ['one of several numbers, text received', z.object({ x: z.literal([1, 2]) }), { x: '1' }, undefined, [{ path: 'x', rule: 'type', message: "'x' must be a whole number.", params: { expected: 'int' } }]],
    ['one of several numbers, a fraction received', z.object({ x: z.literal([1, 2]) }), { x: 1.5 }, undefined, [{ path: 'x', rule: 'integer', message: "'x' must be a whole number." }]],
    ['one of several numbers, missing', z.object({ x: z.literal([1, 2]) }), {}, undefined, [{ path: 'x', rule: 'required', message: "'x' is required." }]],
    ['too many entries', z.object({ x: z.array(z.string()).max(2) }), { x: ['a', 'b', 'c'] }, undefined, [{ path: 'x', rule: 'max_items', message: "'x' may list at most 2 entries.", params: { max: 2 } }]],
    ['too few entries', z.object({ x: z.array(z.string()).min(2) }), { x: ['a'] }, undefined, [{ path: 'x', rule: 'max_items', message: "'x' must list at least 2 entries.", params: { min: 2 } }]],
    ['text too long', z.object({ x: z.string().max(3) }), { x: 'abcd' }, undefined, [{ path: 'x', rule: 'max_length', message: "'x' must be at most 3 characters long.", params: { max: 3 } }]],
    ['text too short', z.object({ x: z.string().min(2) }), { x: 'a' }, undefined, [{ path: 'x', rule: 'min_length', message: "'x' must be at least 2 characters long.", params: { min: 2 } }]],
    ['a number too big', z.object({ x: z.number().max(5) }), { x: 6 }, undefined, [{ path: 'x', rule: 'range', message: "'x' must be at most 5.", params: { max: 5 } }]],
    ['a number too small', z.object({ x: z.number().min(1) }), { x: 0 }, undefined, [{ path: 'x', rule: 'range', message: "'x' must be at least 1.", params: { min: 1 } }]],
    ['neither of two types', z.object({ x: z.union([z.string(), z.number()]) }), { x: true }, undefined, [{ path: 'x', rule: 'type', message: "'x' has the wrong type." }]],
    ['neither of two types, missing', z.object({ x: z.union([z.string(), z.number()]) }), {}, undefined, [{ path: 'x', rule: 'required', message: "'x' is required." }]],
    ['a check without a rule', z.object({ x: failing() }), { x: 'a' }, undefined, [{ path: 'x', rule: 'type', message: "'x' is not valid." }]],
    ['an exact length', z.object({ x: failing({ rule: 'length', min: 3, max: 3 }) }), { x: 'a' }, undefined, [{ path: 'x', rule: 'length', message: "'x' must be exactly 3 characters long.", params: { min: 3, max: 3 } }]],
    ['not empty', z.object({ x: failing({ rule: 'min_length', min: 1 }) }), { x: '' }, undefined, [{ path: 'x', rule: 'min_length', message: "'x' must not be empty.", params: { min: 1 } }]],
    ['a least length', z.object({ x: failing({ rule: 'min_length', min: 4 }) }), { x: 'a' }, undefined, [{ path: 'x', rule: 'min_length', message: "'x' must be at least 4 characters long.", params: { min: 4 } }]],
    ['a most length', z.object({ x: failing({ rule: 'max_length', max: 9 }) }), { x: 'a' }, undefined, [{ path: 'x', rule: 'max_length', message: "'x' must be at most 9 characters long.", params: { max: 9 } }]],
    ['a lower bound', z.object({ x: failing({ rule: 'range', min: 0 }) }), { x: 'a' }, undefined, [{ path: 'x', rule: 'range', message: "'x' must be at least 0.", params: { min: 0 } }]],
    ['a range', z.object({ x: failing({ rule: 'range', min: 1, max: 5 }) }), { x: 'a' }, undefined, [{ path: 'x', rule: 'range', message: "'x' must be between 1 and 5.", params: { min: 1, max: 5 } }]],
    ['a pattern with its sentence ending', z.object({ x: failing({ rule: 'pattern', text: 'may contain only digits.' }) }), { x: 'a' }, undefined, [{ path: 'x', rule: 'pattern', message: "'x' may contain only digits." }]],
    ['a regular expression keeps its detail', z.object({ x: failing({ rule: 'regex', text: 'must be a valid regular expression.' }) }), { x: 'a' }, undefined, [
      { path: 'x', rule: 'regex', message: "'x' must be a valid regular expression.", params: { detail: 'must be a valid regular expression.' } },
    ]],
    ['a rule without an ending', z.object({ x: failing({ rule: 'hostname' }) }), { x: 'a' }, undefined, [{ path: 'x', rule: 'hostname', message: "'x' is not valid." }]],
    ['a whole sentence', z.object({ x: failing({ rule: 'post_auth_requires_pre_auth', message: 'Send a pre-authentication address too.' }) }), { x: 'a' }, undefined, [
      { path: 'x', rule: 'post_auth_requires_pre_auth', message: 'Send a pre-authentication address too.' },
    ]],
    ['an issue zod names otherwise', z.object({ x: z.email() }), { x: 'a' }, undefined, [{ path: 'x', rule: 'type', message: "'x' is not valid." }]],
    ['the same rule twice on one field', z.object({ x: z.string().refine(() => false, { params: { rule: 'pattern' } }).refine(() => false, { params: { rule: 'pattern' } }) }), { x: 'a' }, undefined, [
      { path: 'x', rule: 'pattern', message: "'x' is not valid." },
    ]],
  ];
  for (const [name, schema, input, prefix, expected] of table) {
    it(name, () => assert.deepEqual(refused(schema, input, prefix), expected));
  }

  it('reads the received value through anything that is not an object as missing', () => {
    const issue = (path: string[]): z.core.$ZodIssue => ({ code: 'invalid_type', expected: 'string', path, message: '', input: undefined });
    assert.deepEqual(toViolations([issue(['a', 'b'])], { a: 'text' }), [{ path: 'a.b', rule: 'required', message: "'b' is required." }]);
    assert.deepEqual(toViolations([issue(['a', 'b'])], { a: null }), [{ path: 'a.b', rule: 'required', message: "'b' is required." }]);
  });
});

describe('the contract: each field rule in its words', () => {
  const candidate = (overrides: Record<string, unknown>) => validateCandidateLaunch({ ...candidateRequest(), ...overrides });
  const staff = { user_id: 'reviewer1', exam_settings: EXAM_SETTINGS_OFF };
  const table: [string, ValidationResult<unknown>, string, Violation[]][] = [
    ['an address that is not http(s)', candidate({ launch_url: 'ftp://lms.example.edu/quiz', exam_start: '.*' }), 'launch_url', [
      { path: 'launch_url', rule: 'absolute_url', message: `${labelled('launch_url')} must be a full web address starting with https:// (or http://).` },
    ]],
    ['an identifier with a space', candidate({ attempt_id: 'a 1' }), 'attempt_id', [
      { path: 'attempt_id', rule: 'pattern', message: `${labelled('attempt_id')} may contain only letters, digits and hyphens.` },
    ]],
    ['a fraction of a second', candidate({ expire: 1.5 }), 'expire', [{ path: 'expire', rule: 'integer', message: `${labelled('expire')} must be a whole number.` }]],
    ['an exam tag with a space', candidate({ exam_tag: 'my exam' }), 'exam_tag', [
      { path: 'exam_tag', rule: 'ascii_no_spaces', message: `${labelled('exam_tag')} may contain only ASCII letters, digits and symbols, without spaces.` },
    ]],
    ['a reserved exam tag', candidate({ exam_tag: 'setup' }), 'exam_tag', [
      { path: 'exam_tag', rule: 'reserved_word', message: `${labelled('exam_tag')} must not be one of the reserved words goodbye, support, update, setup, invalid.` },
    ]],
    ['a domain written as an address', validateReviewerLaunch({ ...staff, domain: 'https://exams.example.edu' }), 'domain', [
      { path: 'domain', rule: 'hostname', message: `${labelled('domain')} must be a host name such as exams.example.edu, without https:// or a path.` },
    ]],
    ['a colour with a hash', candidate({ branding: { primary_color: '#1a73e' } }), 'branding.primary_color', [
      { path: 'branding.primary_color', rule: 'pattern', message: `${labelled('branding.primary_color')} must be a hexadecimal colour without '#', such as 1a73e8.` },
    ]],
    ['a negative webhook id', validateUnsubscribe({ id: -1 }), 'id', [{ path: 'id', rule: 'range', message: `${labelled('id')} must be at least 0.`, params: { min: 0 } }]],
    ['an empty pre-authentication address does not satisfy the post-authentication one', candidate({ post_auth: 'https://lms.example.edu/after', pre_auth: '' }), 'post_auth', [
      { path: 'post_auth', rule: 'post_auth_requires_pre_auth', message: ruleSentence('post_auth_requires_pre_auth') },
    ]],
  ];
  for (const [name, result, path, expected] of table) {
    it(name, () => assert.deepEqual(at(result, path), expected));
  }

  it('accepts webhook id 0, and refuses a missing launch address only as missing', () => {
    assert.equal(validateUnsubscribe({ id: 0 }).ok, true);
    const request: Record<string, unknown> = { ...candidateRequest() };
    delete request.launch_url;
    assert.deepEqual(violationsOf(validateCandidateLaunch(request)).map((v) => `${v.path} ${v.rule}`), ['launch_url required']);
  });

  it('checks a page pattern as a regular expression only within its length, and names the single-page option only where it applies', () => {
    const tooLong = at(candidate({ exam_start: `(${'a'.repeat(600)}` }), 'exam_start');
    assert.deepEqual(tooLong.map((v) => v.rule), ['max_length']);
    const longest = at(candidate({ exam_start: `(${'a'.repeat(599)}` }), 'exam_start');
    assert.deepEqual(longest.map((v) => v.rule), ['regex']);
    const [start] = at(candidate({ exam_start: '(' }), 'exam_start');
    assert.match(start?.message ?? '', /^'.+' must be a valid regular expression.*\.$/);
    assert.doesNotMatch(start?.message ?? '', /post-message/);
    const [unsafe] = at(candidate({ exam_take: '(a)\\1' }), 'exam_take');
    assert.equal(unsafe?.rule, 'regex');
    assert.doesNotMatch(unsafe?.message ?? '', /post-message/);
    const [take] = at(candidate({ exam_take: 'a.(' }), 'exam_take');
    assert.match(take?.message ?? '', /must be a valid regular expression.* \(or a post-message notification, for single-page exams\)\.$/);
    assert.equal(take?.message.match(/\(or a post-message notification/g)?.length, 1);
  });

  it('knows web addresses, host names and the proctor settings', () => {
    for (const value of ['https://lms.example.edu/quiz', 'http://lms.example.edu', 'HTTPS://LMS.example.edu']) assert.equal(isAbsoluteHttpUrl(value), true, value);
    for (const value of ['ftp://lms.example.edu', ' https://lms.example.edu', 'lms.example.edu', 'http://[', 'https://']) assert.equal(isAbsoluteHttpUrl(value), false, value);
    for (const value of ['a', 'a.b.c', 'exams.x.example.edu', 'a-1.example']) assert.equal(HOSTNAME.test(value), true, value);
    for (const value of ['-a', 'a-', 'a..b', 'a.', 'https://a']) assert.equal(HOSTNAME.test(value), false, value);
    assert.deepEqual(validateProctorSettings({ x: true }), { ok: false, violations: [
      { path: 'proctor_settings.x', rule: 'unknown_field', message: `'x' is not a field the proctoring service accepts in ${labelled('proctor_settings')}.` },
    ] });
    assert.ok(PROCTOR_SETTINGS.length > 0);
    assert.ok(PROCTOR_SETTINGS.every((name) => fieldLabel(`proctor_settings.${name}`) !== name), 'every proctor setting has a label');
  });
});
