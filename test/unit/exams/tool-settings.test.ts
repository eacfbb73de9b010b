// Every tool-side setting (src/exams/tool-settings/rows.ts) reaches every place a setting must: its words in every
// language, storage, the settings form, the API and exams files, course copies, the history, the hub and the
// results CSV. A row missing from one of them fails here; docs/exams.md "Adding a setting" relies on it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import ejs from 'ejs';
import { resolveExamForLaunch } from '../../../src/exams/course-copy.js';
import { toolSetting } from '../../../src/exams/tool-settings/row.js';
import { createSettingsChangeLog, type SettingsChangeLog } from '../../../src/exams/settings/changes.js';
import { fieldId } from '../../../src/exams/settings/fields.js';
import { changeLabel, describeChange } from '../../../src/exams/settings/history.js';
import { createExamStore, type Exam, type ExamKey, type ExamStore } from '../../../src/exams/store.js';
import { exportExams, importExams } from '../../../src/exams/transfer.js';
import {
  ATTEMPT_FLAGS,
  hubMarks,
  INITIAL_TOOL_SETTINGS,
  messageKeys,
  parseToolSettings,
  ROWS,
  toolSettingFields,
  toolSettingsFromColumns,
  toolSettingsUpdate,
  toolSettingsWire,
  type ToolSettingValues,
} from '../../../src/exams/tool-settings/registry.js';
import { flatten, loadCatalogs } from '../../../src/i18n/catalogs.js';
import { SUPPORTED_LOCALES } from '../../../src/i18n/locales.js';
import { EXAM_SETTINGS_OFF } from '../../../src/proctoring/contract.js';
import { english } from '../../../src/proctoring/english.js';
import { resultsCsv } from '../../../src/webhooks/csv.js';
import { migratedTestDatabase, registeredPlatformRecord, type TestDatabase } from '../../helpers/db.js';
import { settingsDocument } from '../../helpers/proctoring.js';

const BASE = { issuer: 'https://lms.example.edu', clientId: 'tool-settings', deploymentId: '1' };
const key = (contextId: string, resourceLinkId: string): ExamKey => ({ ...BASE, contextId, resourceLinkId });
const SETTINGS = settingsDocument('https://lms.example.edu/courses/1/quizzes/2', { exam_start: '^https://lms\\.example\\.edu/courses/1/quizzes/.*', exam_settings: { ...EXAM_SETTINGS_OFF } });

/** The row's own properties of some values, those that are set. */
function own(row: { properties: readonly string[] }, values: object): Record<string, unknown> {
  return Object.fromEntries(row.properties.flatMap((property) => (property in values && Reflect.get(values, property) !== undefined ? [[property, Reflect.get(values, property)]] : [])));
}

/** Every member name in a JSON value, at any depth. */
function keysIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysIn);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([name, inner]) => [name, ...keysIn(inner)]);
}

const catalogs = loadCatalogs();
const settingsView = readFileSync(new URL('../../../views/exams/settings.ejs', import.meta.url), 'utf8');
const toolSettingsView = new URL('../../../views/exams/tool-settings.ejs', import.meta.url).pathname;

describe('tool-side exam settings: every row is wired everywhere', () => {
  let db: TestDatabase;
  let exams: ExamStore;
  let changes: SettingsChangeLog;
  before(async () => {
    db = await migratedTestDatabase();
    await registeredPlatformRecord(db, BASE.issuer, BASE.clientId);
    exams = createExamStore(db);
    changes = createSettingsChangeLog(db);
  });
  after(async () => {
    await db.close();
  });

  it('row names, properties and history paths are unique', () => {
    const names = ROWS.map((row) => row.name);
    assert.equal(new Set(names).size, names.length);
    const properties = ROWS.flatMap((row) => row.properties);
    assert.equal(new Set(properties).size, properties.length);
    const paths = ROWS.flatMap((row) => row.history);
    assert.equal(new Set(paths).size, paths.length);
    const columns = ROWS.flatMap((row) => (row.storage.kind === 'columns' ? row.storage.columns : []));
    assert.equal(new Set(columns).size, columns.length);
  });

  it('a setting without columns of its own is a member of the exam’s tool_settings document, beside the others', async () => {
    const minutes = (stored: unknown) => (typeof stored === 'number' && Number.isInteger(stored) ? stored : 0);
    const documentRow = (name: string, property: string) =>
      toolSetting<Record<string, number>>({
        name,
        properties: [property],
        storage: { kind: 'document', read: (stored) => ({ [property]: minutes(stored) }), write: (value) => value[property] },
        initial: { [property]: 0 },
        example: { [property]: 10 },
        rules: [],
        changes: () => [],
        history: [],
        copy: (source) => source,
        hub: () => [],
        words: [],
      });
    const rows = [...ROWS, documentRow('late_entry', 'lateEntryMinutes'), documentRow('grace', 'graceMinutes')];
    const exam = await exams.ensure(key('document', 'late-entry'), 'Stored in the document');
    await exams.setToolSettings(exam.id, { practice: true });
    const read = async () => toolSettingsFromColumns((await db.query<Record<string, unknown>>('SELECT * FROM exams WHERE id = $1', [exam.id])).rows[0] ?? {}, rows);
    const write = async (values: Partial<ToolSettingValues>) => {
      const { set, params } = toolSettingsUpdate(values, 2, rows);
      await db.query(`UPDATE exams SET ${set.join(', ')} WHERE id = $1`, [exam.id, ...params]);
    };
    assert.deepEqual(own({ properties: ['lateEntryMinutes', 'graceMinutes'] }, await read()), { lateEntryMinutes: 0, graceMinutes: 0 }, 'never stored: the initial value');
    const late = { practice: true, lateEntryMinutes: 15 };
    await write(late);
    const grace = { practice: true, graceMinutes: 5 };
    await write(grace);
    assert.deepEqual(own({ properties: ['lateEntryMinutes', 'graceMinutes', 'practice'] }, await read()), { lateEntryMinutes: 15, graceMinutes: 5, practice: true }, 'each member written on its own');
  });

  for (const row of ROWS) {
    const example: ToolSettingValues = { ...INITIAL_TOOL_SETTINGS, ...row.example };
    describe(row.name, () => {
      it('has its words in every language', () => {
        const keys = messageKeys(row);
        assert.ok(keys.length > 0);
        for (const locale of SUPPORTED_LOCALES) {
          const messages = flatten(catalogs[locale].settings ?? {});
          for (const catalogKey of keys) assert.ok(messages.get(catalogKey.replace(/^settings:/, ''))?.trim(), `${locale}: ${catalogKey}`);
        }
      });

      it('its example differs from what a new exam has, and the store keeps it', async () => {
        assert.notDeepEqual(own(row, row.example), own(row, row.initial));
        const exam = await exams.ensure(key('store', row.name), 'Stored');
        assert.deepEqual(own(row, exam), own(row, row.initial), 'a new exam has the initial value');
        await exams.setToolSettings(exam.id, row.example);
        assert.deepEqual(own(row, (await exams.get(exam.id)) ?? {}), own(row, row.example));
        await exams.setToolSettings(exam.id, row.initial);
        assert.deepEqual(own(row, (await exams.get(exam.id)) ?? {}), own(row, row.initial));
      });

      it('the settings form shows it, or it is not one of the form’s settings', async () => {
        assert.match(settingsView, /include\('tool-settings'/, 'the settings page draws the tool-side settings');
        const fields = toolSettingFields(english, example, 'UTC');
        const field = fields.find((f) => f.name === row.name);
        if (!row.wire?.control) {
          assert.equal(field, undefined);
          return;
        }
        assert.ok(field);
        const html = await ejs.renderFile(toolSettingsView, { toolFields: [field], timeZones: Intl.supportedValuesOf('timeZone'), fieldId });
        assert.ok(html.includes(english(`settings:toolSettings.${row.name}.label`)), 'its label');
        assert.ok(html.includes(english(`settings:toolSettings.${row.name}.help`)), 'its help');
        const shown = row.wire.show(example, 'UTC');
        for (const member of row.wire.members) {
          const control = new RegExp(`<(input|select|textarea)[^>]* id="${fieldId(`${row.wire.group}.${member}`)}" name="${row.wire.group}\\.${member}"[^>]*data-tool-setting="[a-z]+"[^>]*>`).exec(html);
          assert.ok(control, `a control for ${row.wire.group}.${member}`);
          assert.ok(html.includes(`id="${fieldId(`${row.wire.group}.${member}`)}-error"`), `a place for ${member}'s error`);
          const value = shown[member];
          if (typeof value === 'boolean') assert.equal(/ checked/.test(control[0]), value, member);
          else if (control[1] === 'input') assert.ok(control[0].includes(`value="${String(value ?? '')}"`), `${member} shows ${String(value)}`);
          else if (control[1] === 'textarea') assert.ok(html.includes(`${control[0]}${ejs.escapeXML(String(value ?? ''))}</textarea>`), `${member} shows ${String(value)}, escaped`);
          else assert.ok(html.includes(`<option value="${String(value)}" selected>`), `${member} selects ${String(value)}`);
        }
      });

      it('the API and exams files read and write it', async () => {
        const wire = row.wire;
        const exam = await exams.ensure(key('transfer', row.name), 'Transferred');
        if (!wire) {
          // Neither sent nor accepted: an export leaves it out, an import leaves it as it is.
          await exams.setToolSettings(exam.id, row.example);
          const exported = await exportExams(db, { issuer: BASE.issuer, contextId: 'transfer' });
          const file = { ...exported, exams: exported.exams.filter((e) => e.resource_link_id === row.name) };
          const names = new Set([row.name, ...row.properties, ...(row.storage.kind === 'columns' ? row.storage.columns : [])]);
          assert.deepEqual(keysIn(file).filter((name) => names.has(name)), [], 'an export leaves it out');
          assert.deepEqual(await importExams(db, file), { ok: true, created: 0, updated: 1 });
          assert.deepEqual(own(row, (await exams.get(exam.id)) ?? {}), own(row, row.example));
          return;
        }
        const group = toolSettingsWire(example, 'UTC')[wire.group];
        const parsed = parseToolSettings({ [wire.group]: group });
        assert.ok(parsed.ok, JSON.stringify(parsed));
        assert.deepEqual(own(row, parsed.value), own(row, row.example), 'the API reads what it writes');

        const exported = await exportExams(db, { issuer: BASE.issuer, contextId: 'transfer' });
        const file = { ...exported, exams: exported.exams.filter((e) => e.resource_link_id === row.name).map((e) => ({ ...e, [wire.group]: group })) };
        assert.deepEqual(await importExams(db, file), { ok: true, created: 0, updated: 1 });
        assert.deepEqual(own(row, (await exams.get(exam.id)) ?? {}), own(row, row.example), 'an import stores it');
        const again = (await exportExams(db, { issuer: BASE.issuer, contextId: 'transfer' })).exams.find((e) => e.resource_link_id === row.name);
        for (const member of wire.members) assert.deepEqual(again?.[wire.group]?.[member], group[member], `an export writes ${wire.group}.${member}`);
        const recorded = (await changes.recent(exam.id, 1))[0];
        for (const change of row.changes(INITIAL_TOOL_SETTINGS, example)) assert.ok(recorded?.changes.some((c) => c.path === change.path), `the import records ${change.path}`);
      });

      it('a course copy gets what the row says', async () => {
        const source = await exams.ensure(key('copy-source', row.name), 'Copied');
        await exams.saveSettings(source.id, SETTINGS);
        await exams.setToolSettings(source.id, row.example);
        const copy: Exam = await resolveExamForLaunch(exams, key('copy-target', row.name), '', source.id, { changes });
        assert.notEqual(copy.id, source.id);
        const expected = { ...INITIAL_TOOL_SETTINGS, ...row.copy(example, source) };
        assert.deepEqual(own(row, copy), own(row, expected));
        const recorded = (await changes.recent(copy.id, 1))[0];
        for (const change of row.changes(INITIAL_TOOL_SETTINGS, expected)) assert.ok(recorded?.changes.some((c) => c.path === change.path && JSON.stringify(c.after) === JSON.stringify(change.after)), `the copy records ${change.path}`);
      });

      it('the history names each change in words', () => {
        const recorded = row.changes(INITIAL_TOOL_SETTINGS, example);
        assert.ok(recorded.length > 0, 'a change from the initial value is recorded');
        for (const change of recorded) {
          assert.ok(row.history.includes(change.path), `${change.path} is one of the row's history paths`);
          const member = change.path.split('.').pop() ?? '';
          const label = row.wire && row.wire.members.length > 1 ? english(`settings:toolSettings.${row.name}.members.${member}`) : english(`settings:toolSettings.${row.name}.label`);
          assert.equal(changeLabel(change.path), label);
          assert.match(describeChange(change).text, new RegExp(`^${label.replace(/[()]/g, '\\$&')}: `));
        }
        assert.deepEqual(row.changes(example, example), [], 'no change, no entry');
      });

      it('the hub shows it in words', () => {
        const marks = hubMarks(english, example, { now: new Date('2027-10-01T00:00:00Z'), formatInstant: (instant) => instant.toISOString() });
        const before = hubMarks(english, INITIAL_TOOL_SETTINGS, { now: new Date('2027-10-01T00:00:00Z'), formatInstant: (instant) => instant.toISOString() });
        assert.ok(marks.length > before.length, 'the example is shown');
        for (const mark of marks) {
          assert.ok(mark.text && !mark.text.startsWith('settings:'), mark.text);
          assert.ok(/^[a-z-]+$/.test(mark.attribute.name));
        }
      });

      it('attempts record it when the row says so, and the results CSV names it', () => {
        const flag = ATTEMPT_FLAGS.find((f) => f.setting === row.name);
        if (!row.attemptFlag) {
          assert.equal(flag, undefined);
          return;
        }
        assert.ok(flag);
        const attempt = { id: 'a', examId: 'e', userId: 'u', status: 'submitted' as const, isTest: false, startedAt: new Date(0), [flag.property]: true };
        const [header = '', line = ''] = resultsCsv([{ attempt, outcome: attempt.status }]).replace(/^\uFEFF/, '').split('\r\n');
        const column = header.split(',').indexOf(row.attemptFlag.csvHeader);
        assert.ok(column >= 0, header);
        assert.equal(line.split(',')[column], 'yes');
        assert.ok(english.has(flag.badgeKey), flag.badgeKey);
      });
    });
  }
});
