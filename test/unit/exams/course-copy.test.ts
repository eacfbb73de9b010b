import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEEP_LINK_PLACEHOLDER_PREFIX, resolveExamForLaunch } from '../../../src/exams/course-copy.js';
import { createSettingsChangeLog } from '../../../src/exams/settings/changes.js';
import { createAccommodationStore } from '../../../src/exams/accommodations/store.js';
import { createExamStore, type ExamKey, type ExamStore } from '../../../src/exams/store.js';
import { EXAM_SETTINGS_OFF } from '../../../src/proctoring/contract.js';
import { migratedTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { settingsDocument } from '../../helpers/proctoring.js';

const BASE = { issuer: 'https://canvas.example.edu', clientId: '1000', deploymentId: '1:abc' };
const key = (contextId: string, resourceLinkId: string): ExamKey => ({ ...BASE, contextId, resourceLinkId });
const SETTINGS = settingsDocument('https://canvas.example.edu/courses/1/quizzes/2', { exam_start: '^https://canvas\\.example\\.edu/courses/1/quizzes/.*', exam_settings: { ...EXAM_SETTINGS_OFF, record_video: true } });

describe('resolveExamForLaunch: deep-linked links and course copies', () => {
  let db: TestDatabase;
  let exams: ExamStore;
  before(async () => {
    db = await migratedTestDatabase();
    exams = createExamStore(db);
  });
  after(async () => {
    await db.close();
  });

  it('without a custom exam id it is ensure()', async () => {
    const exam = await resolveExamForLaunch(exams, key('c1', 'plain'), 'Plain');
    assert.equal(exam.title, 'Plain');
    assert.equal(exam.settings, null);
  });

  it('a deep-linked exam is claimed by the first launch of its link in the same course', async () => {
    const placeholder = await exams.ensure(key('c1', `${DEEP_LINK_PLACEHOLDER_PREFIX}1`), 'Deep linked');
    await exams.saveSettings(placeholder.id, SETTINGS);
    const exam = await resolveExamForLaunch(exams, key('c1', 'real-link'), 'Deep linked (LMS title)', placeholder.id);
    assert.equal(exam.id, placeholder.id);
    assert.equal(exam.resourceLinkId, 'real-link');
    assert.equal(exam.title, 'Deep linked (LMS title)');
    const again = await resolveExamForLaunch(exams, key('c1', 'real-link'), 'Deep linked (LMS title)', placeholder.id);
    assert.equal(again.id, placeholder.id);
  });

  it("an exam waiting for its deep-linked link is not in the course's lists until the link is launched", async () => {
    const placeholder = await exams.ensure(key('c-list', `${DEEP_LINK_PLACEHOLDER_PREFIX}2`), 'Waiting');
    await exams.saveSettings(placeholder.id, SETTINGS);
    await exams.ensure(key('c-list', 'linked'), 'Linked');
    const titles = async () => (await exams.listByContext(BASE.issuer, BASE.clientId, BASE.deploymentId, 'c-list')).map((exam) => exam.title);
    assert.deepEqual(await titles(), ['Linked']);
    await resolveExamForLaunch(exams, key('c-list', 'now-linked'), 'Waiting', placeholder.id);
    assert.deepEqual(await titles(), ['Linked', 'Waiting']);
  });

  it('a copied course gets a copy of the settings, once, and records it', async () => {
    const source = await exams.ensure(key('c1', 'source'), 'Source exam');
    await exams.saveSettings(source.id, SETTINGS);
    const changes = createSettingsChangeLog(db);
    const copy = await resolveExamForLaunch(exams, key('c2', 'copied'), '', source.id, { changes });
    assert.notEqual(copy.id, source.id);
    assert.equal(copy.title, 'Source exam', 'the title follows the source when the LMS sends none');
    assert.deepEqual(copy.settings, SETTINGS);
    assert.equal((await changes.recent(copy.id, 1))[0]?.source, 'course-copy');
    assert.equal(copy.quizAddressCheck, true, 'marked: the copy keeps the other course\'s quiz address');
    // The source changes later: the copy keeps its own settings.
    await exams.saveSettings(source.id, { ...SETTINGS, launch_url: 'https://canvas.example.edu/courses/1/quizzes/3' });
    const later = await resolveExamForLaunch(exams, key('c2', 'copied'), 'Copied', source.id, { changes });
    assert.deepEqual(later.settings, SETTINGS);
  });

  it('a copy of a practice exam is a practice exam; its opening and closing times stay behind', async () => {
    const source = await exams.ensure(key('c1', 'practice-source'), 'Setup check');
    await exams.saveSettings(source.id, SETTINGS);
    await exams.setAvailability(source.id, { opensAt: new Date('2027-01-10T08:00:00Z'), closesAt: new Date('2027-01-20T08:00:00Z'), timeZone: 'Europe/Paris', practice: true });
    const changes = createSettingsChangeLog(db);
    const copy = await resolveExamForLaunch(exams, key('c3', 'practice-copy'), '', source.id, { changes });
    assert.equal(copy.practice, true);
    assert.equal(copy.opensAt, undefined);
    assert.equal(copy.closesAt, undefined);
    assert.ok((await changes.recent(copy.id, 1))[0]?.changes.some((c) => c.path === 'availability.practice' && c.after === true));
  });

  it('a copy keeps the original\'s accommodations (the same students keep theirs) and records them', async () => {
    const accommodations = createAccommodationStore(db);
    const source = await exams.ensure(key('c1', 'accommodated-source'), 'Accommodated');
    await exams.saveSettings(source.id, SETTINGS);
    const student = '9a9ba1e4-aa39-86d5-8445-5c6ebd73691f';
    assert.equal((await accommodations.set(source.id, student, { exam_settings: { calculator: 1 }, expire: 9000 }, {})).ok, true);
    const changes = createSettingsChangeLog(db);
    const copy = await resolveExamForLaunch(exams, key('c4', 'accommodated-copy'), '', source.id, { changes, accommodations });
    assert.deepEqual(await accommodations.get(copy.id, student), { exam_settings: { calculator: 1 }, expire: 9000 });
    const recorded = (await changes.recent(copy.id, 1))[0]?.changes ?? [];
    assert.ok(recorded.some((c) => c.path === `accommodations.${student}.expire` && c.after === 9000));
    // Later changes of the original's accommodations stay with the original.
    await accommodations.remove(source.id, student, {});
    assert.deepEqual(await accommodations.get(copy.id, student), { exam_settings: { calculator: 1 }, expire: 9000 });
  });

  it('never copies onto a configured exam, nor from another platform, nor a placeholder of another course', async () => {
    const configured = await exams.ensure(key('c3', 'mine'), 'Mine');
    const mine = { ...SETTINGS, exam_take: 'mine' };
    await exams.saveSettings(configured.id, mine);
    const source = await exams.ensure(key('c1', 'source-2'), 'Source 2');
    await exams.saveSettings(source.id, SETTINGS);
    assert.deepEqual((await resolveExamForLaunch(exams, key('c3', 'mine'), 'Mine', source.id)).settings, mine);

    const foreign = await exams.ensure({ ...key('c1', 'foreign'), issuer: 'https://other.example.edu' }, 'Foreign');
    await exams.saveSettings(foreign.id, SETTINGS);
    assert.equal((await resolveExamForLaunch(exams, key('c4', 'new'), 'New', foreign.id)).settings, null);

    const placeholder = await exams.ensure(key('c1', `${DEEP_LINK_PLACEHOLDER_PREFIX}2`), 'Deep linked 2');
    await exams.saveSettings(placeholder.id, SETTINGS);
    const elsewhere = await resolveExamForLaunch(exams, key('c5', 'copied-before-first-launch'), 'X', placeholder.id);
    assert.notEqual(elsewhere.id, placeholder.id, 'a placeholder is only claimed in its own course');
    assert.deepEqual(elsewhere.settings, SETTINGS, 'but its settings are copied');
    assert.equal((await exams.get(placeholder.id))?.resourceLinkId, `${DEEP_LINK_PLACEHOLDER_PREFIX}2`);

    assert.equal((await resolveExamForLaunch(exams, key('c6', 'x'), 'X', 'not-a-uuid-at-all')).settings, null);
  });

  it("a placeholder copied into another course counts as used: retention measures its age from the copy", async () => {
    const template = await exams.ensure(key('template', `${DEEP_LINK_PLACEHOLDER_PREFIX}3`), 'Template exam');
    await exams.saveSettings(template.id, SETTINGS);
    const lastUsed = async () => (await db.query<{ updated_at: Date }>('SELECT updated_at FROM exams WHERE id = $1', [template.id])).rows[0]!.updated_at.getTime();
    await db.query("UPDATE exams SET updated_at = now() - interval '300 days' WHERE id = $1", [template.id]);
    const before = Date.now();
    await resolveExamForLaunch(exams, key('copy-of-template', 'link'), 'X', template.id);
    assert.ok((await lastUsed()) >= before - 1000, 'the copy moved its last use to now');
    await db.query("UPDATE exams SET updated_at = now() - interval '300 days' WHERE id = $1", [template.id]);
    await resolveExamForLaunch(exams, key('copy-of-template', 'link'), 'X', template.id);
    assert.ok((await lastUsed()) < before - 299 * 86_400_000, 'a launch of a copy already made is no new use');
  });
});
