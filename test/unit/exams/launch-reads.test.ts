// What a student's launch reads of its exam: shared by the launches of the next seconds, read again after
// any change this process makes, and never changed by a launch.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccommodationStore } from '../../../src/exams/accommodations/store.js';
import type { ExamSettingsDocument } from '../../../src/exams/settings/document.js';
import { SETTINGS_DOCUMENT_VERSION } from '../../../src/exams/settings/versions.js';
import { createExamStore, type ExamKey } from '../../../src/exams/store.js';
import type { Database } from '../../../src/db/types.js';
import { EXAM_SETTINGS_OFF } from '../../../src/proctoring/contract.js';
import { migratedTestDatabase, type TestDatabase } from '../../helpers/db.js';

const validSettings = (): ExamSettingsDocument => ({
  version: SETTINGS_DOCUMENT_VERSION,
  launch_url: 'https://moodle.example.edu/mod/quiz/view.php?id=42',
  exam_start: '^https://moodle\\.example\\.edu/mod/quiz/(view|startattempt)\\.php.*',
  exam_take: '^https://moodle\\.example\\.edu/mod/quiz/(attempt|summary|processattempt|startattempt)\\.php.*',
  exam_end: '^https://moodle\\.example\\.edu/mod/quiz/review\\.php.*',
  exam_settings: { ...EXAM_SETTINGS_OFF, record_video: true, verify_video: true },
  expire: 3600,
});

describe("a student's launch reads of its exam", () => {
  let db: TestDatabase;
  before(async () => {
    db = await migratedTestDatabase();
  });
  after(() => db.close());

  /** The database, counting the statements that read exams or accommodations. */
  function counting(): { db: Database; reads: () => number } {
    let reads = 0;
    const query: Database['query'] = (sql, params) => {
      if (/^\s*SELECT/i.test(sql) && /exams|exam_accommodations/.test(sql)) reads += 1;
      return db.query(sql, params);
    };
    return { db: { ...db, query }, reads: () => reads };
  }

  let keyCount = 0;
  const newKey = (): ExamKey => ({ issuer: 'https://lms.example', clientId: 'c1', deploymentId: 'd1', contextId: 'course', resourceLinkId: `link-${(keyCount += 1)}` });

  it('a class launching together reads the exam once; a student with an accommodation costs one read more', async () => {
    const { db: countingDb, reads } = counting();
    const exams = createExamStore(countingDb);
    const key = newKey();
    const exam = await exams.ensure(key, 'Quiz');
    await exams.saveSettings(exam.id, validSettings());
    await createAccommodationStore(db).set(exam.id, 'u-extra', { expire: 7200 }, { userId: 'teacher' });

    const before = reads();
    const found = await Promise.all(Array.from({ length: 30 }, (_, i) => exams.findForStudent(key, `u-${i}`)));
    assert.equal(reads() - before, 1, 'thirty students, one read');
    assert.ok(found.every((f) => f?.exam.id === exam.id && f.accommodation === undefined));

    const extra = await exams.findForStudent(key, 'u-extra');
    assert.equal(reads() - before, 2);
    assert.equal(extra?.accommodation?.expire, 7200);
  });

  it('an unknown exam is read once too, and known at once once this process creates it', async () => {
    const { db: countingDb, reads } = counting();
    const exams = createExamStore(countingDb);
    const key = newKey();
    assert.equal(await exams.findForStudent(key, 'u1'), undefined);
    assert.equal(await exams.findForStudent(key, 'u2'), undefined);
    assert.equal(reads(), 1);
    const exam = await exams.ensure(key, 'Quiz');
    assert.equal((await exams.findForStudent(key, 'u1'))?.exam.id, exam.id);
  });

  it('every change this process makes is seen by the next launch: settings, status, availability, accommodations', async () => {
    const exams = createExamStore(db);
    const accommodations = createAccommodationStore(db);
    const key = newKey();
    const exam = await exams.ensure(key, 'Quiz');
    assert.equal((await exams.findForStudent(key, 'u1'))?.exam.settings, null);
    await exams.saveSettings(exam.id, validSettings());
    assert.ok((await exams.findForStudent(key, 'u1'))?.exam.settings);
    await exams.setStatus(exam.id, 'closed');
    assert.equal((await exams.findForStudent(key, 'u1'))?.exam.status, 'closed');
    const opensAt = new Date(Date.now() + 3_600_000);
    await exams.setAvailability(exam.id, { opensAt, practice: false });
    assert.equal((await exams.findForStudent(key, 'u1'))?.exam.opensAt?.getTime(), opensAt.getTime());
    await accommodations.set(exam.id, 'u1', { expire: 5400 }, { userId: 'teacher' });
    assert.equal((await exams.findForStudent(key, 'u1'))?.accommodation?.expire, 5400);
    await accommodations.remove(exam.id, 'u1', { userId: 'teacher' });
    assert.equal((await exams.findForStudent(key, 'u1'))?.accommodation, undefined);
  });

  it('the shared exam cannot be changed by the launch that reads it', async () => {
    const exams = createExamStore(db);
    const key = newKey();
    const exam = await exams.ensure(key, 'Quiz');
    await exams.saveSettings(exam.id, validSettings());
    const found = await exams.findForStudent(key, 'u1');
    assert.ok(found?.exam.settings);
    const settings = found.exam.settings as Record<string, unknown>;
    assert.throws(() => {
      settings.launch_url = 'https://evil.example';
    }, TypeError);
    assert.throws(() => {
      (found.exam as { title: string }).title = 'Changed';
    }, TypeError);
    assert.notEqual((await exams.findForStudent(key, 'u2'))?.exam.title, 'Changed');
  });
});
