// The stored settings document: versioned, parsed on read, brought forward by upgrade(), and only valid
// documents written. Fixtures are documents as earlier versions of the tool stored them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { readSettingsDocument, validateSettingsDocument, type ExamSettingsDocument } from '../../../src/exams/settings/document.js';
import { SETTINGS_DOCUMENT_VERSION, upgrade } from '../../../src/exams/settings/versions.js';
import { createExamStore, type ExamStore } from '../../../src/exams/store.js';
import { EXAM_SETTINGS_OFF } from '../../../src/proctoring/contract.js';
import { breaksPrerequisite, EXAM_SETTING_PREREQUISITES, EXAM_SETTING_ROWS, EXAM_SETTING_RULES } from '../../../src/proctoring/exam-settings.js';
import { migratedTestDatabase, type TestDatabase } from '../../helpers/db.js';

const fixture = (name: string): Record<string, unknown> => JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;

/** One stored document of each version, as the tool wrote it. */
const STORED: Array<{ name: string; version: number; document: Record<string, unknown> }> = [
  { name: 'version 1 (unversioned): the sandbox demo exam', version: 1, document: fixture('settings-v1-sandbox-seed.json') },
  { name: 'version 1 (unversioned): a Canvas exam saved by the form, every kind of setting', version: 1, document: fixture('settings-v1-canvas-form.json') },
  { name: 'version 2: a Moodle exam with a single-page end', version: 2, document: fixture('settings-v2.json') },
];

describe('stored settings documents of every version', () => {
  it('the fixtures cover every version up to the current one', () => {
    assert.deepEqual([...new Set(STORED.map((s) => s.version))], Array.from({ length: SETTINGS_DOCUMENT_VERSION }, (_, i) => i + 1));
  });

  for (const stored of STORED) {
    it(`${stored.name}: read as the current version, every value kept`, () => {
      const read = readSettingsDocument(structuredClone(stored.document));
      assert.ok(read.ok, JSON.stringify(!read.ok && read.violations));
      assert.equal(read.value.version, SETTINGS_DOCUMENT_VERSION);
      const { version: _version, ...values } = stored.document;
      assert.deepEqual({ ...read.value, version: undefined }, { ...values, version: undefined });
    });

    for (const row of EXAM_SETTING_ROWS) {
      it(`${stored.name}: a setting it lacks (${row.name}) gets its default`, () => {
        const document = structuredClone(stored.document);
        delete (document.exam_settings as Record<string, unknown>)[row.name];
        const read = readSettingsDocument(document);
        if (read.ok) assert.deepEqual(read.value.exam_settings[row.name], row.default);
        // A setting another one that is on needs: the default is filled in, and the prerequisite named.
        else for (const v of read.violations) assert.ok((EXAM_SETTING_RULES as readonly string[]).includes(v.rule), JSON.stringify(v));
        const needed = EXAM_SETTING_PREREQUISITES.some((p) => breaksPrerequisite(p, { ...(document.exam_settings as object), [row.name]: row.default }));
        assert.equal(read.ok, !needed);
      });
    }
  }

  it('upgrade() leaves a version it does not know for validation to name', () => {
    const future = { ...fixture('settings-v2.json'), version: 3 };
    assert.deepEqual(upgrade(future), future);
    const read = readSettingsDocument(future);
    assert.equal(read.ok, false);
    assert.ok(!read.ok && read.violations.some((v) => v.path === 'version'));
  });

  it('a document sent to the tool must be complete: no default fills a setting the form left out', () => {
    const sent = structuredClone(fixture('settings-v2.json'));
    delete (sent.exam_settings as Record<string, unknown>).tabs;
    const result = validateSettingsDocument(sent);
    assert.ok(!result.ok && result.violations.some((v) => v.path === 'exam_settings.tabs' && v.rule === 'required'));
  });
});

describe('the exam store parses what it reads and writes only valid documents', () => {
  let db: TestDatabase;
  let exams: ExamStore;
  const key = { issuer: 'https://canvas.example.edu', clientId: '1000', deploymentId: '1', contextId: 'course-12', resourceLinkId: 'quiz-34' };
  before(async () => {
    db = await migratedTestDatabase();
    exams = createExamStore(db);
  });
  after(async () => {
    await db.close();
  });
  const storeRaw = (id: string, settings: unknown) => db.query('UPDATE exams SET settings = $2::jsonb WHERE id = $1', [id, JSON.stringify(settings)]);

  for (const stored of STORED) {
    it(`${stored.name}: read from the database as a typed document`, async () => {
      const exam = await exams.ensure(key, 'Quiz');
      await storeRaw(exam.id, stored.document);
      const read = await exams.get(exam.id);
      assert.equal(read?.invalidSettings, undefined);
      assert.equal(read?.settings?.version, SETTINGS_DOCUMENT_VERSION);
      assert.deepEqual(read?.settings?.exam_settings, stored.document.exam_settings);
    });
  }

  it('a stored document that no longer passes: no settings, and what is wrong with the stored values', async () => {
    const exam = await exams.ensure(key, 'Quiz');
    const broken = { ...fixture('settings-v1-sandbox-seed.json'), exam_settings: { ...EXAM_SETTINGS_OFF, live_proctor: true } };
    await storeRaw(exam.id, broken);
    const read = await exams.get(exam.id);
    assert.equal(read?.settings, null);
    assert.deepEqual(read?.invalidSettings?.stored, broken);
    assert.ok(read?.invalidSettings?.violations.some((v) => v.rule === 'live_proctor_requires_video'));
  });

  it('refuses to write a document that does not pass, and writes the version with a valid one', async () => {
    const exam = await exams.ensure(key, 'Quiz');
    const valid = readSettingsDocument(fixture('settings-v1-sandbox-seed.json'));
    assert.ok(valid.ok);
    const broken: ExamSettingsDocument = { ...valid.value, exam_settings: { ...EXAM_SETTINGS_OFF, live_proctor: true } };
    await assert.rejects(exams.saveSettings(exam.id, broken), /refusing to store exam settings.*live_proctor/);
    await assert.rejects(exams.saveSettingsIfUnset(exam.id, broken), /refusing to store/);
    await assert.rejects(exams.upsert({ ...key, title: 'Quiz', settings: broken, status: 'open' }), /refusing to store/);
    await exams.saveSettings(exam.id, valid.value);
    const row = await db.query<{ settings: { version: number } }>('SELECT settings FROM exams WHERE id = $1', [exam.id]);
    assert.equal(row.rows[0]?.settings.version, SETTINGS_DOCUMENT_VERSION);
  });
});
