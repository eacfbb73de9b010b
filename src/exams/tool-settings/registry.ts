import type { Rule, Violation } from '../../proctoring/contract.js';
import { english } from '../../proctoring/english.js';
import type { Translate } from '../../proctoring/labels.js';
import { isRecord } from '../../values.js';
import { TOOL_SETTING_GROUPS, type AttemptFlag, type CopiedFrom, type HubContext, type HubMark, type ToolSettingChange, type ToolSettingControl, type ToolSettingGroup, type ToolSettingRow } from './row.js';
import { TOOL_SETTING_ROWS } from './rows.js';

/**
 * Everything derived from the tool-side settings' rows (rows.ts): the exam's values and their columns, the
 * settings API's and exams files' objects and their checks, the change history, course copies, the form's
 * controls, the hub's badges and lines, the results CSV's columns and the catalog keys.
 */

type TableRows = (typeof TOOL_SETTING_ROWS)[number];
type ValueOf<R> = R extends ToolSettingRow<infer V, string> ? V : never;
type RuleOf<R> = R extends ToolSettingRow<object, infer X> ? X : never;
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** The tool-side settings of one exam (`Exam` carries them). */
export type ToolSettingValues = Intersection<ValueOf<TableRows>>;
/** The rules of the tool-side settings. */
export type ToolSettingRule = RuleOf<TableRows>;
/** Every rule a save or an import of an exam can report: the Launch API's and the tool's own. */
export type ExamRule = Rule | ToolSettingRule;
export type ExamViolation = Violation<ExamRule>;

/** The rows as the code below reads them: values of any row's type. */
export const ROWS: ReadonlyArray<ToolSettingRow<object, ToolSettingRule>> = TOOL_SETTING_ROWS;

/** Every row's values, merged (each row owns its own properties). */
function merged(parts: readonly object[]): ToolSettingValues {
  // Each row returns exactly its own properties, so together they are the intersection.
  const values: ToolSettingValues = Object.assign({}, ...parts);
  return values;
}

/** What a new exam has. */
export const INITIAL_TOOL_SETTINGS: ToolSettingValues = merged(ROWS.map((row) => row.initial));

type Rows = ReadonlyArray<ToolSettingRow<object, string>>;

/** The values stored in a row of `exams` (`rows`: the table's, unless a test brings its own). */
export function toolSettingsFromColumns(row: Readonly<Record<string, unknown>>, rows: Rows = ROWS): ToolSettingValues {
  const document = isRecord(row.tool_settings) ? row.tool_settings : {};
  return merged(rows.map((setting) => (setting.storage.kind === 'columns' ? setting.storage.read(row) : setting.storage.read(document[setting.name]))));
}

/**
 * The `SET` list of an `UPDATE exams` writing the rows any of whose properties `values` names (a property left
 * out of a named row is written as absent), its parameters numbered from `first`. Throws for a value no input
 * may produce: that is a fault in the tool.
 */
export function toolSettingsUpdate(values: Partial<ToolSettingValues>, first: number, rows: Rows = ROWS): { set: string[]; params: unknown[] } {
  const named = rows.filter((row) => row.properties.some((property) => property in values));
  for (const row of named) {
    const problem = row.invalid?.(values);
    if (problem) throw new Error(problem);
  }
  const set: string[] = [];
  const params: unknown[] = [];
  const document: Record<string, unknown> = {};
  for (const row of named) {
    const storage = row.storage;
    if (storage.kind === 'document') {
      document[row.name] = storage.write(values);
      continue;
    }
    const written = storage.write(values);
    storage.columns.forEach((column, index) => {
      params.push(written[index]);
      set.push(`${column} = $${first + params.length - 1}`);
    });
  }
  if (Object.keys(document).length > 0) {
    params.push(JSON.stringify(document));
    set.push(`tool_settings = tool_settings || $${first + params.length - 1}::jsonb`);
  }
  return { set, params };
}

const rowsOfGroup = (group: ToolSettingGroup) => ROWS.filter((row) => row.wire?.group === group);

/** The members of each object, as the settings API answers and an export writes them. */
export type ToolSettingsWire = Partial<Record<ToolSettingGroup, Readonly<Record<string, unknown>>>>;

/** The values as the API answers and an export writes them; `defaultZone` for times that were never entered in one. */
export function toolSettingsWire(values: ToolSettingValues, defaultZone: string): Required<ToolSettingsWire> {
  // Each group's object holds exactly its rows' members.
  const wire: Required<ToolSettingsWire> = Object.assign({}, ...TOOL_SETTING_GROUPS.map((group) => ({ [group]: Object.assign({}, ...rowsOfGroup(group).map((row) => row.wire?.show(values, defaultZone))) })));
  return wire;
}

/** The English sentence of a tool-side rule (the page shows it in the reader's language: settings/violations.ts). */
function sentence(path: string, rule: string, params: Readonly<Record<string, string>> | undefined): string {
  return rule !== 'type' && english.has(`settings:rules.${rule}`) ? english(`settings:rules.${rule}`, params) : `'${path}' is not valid.`;
}

export type ParsedToolSettings = { ok: true; value: Partial<ToolSettingValues> } | { ok: false; violations: ExamViolation[] };

/**
 * The tool-side objects of a save or an exported exam (`body.availability`, …), each checked by its rows: the
 * values of the objects present (an absent object leaves its settings as they are), or every refusal.
 */
export function parseToolSettings(body: Readonly<Record<string, unknown>>): ParsedToolSettings {
  const violations: ExamViolation[] = [];
  const parts: object[] = [];
  for (const group of TOOL_SETTING_GROUPS) {
    const raw = body[group];
    if (raw === undefined) continue;
    if (!isRecord(raw)) {
      violations.push({ path: group, rule: 'type', message: sentence(group, 'type', undefined) });
      continue;
    }
    const rows = rowsOfGroup(group);
    const members = new Set(rows.flatMap((row) => row.wire?.members ?? []));
    for (const key of Object.keys(raw)) if (!members.has(key)) violations.push({ path: `${group}.${key}`, rule: 'unknown_field', message: sentence(`${group}.${key}`, 'unknown_field', undefined) });
    for (const row of rows) {
      const parsed = row.wire?.parse(Object.fromEntries((row.wire.members ?? []).map((member) => [member, raw[member]])));
      if (!parsed) continue;
      if (parsed.ok) parts.push(parsed.value);
      else violations.push(...parsed.problems.map((p) => ({ path: p.path, rule: p.rule, message: sentence(p.path, p.rule, p.params), ...(p.params ? { params: p.params } : {}) })));
    }
  }
  return violations.length > 0 ? { ok: false, violations } : { ok: true, value: merged(parts) };
}

/** The change history's entries between two exams' values, row by row. */
export const toolSettingChanges = (before: ToolSettingValues, after: ToolSettingValues): ToolSettingChange[] => ROWS.flatMap((row) => row.changes(before, after));

/** What a course copy of an exam with these values gets. */
export const copiedToolSettings = (source: ToolSettingValues, from: CopiedFrom): ToolSettingValues => merged(ROWS.map((row) => row.copy(source, from)));

const key = (row: { name: string }, word: string) => `settings:toolSettings.${row.name}.${word}`;

/** The catalog keys of a row: label, help (when on the form), its members' labels (several members) and its own words. */
export function messageKeys(row: ToolSettingRow<object, string>): string[] {
  const members = row.wire && row.wire.members.length > 1 ? row.wire.members.map((member) => `members.${member}`) : [];
  return ['label', ...(row.wire?.control ? ['help'] : []), ...members, ...row.words].map((word) => key(row, word));
}

/** The label of a member's path (`availability.opens_at`, `quiz_address_check`) in the reader's words; undefined for other paths. */
export function toolSettingLabel(t: Translate, path: string): string | undefined {
  for (const row of ROWS) {
    const wirePaths = row.wire ? row.wire.members.map((member) => `${row.wire?.group}.${member}`) : [];
    if (!row.history.includes(path) && !wirePaths.includes(path)) continue;
    const member = path.split('.').pop() ?? path;
    return row.wire && row.wire.members.length > 1 && row.wire.members.includes(member) ? t(key(row, `members.${member}`)) : t(key(row, 'label'));
  }
  return undefined;
}

/** One setting on the settings form, in the reader's words, with its value as the form shows it. */
export interface ToolSettingField {
  name: string;
  control: ToolSettingControl;
  group: ToolSettingGroup;
  label: string;
  help: string;
  maxLength?: number;
  members: Array<{ name: string; label: string; value: unknown }>;
}

export function toolSettingFields(t: Translate, values: ToolSettingValues, defaultZone: string): ToolSettingField[] {
  return ROWS.flatMap((row) => {
    const wire = row.wire;
    if (!wire?.control) return [];
    const shown = wire.show(values, defaultZone);
    const members = wire.members.map((member) => ({ name: member, label: wire.members.length > 1 ? t(key(row, `members.${member}`)) : t(key(row, 'label')), value: shown[member] }));
    return [{ name: row.name, control: wire.control, group: wire.group, label: t(key(row, 'label')), help: t(key(row, 'help')), maxLength: wire.maxLength, members }];
  });
}

/** A badge or line of the hub, in the reader's words. */
export interface ShownMark {
  place: HubMark['place'];
  tone: HubMark['tone'];
  attribute: HubMark['attribute'];
  text: string;
}

/** What the hub shows about an exam's tool-side settings, in the rows' order. */
export function hubMarks(t: Translate, values: ToolSettingValues, context: HubContext): ShownMark[] {
  return ROWS.flatMap((row) => row.hub(values, context).map((mark) => ({ place: mark.place, tone: mark.tone, attribute: mark.attribute, text: t(key(row, mark.word), mark.values) })));
}

/** The flags attempts record, with the words of their badge and the results CSV's column. */
export const ATTEMPT_FLAGS: ReadonlyArray<{ setting: string; property: AttemptFlag; csvHeader: string; badgeKey: string }> = ROWS.flatMap((row) =>
  row.attemptFlag ? [{ setting: row.name, property: row.attemptFlag.property, csvHeader: row.attemptFlag.csvHeader, badgeKey: key(row, 'badge') }] : [],
);
