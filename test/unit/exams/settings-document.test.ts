import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  EXAM_METRICS,
  EXAM_SETTINGS_MEMBERS,
  EXAM_SETTINGS_OFF,
  EXAM_SETTINGS_PREREQUISITES,
  examSettingsSchema,
  FRAME_METRICS,
  LIMITS,
  POST_MESSAGE_NOTIFICATION,
} from '../../../src/proctoring/contract.js';
import { brokenRequirements, REQUIREMENTS, requirementsForBrowser, satisfyRequirements } from '../../../src/exams/settings/prerequisites.js';
import { diffSettings, validateSettingsDocument, type ExamSettingsDocument } from '../../../src/exams/settings/document.js';
import { SETTINGS_DOCUMENT_VERSION } from '../../../src/exams/settings/versions.js';
import { candidateFieldsOf } from '../../helpers/proctoring.js';
import { reviewerRequest } from '../../../src/launches/requests.js';
import { DEFAULT_INSTITUTION_SETTINGS } from '../../../src/institution/settings.js';
import { allFields, formValues, settingsForm } from '../../../src/exams/settings/fields.js';
import { english } from '../../../src/proctoring/english.js';

const { groups: SETTINGS_GROUPS, behavior: BEHAVIOR_FIELDS, breakFields: BREAK_FIELDS, otherFields: OTHER_FIELDS } = settingsForm(english);

const settingsArbitrary = fc.record({
  record_video: fc.boolean(),
  record_audio: fc.boolean(),
  record_screen: fc.boolean(),
  record_desk: fc.constantFrom(0, 1, 2),
  verify_video: fc.boolean(),
  verify_audio: fc.boolean(),
  verify_desktop: fc.boolean(),
  verify_id: fc.constantFrom(0, 1, 2),
  full_screen: fc.constantFrom(0, 1, 2, 3),
  tabs: fc.constantFrom(0, 1, 2),
  close_tabs: fc.boolean(),
  one_screen: fc.boolean(),
  live_proctor: fc.boolean(),
  mobile: fc.boolean(),
});

describe('prerequisites as data', () => {
  it('cover every exam_settings rule of the contract, with its sentence', () => {
    assert.deepEqual(REQUIREMENTS.map((r) => r.rule).sort(), EXAM_SETTINGS_PREREQUISITES.map((p) => p.rule).sort());
    for (const r of requirementsForBrowser(english)) assert.equal(r.message, EXAM_SETTINGS_PREREQUISITES.find((p) => p.rule === r.rule)?.message);
  });

  it('break exactly when the contract says so, for any combination', () => {
    fc.assert(
      fc.property(settingsArbitrary, (s) => {
        const ours = brokenRequirements(s).map((r) => r.rule).sort();
        const contract = EXAM_SETTINGS_PREREQUISITES.filter((p) => p.violated(s)).map((p) => p.rule).sort();
        assert.deepEqual(ours, contract);
      }),
      { numRuns: 2000 },
    );
  });

  it('satisfyRequirements leaves only incompatibilities, never switching off a choice', () => {
    fc.assert(
      fc.property(settingsArbitrary, (s) => {
        const { settings, changes } = satisfyRequirements(s);
        const left = brokenRequirements(settings).map((r) => r.rule);
        assert.ok(left.every((rule) => rule === 'mobile_excludes_verify_id_2'), left.join());
        for (const change of changes) assert.notEqual(change.value, false);
        for (const key of Object.keys(s) as Array<keyof typeof s>) {
          if (s[key] === true) assert.equal(settings[key], true, key);
        }
      }),
      { numRuns: 1000 },
    );
  });

  const cases: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
    ['desk scan', { record_desk: 1 }, { record_video: true, verify_video: true }],
    ['verify webcam', { verify_video: true }, { record_video: true }],
    ['verify microphone', { verify_audio: true }, { record_audio: true }],
    ['verify screen', { verify_desktop: true }, { record_screen: true }],
    ['ID check by a person', { verify_id: 2 }, { record_video: true, verify_video: true }],
    ['full screen', { full_screen: 2 }, { close_tabs: true, one_screen: true, tabs: 1 }],
    ['live proctoring', { live_proctor: true }, { record_video: true, verify_video: true }],
  ];
  for (const [name, choice, expected] of cases) {
    it(`${name} switches on ${Object.keys(expected).join(', ')}`, () => {
      const { settings, changes } = satisfyRequirements({ ...EXAM_SETTINGS_OFF, ...choice });
      for (const [key, value] of Object.entries(expected)) assert.equal(settings[key as keyof typeof settings], value);
      assert.equal(changes.length, Object.keys(expected).length);
    });
  }

  it('labels the rules for the page script', () => {
    const fullScreen = requirementsForBrowser(english).find((r) => r.field === 'full_screen');
    assert.deepEqual(fullScreen?.needLabels, ['Close other tabs', 'One screen only', 'New tabs']);
  });
});

const VALID: ExamSettingsDocument = {
  version: SETTINGS_DOCUMENT_VERSION,
  launch_url: 'https://moodle.example.edu/mod/quiz/view.php?id=42',
  exam_start: '^https://moodle\\.example\\.edu/mod/quiz/(view|startattempt)\\.php.*',
  exam_take: '^https://moodle\\.example\\.edu/mod/quiz/(attempt|summary|processattempt|startattempt)\\.php.*',
  exam_end: '^https://moodle\\.example\\.edu/mod/quiz/review\\.php.*',
  exam_settings: { ...EXAM_SETTINGS_OFF },
  behavior_settings: { frame_metrics: { keystrokes: 3 }, exam_metrics: { copy_paste: true } },
  break_settings: { number: 2, duration: 10, cumulative: true, on_time_exceeded: 1, desk_scan_after_break: false },
  expire: 7200,
  tool: { lms_preset: 'moodle', quiz_url: 'https://moodle.example.edu/mod/quiz/view.php?id=42', security_preset: 'standard', redirect: 'lms' },
};

describe('settings document', () => {
  it('accepts a complete document', () => {
    const result = validateSettingsDocument(VALID);
    assert.ok(result.ok, JSON.stringify(result.ok ? null : result.violations));
  });

  const refusals: Array<[string, (d: Record<string, unknown>) => void, string, string]> = [
    ['an impossible combination', (d) => Object.assign(d.exam_settings as object, { full_screen: 3 }), 'exam_settings.full_screen', 'full_screen_requires_lockdown'],
    ['a start pattern that misses the launch URL', (d) => (d.exam_start = '^https://other\\.example/.*'), 'exam_start', 'exam_start_must_match_launch_url'],
    ['a pattern that does not compile', (d) => (d.exam_take = '^(unclosed'), 'exam_take', 'regex'],
    ['mobile without pre_auth', (d) => Object.assign(d.exam_settings as object, { mobile: true }), 'exam_settings.mobile', 'mobile_requires_pre_auth'],
    ['a weight above 5', (d) => (d.behavior_settings = { frame_metrics: { keystrokes: 6 } }), 'behavior_settings.frame_metrics.keystrokes', 'range'],
    ['eleven macOS apps', (d) => Object.assign(d.exam_settings as object, { allowed_macos_apps: Array.from({ length: 11 }, (_, i) => `com.app${i}`) }), 'exam_settings.allowed_macos_apps', 'max_items'],
    ['a launch field the tool sets itself', (d) => (d.user_id = 'x'), 'user_id', 'unknown_field'],
    ['expire out of range', (d) => (d.expire = 20000), 'expire', 'range'],
    ['a redirect address that is not a URL', (d) => (d.tool = { redirect: 'url', redirect_url: 'nope' }), 'tool.redirect_url', 'absolute_url'],
    ['an unknown tool option', (d) => (d.tool = { colour: 'red' }), 'tool.colour', 'unknown_field'],
    ['a missing exam setting', (d) => delete (d.exam_settings as Record<string, unknown>).tabs, 'exam_settings.tabs', 'required'],
  ];
  for (const [name, mutate, path, rule] of refusals) {
    it(`refuses ${name} at ${path}`, () => {
      const doc = structuredClone(VALID) as unknown as Record<string, unknown>;
      mutate(doc);
      const result = validateSettingsDocument(doc);
      assert.equal(result.ok, false);
      assert.ok(!result.ok && result.violations.some((v) => v.path === path && v.rule === rule), JSON.stringify(!result.ok && result.violations));
    });
  }

  it('gives launches only their fields', () => {
    const candidate = candidateFieldsOf(VALID);
    assert.equal('tool' in candidate, false);
    assert.equal('version' in candidate, false);
    assert.equal('behavior_settings' in candidate, false);
    assert.equal(candidate.expire, 7200);
    const reviewer = reviewerRequest(VALID, { ids: { userId: 'u', examTag: 't', sectionId: 's' }, institution: DEFAULT_INSTITUTION_SETTINGS, rosterUrl: 'https://tool.example/r' });
    assert.deepEqual([reviewer.exam_settings, reviewer.behavior_settings], [VALID.exam_settings, VALID.behavior_settings]);
  });

  it('diffs leaf by leaf', () => {
    const after = structuredClone(VALID);
    after.exam_settings.record_video = true;
    after.exam_settings.allowed_macos_apps = ['com.apple.calculator'];
    delete after.expire;
    assert.deepEqual(diffSettings(VALID, after), [
      { path: 'exam_settings.allowed_macos_apps', before: [], after: ['com.apple.calculator'] },
      { path: 'exam_settings.record_video', before: false, after: true },
      { path: 'expire', before: 7200, after: null },
    ]);
    assert.equal(diffSettings(null, VALID).length > 40, true);
  });

  it('shows a document in the form and knows every field', () => {
    const doc = structuredClone(VALID);
    doc.exam_settings.allowed_macos_apps = ['com.a', 'com.b'];
    doc.exam_settings.allowed_windows_apps = [{ binary_name: 'calc.exe', product_name: 'Calculator', company_name: 'Microsoft' }];
    doc.exam_end = POST_MESSAGE_NOTIFICATION;
    const values = formValues(doc);
    assert.equal(values['exam_settings.allowed_macos_apps'], 'com.a\ncom.b');
    assert.equal(values['exam_settings.allowed_windows_apps'], 'calc.exe | Calculator | Microsoft');
    assert.equal(values['behavior_settings.frame_metrics.keystrokes'], '3');
    assert.equal(values['behavior_settings.frame_metrics.copy_paste'], '');
    assert.equal(values['break_settings.number'], '2');
    assert.equal(values.breaks_enabled, true);
    assert.equal(values.end_post_message, true);
    assert.equal(values['tool.redirect'], 'lms');
    const examPaths = allFields().filter((f) => f.path.startsWith('exam_settings.')).map((f) => f.path);
    assert.equal(examPaths.length, 30);
    for (const field of allFields()) assert.ok(field.help.length > 10 && field.label.length > 1, field.path);
    assert.equal(formValues(undefined)['exam_settings.record_video'], false);
  });
});

describe('the form covers the contract', () => {
  it('every exam_settings member once, in a group with a legend, each with a label and one sentence of help', () => {
    const grouped = SETTINGS_GROUPS.flatMap((group) => group.fields.map((field) => ({ group, field })));
    assert.deepEqual(grouped.map(({ field }) => field.path.slice('exam_settings.'.length)).sort(), [...EXAM_SETTINGS_MEMBERS].sort());
    assert.deepEqual(SETTINGS_GROUPS.map((group) => group.legend.split(' ')[0]), ['Recording', 'Verification', 'Lockdown', 'Tools', 'Advanced']);
    for (const { field } of grouped) {
      assert.ok(field.label.length > 2 && !field.label.includes('_'), `${field.path}: a label, not the API name`);
      assert.ok(field.help.length > 20 && field.help.length <= 200 && field.help.endsWith('.'), `${field.path}: a sentence of help`);
      assert.equal(field.help.split(/(?<=[.!?])\s+(?=[A-Z])/).length, 1, `${field.path}: one sentence of help, not several: ${field.help}`);
    }
  });

  it('integer options are choices with the meaning of every allowed value; the app lists are editable lists of at most 10', () => {
    const shape = examSettingsSchema.shape as Record<string, { values?: Set<number>; type?: string }>;
    for (const field of SETTINGS_GROUPS.flatMap((group) => group.fields)) {
      const member = field.path.slice('exam_settings.'.length);
      const schema = shape[member]!;
      if (schema.values instanceof Set) {
        assert.equal(field.kind, 'choice', member);
        assert.deepEqual(field.choices?.map((c) => c.value), [...schema.values].sort((a, b) => a - b), `${member}: every allowed value offered`);
        for (const choice of field.choices ?? []) assert.match(choice.label, /[A-Za-z]{2}/, `${member}=${choice.value}: a meaning, not a number`);
      } else if (member === 'allowed_macos_apps' || member === 'allowed_windows_apps') {
        assert.ok(field.kind === 'lines' || field.kind === 'windows-apps', member);
        assert.match(field.help, /at most 10/, member);
      } else {
        assert.equal(field.kind, 'boolean', member);
      }
    }
    assert.equal(LIMITS.allowedApps, 10);
    assert.deepEqual(
      allFields().find((f) => f.path === 'exam_settings.full_screen')?.choices?.map((c) => c.value),
      [0, 1, 2, 3],
    );
  });

  it('the 8 frame-metric weights (service default or 0–5), the 14 exam metrics, and the break, expiry and mobile fields', () => {
    assert.deepEqual(BEHAVIOR_FIELDS.weights.map((f) => f.path.split('.').pop()), [...FRAME_METRICS]);
    assert.equal(BEHAVIOR_FIELDS.weights.length, 8);
    for (const field of BEHAVIOR_FIELDS.weights) assert.deepEqual(field.choices?.map((c) => c.value), [0, 1, 2, 3, 4, 5], field.path);
    assert.deepEqual(BEHAVIOR_FIELDS.highlights.map((f) => f.path.split('.').pop()), [...EXAM_METRICS]);
    assert.equal(BEHAVIOR_FIELDS.highlights.length, 14);
    assert.deepEqual(BREAK_FIELDS.map((f) => f.path), ['break_settings.number', 'break_settings.duration', 'break_settings.cumulative', 'break_settings.on_time_exceeded', 'break_settings.desk_scan_after_break']);
    assert.deepEqual(OTHER_FIELDS.map((f) => f.path), ['expire', 'pre_auth', 'post_auth', 'pre_auth_bypass']);
  });
});
