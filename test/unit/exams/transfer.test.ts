import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createExamStore } from '../../../src/exams/store.js';
import { checkExamsFile, exportExams, importExams, previewImport, type ExamsFile } from '../../../src/exams/transfer.js';
import { createSettingsChangeLog } from '../../../src/exams/settings/changes.js';
import { applySecurityPreset, SECURITY_PRESETS } from '../../../src/exams/settings/presets/security.js';
import { deriveExamPages } from '../../../src/exams/settings/presets/lms.js';
import { migratedTestDatabase, registeredPlatformRecord, type TestDatabase } from '../../helpers/db.js';
import { runCliHere, tempDataDir } from '../../helpers/cli.js';
import { leastOfHolds, type Hold } from '../../helpers/event-loop.js';

function settingsFor(quizId: number, presetIndex: number): Record<string, unknown> {
  const pages = deriveExamPages('moodle', `https://moodle.example.edu/mod/quiz/view.php?id=${quizId}`);
  assert.ok(pages.ok);
  const preset = SECURITY_PRESETS[presetIndex]!;
  return { ...pages.pages, exam_settings: applySecurityPreset(preset).exam_settings, tool: { lms_preset: 'moodle', security_preset: preset.id, redirect: 'lms' } };
}

const KEY = { issuer: 'https://moodle.example.edu', client_id: 'client-1', deployment_id: '1' };

function sampleFile(): ExamsFile {
  return {
    format: 'proctor-lti/exams',
    version: 1,
    exported_at: '2026-01-01T00:00:00.000Z',
    exams: [
      { ...KEY, context_id: 'course-a', resource_link_id: 'link-1', id: '11111111-1111-4111-8111-111111111111', title: 'Midterm', status: 'open', settings: settingsFor(1, 0) },
      { ...KEY, context_id: 'course-a', resource_link_id: 'link-2', title: 'Final', status: 'closed', settings: settingsFor(2, 2) },
      { ...KEY, context_id: 'course-b', resource_link_id: 'link-3', title: 'Quiz 3 — “Σ”', status: 'open', settings: null },
    ],
  };
}

/** `count` exams of the sample's platform, spread over 50 courses. */
const manyExams = (count: number): ExamsFile['exams'] =>
  Array.from({ length: count }, (_, i) => ({ ...KEY, context_id: `course-${i % 50}`, resource_link_id: `link-${i}`, title: `Exam ${i}`, status: 'open' as const, settings: null }));

const comparable = (file: ExamsFile) => file.exams.map((exam) => ({ ...exam, id: exam.id }));

describe('exams as data: export and import', () => {
  let source: TestDatabase;
  let target: TestDatabase;
  before(async () => {
    source = await migratedTestDatabase();
    target = await migratedTestDatabase();
    for (const db of [source, target]) await registeredPlatformRecord(db, KEY.issuer, KEY.client_id);
  });
  after(async () => {
    await source.close();
    await target.close();
  });

  it('export then import into an empty database gives the same exams', async () => {
    const imported = await importExams(source, sampleFile());
    assert.deepEqual(imported, { ok: true, created: 3, updated: 0 });
    const exported = await exportExams(source);
    assert.equal(exported.exams.length, 3);
    assert.equal(exported.exams[0]?.id, '11111111-1111-4111-8111-111111111111', 'the exam id survives (deep-link custom parameters carry it)');
    const intoEmpty = await importExams(target, JSON.parse(JSON.stringify(exported)));
    assert.deepEqual(intoEmpty, { ok: true, created: 3, updated: 0 });
    assert.deepEqual(comparable(await exportExams(target)), comparable(exported));
    const onlyB = await exportExams(target, { contextId: 'course-b' });
    assert.deepEqual(onlyB.exams.map((e) => e.resource_link_id), ['link-3']);
  });

  it('importing again updates in place and records the change', async () => {
    const db = await migratedTestDatabase();
    await registeredPlatformRecord(db, KEY.issuer, KEY.client_id);
    try {
      assert.deepEqual(await importExams(db, sampleFile()), { ok: true, created: 3, updated: 0 });
      const file = await exportExams(db);
      file.exams[1]!.status = 'open';
      file.exams[1]!.title = 'Final (resit)';
      assert.deepEqual(await importExams(db, file), { ok: true, created: 0, updated: 3 });
      const final = await createExamStore(db).find({ issuer: KEY.issuer, clientId: KEY.client_id, deploymentId: KEY.deployment_id, contextId: 'course-a', resourceLinkId: 'link-2' });
      assert.equal(final?.status, 'open');
      assert.equal(final?.title, 'Final (resit)');
      const history = await createSettingsChangeLog(db).recent(final!.id, 5);
      assert.equal(history[0]?.source, 'import');
      assert.deepEqual(history[0]?.changes, [{ path: 'status', before: 'closed', after: 'open' }]);
    } finally {
      await db.close();
    }
  });

  it('carries the opening and closing times in their time zone and the practice flag; a broken window refuses the file', async () => {
    const file = sampleFile();
    file.exams[0]!.availability = { opens_at: '2027-10-31T02:30', closes_at: '2027-11-02T17:00', time_zone: 'Europe/Berlin', practice: true };
    const db = await migratedTestDatabase();
    await registeredPlatformRecord(db, KEY.issuer, KEY.client_id);
    try {
      assert.deepEqual(await importExams(db, file), { ok: true, created: 3, updated: 0 });
      const midterm = await createExamStore(db).find({ issuer: KEY.issuer, clientId: KEY.client_id, deploymentId: KEY.deployment_id, contextId: 'course-a', resourceLinkId: 'link-1' });
      assert.equal(midterm?.opensAt?.toISOString(), '2027-10-31T00:30:00.000Z', 'the first 02:30 of the autumn change');
      assert.equal(midterm?.practice, true);
      const history = await createSettingsChangeLog(db).recent(midterm!.id, 1);
      assert.ok(history[0]?.changes.some((c) => c.path === 'availability.opens_at' && c.after === '2027-10-31 02:30 (Europe/Berlin)'));
      const exported = await exportExams(db);
      assert.deepEqual(exported.exams[0]?.availability, file.exams[0]!.availability);
      assert.deepEqual(exported.exams[1]?.availability, { opens_at: null, closes_at: null, time_zone: 'UTC', practice: false });

      const broken = sampleFile();
      broken.exams[1]!.availability = { opens_at: '2027-05-04T09:00', closes_at: '2027-05-04T08:00', time_zone: 'UTC', practice: false };
      const refused = await importExams(db, broken);
      assert.equal(refused.ok, false);
      assert.ok(!refused.ok && refused.refusals[0]?.violations.some((v) => v.path === 'availability.closes_at' && /after the opening/.test(v.message)));
    } finally {
      await db.close();
    }
  });

  it('carries accommodations by pseudonymous id, each checked against the exam\'s settings; a broken one refuses the file', async () => {
    const student = '9a9ba1e4-aa39-86d5-8445-5c6ebd73691f';
    const other = '0b1c2d3e-4f50-8617-8283-949596979899';
    const file = sampleFile();
    file.exams[0]!.accommodations = [
      { user_id: student, override: { exam_settings: { calculator: 2 }, break_settings: { number: 2, duration: 20 } } },
      { user_id: other, override: { exempt: true } },
    ];
    const db = await migratedTestDatabase();
    await registeredPlatformRecord(db, KEY.issuer, KEY.client_id);
    try {
      assert.deepEqual(await importExams(db, file), { ok: true, created: 3, updated: 0 });
      const exported = await exportExams(db);
      assert.deepEqual(
        [...(exported.exams[0]?.accommodations ?? [])].sort((a, b) => a.user_id.localeCompare(b.user_id)),
        [...file.exams[0]!.accommodations].sort((a, b) => a.user_id.localeCompare(b.user_id)),
      );
      assert.deepEqual(exported.exams[1]?.accommodations, []);
      const midtermId = exported.exams[0]!.id!;
      const history = await createSettingsChangeLog(db).recent(midtermId, 1);
      assert.ok(history[0]?.changes.some((c) => c.path === `accommodations.${student}.exam_settings.calculator` && c.after === 2));

      // Importing the file again without one of them leaves exactly the file's accommodations.
      file.exams[0]!.accommodations = [file.exams[0]!.accommodations[0]!];
      assert.equal((await importExams(db, file)).ok, true);
      assert.deepEqual((await exportExams(db)).exams[0]?.accommodations?.map((a) => a.user_id), [student]);

      const broken = sampleFile();
      broken.exams[0]!.accommodations = [{ user_id: student, override: { break_settings: { number: 99, duration: 10 } } }];
      broken.exams[2]!.accommodations = [{ user_id: other, override: { exempt: true } }];
      const refused = await importExams(db, broken);
      assert.equal(refused.ok, false);
      assert.ok(!refused.ok && refused.refusals.some((r) => r.violations.some((v) => v.path === 'accommodations[0].override.break_settings.number')), JSON.stringify(refused));
      assert.ok(!refused.ok && refused.refusals.some((r) => r.violations.some((v) => /without settings cannot have accommodations/.test(v.message))));
      assert.deepEqual((await exportExams(db)).exams[0]?.accommodations?.map((a) => a.user_id), [student], 'nothing changed');
      const notAnId = sampleFile();
      notAnId.exams[0]!.accommodations = [{ user_id: 'María', override: { exempt: true } }];
      assert.equal((await importExams(db, notAnId)).ok, false);
    } finally {
      await db.close();
    }
  });

  it('refuses exams of platforms not registered in this tool, naming them, and imports nothing', async () => {
    const db = await migratedTestDatabase();
    try {
      const file = sampleFile();
      file.exams.push({ ...file.exams[0]!, issuer: 'https://canvas.example.edu', client_id: '1000', id: undefined, resource_link_id: 'link-9' });
      await registeredPlatformRecord(db, KEY.issuer, KEY.client_id);
      const result = await importExams(db, file);
      assert.ok(!result.ok);
      assert.match(result.message ?? '', /not registered in this tool: https:\/\/canvas\.example\.edu \(client id 1000, 1 exam\)\. Register each platform first/);
      assert.equal((await exportExams(db)).exams.length, 0, 'nothing imported');
    } finally {
      await db.close();
    }
  });

  const brief = ({ longest, took }: Hold<unknown>) => longest < 1000 && longest < took / 4;

  // Three batches of the file check and 300 exams written: without a turn between exams the writes alone hold
  // the event loop for the whole import (seconds on the embedded database), far above both bounds. A 3,000-exam
  // import is measured by `npm run bench:import` (docs/performance.md).
  it('a 300-exam import lets other work run: the event loop is never held for long', async () => {
    const db = await migratedTestDatabase();
    try {
      await registeredPlatformRecord(db, KEY.issuer, KEY.client_id);
      // Again, should a run look held: the same 300 exams, updated in place, write as much as creating them.
      const results: unknown[] = [];
      const { longest, took } = await leastOfHolds(async () => results.push(await importExams(db, { ...sampleFile(), exams: manyExams(300) })), brief);
      assert.deepEqual(results[0], { ok: true, created: 300, updated: 0 });
      assert.ok(longest < 1000, `the event loop was held for ${Math.round(longest)} ms at once`);
      // Whatever the machine's speed: no single hold is a large part of the import.
      assert.ok(longest < took / 4, `the event loop was held for ${Math.round(longest)} ms of the import's ${Math.round(took)} ms at once`);
    } finally {
      await db.close();
    }
  });

  it('a 300-exam dry run (the console previews every import) lets other work run too', async () => {
    const db = await migratedTestDatabase();
    try {
      await registeredPlatformRecord(db, KEY.issuer, KEY.client_id);
      const { result: preview, longest, took } = await leastOfHolds(() => previewImport(db, { ...sampleFile(), exams: manyExams(300) }), brief);
      assert.ok(preview.ok && preview.creates.length === 300, 'every exam would be created');
      assert.ok(longest < 1000, `the event loop was held for ${Math.round(longest)} ms at once`);
      assert.ok(longest < took / 4, `the event loop was held for ${Math.round(longest)} ms of the dry run's ${Math.round(took)} ms at once`);
    } finally {
      await db.close();
    }
  });

  it('an invalid file changes nothing and names each refused exam by key and field', async () => {
    const beforeImport = await exportExams(target);
    const file = sampleFile();
    file.exams[0]!.title = 'Changed but must not be saved';
    (file.exams[1]!.settings!.exam_settings as Record<string, unknown>).one_screen = false; // full screen needs it
    file.exams[2]!.status = 'archived' as 'open';
    const result = await importExams(target, file);
    assert.equal(result.ok, false);
    assert.ok(!result.ok);
    assert.deepEqual(result.refusals.map((r) => r.index), [1, 2]);
    assert.match(result.refusals[0]!.key, /context_id=course-a resource_link_id=link-2/);
    assert.ok(result.refusals[0]!.violations.some((v) => v.path === 'settings.exam_settings.full_screen' && v.rule === 'full_screen_requires_lockdown'));
    assert.ok(result.refusals[1]!.violations.some((v) => v.path === 'status'));
    assert.deepEqual(await exportExams(target, {}, new Date(beforeImport.exported_at)), beforeImport);
  });

  it('refuses what is not an exams file, duplicates and broken keys', () => {
    assert.equal(checkExamsFile([]).ok, false);
    assert.match((checkExamsFile({ format: 'other' }) as { message: string }).message, /not an exams file/);
    const file = sampleFile();
    file.exams.push({ ...file.exams[0]!, id: undefined });
    (file.exams[1] as unknown as Record<string, unknown>).issuer = '';
    const result = checkExamsFile(file);
    assert.ok(!result.ok);
    assert.deepEqual(result.refusals.map((r) => r.index), [1, 3]);
  });
});

describe('exam export and import on the command line', () => {
  // Copies of a migrated embedded database: the commands start on it instead of making one (initdb and every migration).
  const data = [tempDataDir('exams-a'), tempDataDir('exams-b')];
  const dirs = data.map((d) => d.dir);
  after(() => data.forEach((d) => d.remove()));
  const cli = (dataDir: string, ...args: string[]) => runCliHere(dataDir, args);

  it('imports, exports, moves to an empty installation; an invalid file is refused whole', async () => {
    const [a, b] = dirs as [string, string];
    const input = join(a, 'input.json');
    writeFileSync(input, JSON.stringify(sampleFile()));
    const unregistered = await cli(a, 'exam', 'import', input);
    assert.notEqual(unregistered.status, 0);
    assert.match(unregistered.stderr, /not registered in this tool: https:\/\/moodle\.example\.edu \(client id client-1, 3 exams\)/);
    const platform = ['--issuer', KEY.issuer, '--client-id', KEY.client_id, '--auth-url', `${KEY.issuer}/auth`, '--token-url', `${KEY.issuer}/token`, '--jwks-url', `${KEY.issuer}/jwks`, '--deployment-id', '1'];
    for (const dir of [a, b]) assert.equal((await cli(dir, 'platform', 'add', ...platform)).status, 0);
    const imported = await cli(a, 'exam', 'import', input);
    assert.equal(imported.status, 0, imported.stderr);
    assert.match(imported.stdout, /Imported 3 exams: 3 created, 0 updated/);

    const exported = await cli(a, 'exam', 'export', '--output', join(a, 'out.json'));
    assert.equal(exported.status, 0, exported.stderr);
    const file = JSON.parse(readFileSync(join(a, 'out.json'), 'utf8')) as ExamsFile;
    assert.equal(file.exams.length, 3);
    const course = await cli(a, 'exam', 'export', '--course', 'course-b');
    assert.equal(course.status, 0, course.stderr);
    assert.deepEqual((JSON.parse(course.stdout) as ExamsFile).exams.map((e) => e.title), ['Quiz 3 — “Σ”']);

    assert.equal((await cli(b, 'exam', 'import', join(a, 'out.json'))).status, 0);
    const moved = JSON.parse((await cli(b, 'exam', 'export')).stdout) as ExamsFile;
    assert.deepEqual(moved.exams, file.exams);

    const broken = sampleFile();
    broken.exams[0]!.settings = { ...broken.exams[0]!.settings, exam_start: '^https://nowhere\\.example/' };
    broken.exams[1]!.title = 'Must not appear';
    writeFileSync(join(b, 'broken.json'), JSON.stringify(broken));
    const refused = await cli(b, 'exam', 'import', join(b, 'broken.json'));
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /Nothing was imported/);
    assert.match(refused.stderr, /Exam #1 \(issuer=https:\/\/moodle\.example\.edu client_id=client-1 deployment_id=1 context_id=course-a resource_link_id=link-1\)/);
    assert.match(refused.stderr, /settings\.exam_start: The exam start page pattern must match/);
    assert.deepEqual((JSON.parse((await cli(b, 'exam', 'export')).stdout) as ExamsFile).exams, file.exams);

    writeFileSync(join(b, 'nonsense.json'), '{ not json');
    const nonsense = await cli(b, 'exam', 'import', join(b, 'nonsense.json'));
    assert.equal(nonsense.status, 1);
    assert.match(nonsense.stderr, /not valid JSON/);
  });
});
