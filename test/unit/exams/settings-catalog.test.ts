import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SECURITY_PRESETS } from '../../../src/exams/settings/presets/security.js';
import { LMS_PRESETS } from '../../../src/exams/settings/presets/lms.js';
import { demoLmsPreset } from '../../../src/sandbox/demo-lms/preset.js';
import { CANDIDATE_PREREQUISITES } from '../../../src/proctoring/contract.js';
import {
  EXAM_SETTING_GROUPS,
  EXAM_SETTING_ROWS,
  MEMBER_SECTIONS,
  MEMBER_SETTING_ROWS,
  type ExamSettingRow,
  type MemberSection,
  type MemberSettingRow,
} from '../../../src/proctoring/exam-settings.js';
import { loadCatalog, lookup, type Catalog } from '../../helpers/catalogs.js';

/**
 * The settings table and the settings catalog go together: a row is only complete with its words in every
 * language (locales/<language>/settings.json). This test names every key a row needs and fails for a row
 * without them, in any language.
 */
const LANGUAGES = ['en', 'es', 'fr', 'de', 'pt-BR', 'ar', 'zh-Hans'] as const;

const catalogs = Object.fromEntries(LANGUAGES.map((lng) => [lng, loadCatalog(lng, 'settings')]));

/** The catalog keys (without `settings:`) an exam-settings row needs. */
function examRowKeys(row: ExamSettingRow): string[] {
  return [
    `fields.${row.name}.label`,
    `fields.${row.name}.help`,
    ...(row.type === 'choice' ? row.choices.map((value) => `fields.${row.name}.choices.${value}`) : []),
    ...(row.prerequisite ? [`rules.${row.prerequisite.rule}`] : []),
  ];
}

function memberRowKeys(row: MemberSettingRow): string[] {
  const base = `members.${row.section}.${row.name}`;
  return [`${base}.label`, `${base}.help`, ...(row.kind === 'choice' ? row.choices.map((value) => `${base}.choices.${value}`) : [])];
}

function sectionKeys(section: MemberSection): string[] {
  return [`sections.${section}.legend`, `sections.${section}.title`, ...(MEMBER_SECTIONS[section].qualified ? [`sections.${section}.member`] : [])];
}

const missing = (catalog: Catalog, keys: readonly string[]) => keys.filter((key) => lookup(catalog, key) === undefined);

describe('the settings catalog has the words of every row of the settings table, in every language', () => {
  const keys = [
    ...EXAM_SETTING_ROWS.flatMap((row: ExamSettingRow) => examRowKeys(row)),
    ...MEMBER_SETTING_ROWS.flatMap((row: MemberSettingRow) => memberRowKeys(row)),
    ...EXAM_SETTING_GROUPS.flatMap((group) => [`groups.${group}.legend`, `groups.${group}.intro`]),
    ...(Object.keys(MEMBER_SECTIONS) as MemberSection[]).flatMap(sectionKeys),
    // The candidate request's rules between the document's fields (section_id is not one of them).
    ...CANDIDATE_PREREQUISITES.filter((p) => p.rule !== 'section_id_requires_roster_url').map((p) => `rules.${p.rule}`),
    ...SECURITY_PRESETS.flatMap((preset) => [`presets.security.${preset.id}.name`, `presets.security.${preset.id}.description`]),
    ...[...LMS_PRESETS, demoLmsPreset].flatMap((preset) => [`presets.lms.${preset.id}.name`, `presets.lms.${preset.id}.note`, ...(preset.id === 'custom' ? [] : [`presets.lms.${preset.id}.notThisLms`])]),
  ];

  for (const lng of LANGUAGES) {
    it(`${lng}: ${keys.length} messages for the table's rows, groups, sections, rules and presets`, () => {
      assert.deepEqual(missing(catalogs[lng]!, keys), []);
    });
  }

  it('a row without catalog entries is caught, in every language', () => {
    const newRow: ExamSettingRow = { name: 'record_hologram', type: 'choice', off: 0, default: 0, choices: [0, 1], group: 'recording' };
    for (const lng of LANGUAGES) {
      assert.deepEqual(missing(catalogs[lng]!, examRowKeys(newRow)), ['fields.record_hologram.label', 'fields.record_hologram.help', 'fields.record_hologram.choices.0', 'fields.record_hologram.choices.1']);
    }
  });

  it('the non-English words are translations, not English left behind', () => {
    for (const lng of LANGUAGES.filter((l) => l !== 'en')) {
      const same = keys.filter((key) => lookup(catalogs[lng]!, key) === lookup(catalogs.en!, key));
      assert.deepEqual(same, [], lng);
    }
  });
});
