import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allFields } from '../../../src/exams/settings/fields.js';
import { REQUIREMENTS, satisfyRequirements } from '../../../src/exams/settings/prerequisites.js';
import {
  EXAM_METRICS,
  EXAM_SETTINGS_MEMBERS,
  EXAM_SETTINGS_OFF,
  FRAME_METRICS,
  LIMITS,
  POST_MESSAGE_NOTIFICATION,
  PROCTOR_SETTINGS,
  validateBehaviorSettings,
  validateBreakSettings,
  validateExamSettings,
  validateProctorSettings,
} from '../../../src/proctoring/contract.js';
import { english } from '../../../src/proctoring/english.js';
import {
  BREAK_DURATION_UNIT,
  EXAM_SETTING_GROUPS,
  MAX_ALLOWED_APPS,
  EXAM_SETTING_ROWS,
  MEMBER_SECTIONS,
  MEMBER_SETTING_ROWS,
  memberPath,
  type ExamSettingRow,
  type MemberSection,
  type MemberSettingRow,
} from '../../../src/proctoring/exam-settings.js';
import { CHOICE_LABELS, FIELD_LABELS, fieldLabel } from '../../../src/proctoring/labels.js';
import { examSettingGroups, memberGroup } from '../../../src/sandbox/emulator/pages.js';

const ROWS: readonly ExamSettingRow[] = EXAM_SETTING_ROWS;

/** A value of the row's kind that is not its off value. */
function onValue(row: ExamSettingRow): unknown {
  switch (row.type) {
    case 'boolean':
      return true;
    case 'choice':
      return Math.max(...Object.keys(row.choices).map(Number));
    case 'bundle-ids':
      return ['com.apple.calculator'];
    case 'windows-apps':
      return [{ binary_name: 'calc.exe', product_name: 'Calculator', company_name: 'Microsoft' }];
  }
}

describe('the exam-settings table: every row reaches every place that uses it', () => {
  it('the contract requires exactly the rows, each off in EXAM_SETTINGS_OFF', () => {
    assert.deepEqual([...EXAM_SETTINGS_MEMBERS], ROWS.map((row) => row.name));
    for (const row of ROWS) assert.deepEqual((EXAM_SETTINGS_OFF as Record<string, unknown>)[row.name], row.off, row.name);
    for (const row of ROWS) {
      const without: Record<string, unknown> = { ...EXAM_SETTINGS_OFF };
      delete without[row.name];
      const result = validateExamSettings(without);
      assert.equal(result.ok, false, `${row.name} is required`);
      if (!result.ok) assert.ok(result.violations.some((v) => v.path === `exam_settings.${row.name}` && v.rule === 'required'), row.name);
    }
  });

  for (const row of ROWS) {
    it(`${row.name}: label, form field, emulator row, every value and its prerequisite`, () => {
      const path = `exam_settings.${row.name}`;
      const label = english(`settings:fields.${row.name}.label`);
      assert.equal(fieldLabel(path), label);
      const field = allFields().find((f) => f.path === path);
      assert.ok(field, `the form has ${path}`);
      assert.equal(field.label, label);
      assert.equal(field.help, english(`settings:fields.${row.name}.help`, { max: MAX_ALLOWED_APPS }));
      assert.ok(EXAM_SETTING_GROUPS.includes(row.group));

      const shown = examSettingGroups({ ...EXAM_SETTINGS_OFF }).find((group) => group.title === english(`settings:groups.${row.group}.legend`));
      assert.ok(shown?.rows.some((r) => r.field === path && r.label === label), `the emulator shows ${path}`);

      if (row.type === 'choice') {
        assert.deepEqual(CHOICE_LABELS[path], Object.fromEntries(row.choices.map((value) => [value, english(`settings:fields.${row.name}.choices.${value}`)])));
        assert.deepEqual(field.choices?.map((c) => c.value), [...row.choices]);
        for (const value of row.choices) {
          const satisfied: Record<string, unknown> = satisfyRequirements({ ...EXAM_SETTINGS_OFF, [row.name]: value }).settings;
          const excluded = REQUIREMENTS.some((r) => r.field !== row.name && r.excludes.some((e) => e.field === row.name && e.value === value));
          if (!excluded) assert.equal(validateExamSettings(satisfied).ok, true, `${row.name} = ${value}`);
        }
        const outside = validateExamSettings({ ...EXAM_SETTINGS_OFF, [row.name]: 99 });
        assert.equal(outside.ok, false);
      }

      const on = satisfyRequirements({ ...EXAM_SETTINGS_OFF, [row.name]: onValue(row) });
      if (!row.prerequisite?.excludes.length) assert.equal(validateExamSettings(on.settings).ok, true, `${row.name} on, with what it needs`);

      if (row.prerequisite) {
        const { rule, when, needs } = row.prerequisite;
        for (const value of when) {
          if (needs.length === 0) continue;
          const result = validateExamSettings({ ...EXAM_SETTINGS_OFF, [row.name]: value });
          assert.equal(result.ok, false, `${row.name} = ${String(value)} alone breaks ${rule}`);
          if (!result.ok) assert.ok(result.violations.some((v) => v.path === path && v.rule === rule && v.message === english(`settings:rules.${rule}`)));
        }
        for (const excluded of row.prerequisite.excludes) {
          const settings = satisfyRequirements({ ...EXAM_SETTINGS_OFF, [row.name]: when[0], [excluded.field]: excluded.value }).settings;
          const result = validateExamSettings(settings);
          assert.equal(result.ok, false, `${row.name} excludes ${excluded.field} = ${String(excluded.value)}`);
          if (!result.ok) assert.ok(result.violations.some((v) => v.path === path && v.rule === rule));
        }
      }
    });
  }
});

const MEMBER_ROWS: readonly MemberSettingRow[] = MEMBER_SETTING_ROWS;

/** The schema of the object a member row belongs to, and a valid object around one member's value. */
function validateMember(row: MemberSettingRow, value: unknown) {
  const member = { [row.name]: value };
  switch (row.section) {
    case 'frame_metrics':
      return validateBehaviorSettings({ frame_metrics: member });
    case 'exam_metrics':
      return validateBehaviorSettings({ exam_metrics: member });
    case 'proctor_settings':
      return validateProctorSettings(member);
    case 'break_settings':
      return validateBreakSettings({ number: 1, duration: 1, ...member });
  }
}

/** Values of the row's kind the contract accepts, and values it refuses. */
function memberValues(row: MemberSettingRow): { valid: unknown[]; invalid: unknown[] } {
  switch (row.kind) {
    case 'weight':
      return { valid: [0, 3, 5], invalid: [-1, 6, 2.5, '3', true] };
    case 'boolean':
    case 'tristate':
      return { valid: [true, false], invalid: [1, 'true', null] };
    case 'integer':
      return { valid: [row.min, row.max], invalid: [row.min - 1, row.max + 1, 1.5, String(row.min)] };
    case 'choice':
      return { valid: Object.keys(row.choices).map(Number), invalid: [99, -1, '0'] };
  }
}

describe('the member-settings table: behaviour weights and metrics, proctor permissions, breaks', () => {
  it('the contract lists exactly the rows of each object, in order', () => {
    const names = (section: MemberSection) => MEMBER_ROWS.filter((row) => row.section === section).map((row) => row.name);
    assert.deepEqual([...FRAME_METRICS], names('frame_metrics'));
    assert.deepEqual([...EXAM_METRICS], names('exam_metrics'));
    assert.deepEqual([...PROCTOR_SETTINGS], names('proctor_settings'));
    assert.deepEqual(names('break_settings'), ['number', 'duration', 'cumulative', 'on_time_exceeded', 'desk_scan_after_break']);
  });

  for (const row of MEMBER_ROWS) {
    const path = memberPath(row);
    it(`${path}: schema, off value, default, label, form field, emulator row`, () => {
      const { valid, invalid } = memberValues(row);
      for (const value of valid) assert.equal(validateMember(row, value).ok, true, `${path} = ${JSON.stringify(value)}`);
      for (const value of invalid) {
        const result = validateMember(row, value);
        assert.equal(result.ok, false, `${path} refuses ${JSON.stringify(value)}`);
        if (!result.ok) assert.ok(result.violations.some((v) => v.path === path), `${path}: the violation names the member`);
      }
      if (row.off !== null) assert.equal(validateMember(row, row.off).ok, true, `${path}: the off value is valid`);
      assert.equal(row.default, null, `${path}: left out by default (the service's or institution's default applies)`);
      const required = row.kind === 'integer' && row.required;
      if (row.section === 'break_settings') {
        const without: Record<string, unknown> = { number: 1, duration: 1 };
        delete without[row.name];
        assert.equal(validateBreakSettings(without).ok, !required, `${path} is ${required ? 'required' : 'optional'}`);
      }

      const label = english(`settings:members.${row.section}.${row.name}.label`);
      assert.equal(fieldLabel(path), MEMBER_SECTIONS[row.section].qualified ? english(`settings:sections.${row.section}.member`, { label }) : label);
      const field = allFields().find((f) => f.path === path);
      assert.ok(field, `the form has ${path}`);
      assert.equal(field.label, label);
      assert.equal(field.help, english(`settings:members.${row.section}.${row.name}.help`, row.kind === 'integer' ? { min: row.min, max: row.max } : {}));
      assert.equal(field.kind, row.kind);
      if (row.kind === 'choice') {
        assert.deepEqual(CHOICE_LABELS[path], Object.fromEntries(row.choices.map((value) => [value, english(`settings:members.${row.section}.${row.name}.choices.${value}`)])));
        assert.deepEqual(field.choices?.map((c) => c.value), [...row.choices]);
      }
      if (row.kind === 'integer') assert.deepEqual([field.min, field.max], [row.min, row.max]);
      if (row.kind === 'weight') assert.deepEqual(field.choices?.map((c) => c.value), [0, 1, 2, 3, 4, 5]);

      const value = valid[valid.length - 1];
      const shown = memberGroup(row.section, { [row.name]: value }, true);
      assert.equal(shown.title, english(`settings:sections.${row.section}.title`));
      assert.ok(shown.rows.some((r) => r.field === path && r.label === fieldLabel(path)), `the emulator shows ${path}`);
    });
  }

  it('break rules come from the table: the limits the specification states', () => {
    const byName = Object.fromEntries(MEMBER_ROWS.filter((row) => row.section === 'break_settings').map((row) => [row.name, row]));
    const number = byName.number;
    const duration = byName.duration;
    assert.ok(number?.kind === 'integer' && duration?.kind === 'integer');
    assert.deepEqual([number.min, number.max], [LIMITS.breakNumber.min, LIMITS.breakNumber.max]);
    assert.deepEqual([duration.min, duration.max], [LIMITS.breakDuration.min, LIMITS.breakDuration.max]);
  });
});

describe('labels are words', () => {
  it('a break duration states its unit plainly', () => {
    const label = fieldLabel('break_settings.duration');
    assert.match(label, new RegExp(`\\(${BREAK_DURATION_UNIT}\\)$`));
    assert.equal(BREAK_DURATION_UNIT, 'minutes');
    for (const text of [label, allFields().find((f) => f.path === 'break_settings.duration')?.help ?? '']) assert.doesNotMatch(text, /likely|unit not|not state/i);
  });

  it('no form field or message label is an API member name', () => {
    const labels = [...allFields().map((f) => f.label), ...Object.values(FIELD_LABELS)];
    for (const label of labels) {
      assert.doesNotMatch(label, /\b[a-z]+_[a-z_]+\b/, `'${label}' is a member name`);
      assert.doesNotMatch(label, new RegExp(POST_MESSAGE_NOTIFICATION), label);
    }
  });

  it('every exam_settings row has a default the contract accepts', () => {
    const defaults = Object.fromEntries(ROWS.map((row) => [row.name, row.default]));
    assert.equal(validateExamSettings(defaults).ok, true);
  });
});

