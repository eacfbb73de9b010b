// Opening and closing times, their time zone and the practice flag, through the settings API: validated with a
// message next to each field, saved with the settings, shown back as entered, and in the change history.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Exam } from '../../../src/exams/store.js';
import { createAttemptStore } from '../../../src/exams/attempts.js';
import { localizeViolation } from '../../../src/exams/settings/violations.js';
import { translator } from '../../../src/i18n/index.js';
import type { Violation } from '../../../src/proctoring/contract.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { openDemoExamSettings, type SettingsInstructor } from '../../helpers/settings-page.js';

describe('exam availability in the settings API', () => {
  let app: TestApp;
  let exam: Exam;
  let instructor: SettingsInstructor;

  before(async () => {
    app = await startTestApp();
    ({ exam, instructor } = await openDemoExamSettings(app));
  });
  after(async () => {
    await app.close();
  });

  const current = async () => {
    const answer = await instructor.agent.get(`/lti/api/exams/${exam.id}/settings`).set('Authorization', `Bearer ${instructor.ltik}`);
    assert.equal(answer.status, 200);
    return answer.body as { settings: object; availability: { opens_at: string | null; closes_at: string | null; time_zone: string; practice: boolean } };
  };
  const save = async (availability: unknown) => {
    const { settings } = await current();
    return instructor.agent
      .put(`/lti/api/exams/${exam.id}/settings`)
      .set('Authorization', `Bearer ${instructor.ltik}`)
      .set('x-csrf-token', instructor.csrf)
      .send({ settings, availability });
  };

  const refusals: Array<[string, unknown, string, RegExp]> = [
    ['a time skipped by the spring change in Europe/Berlin', { opens_at: '2027-03-28T02:30', closes_at: null, time_zone: 'Europe/Berlin', practice: false }, 'availability.opens_at', /2027-03-28 02:30 does not exist in Europe\/Berlin/],
    ['a time skipped in America/New_York', { opens_at: null, closes_at: '2027-03-14T02:15', time_zone: 'America/New_York', practice: false }, 'availability.closes_at', /does not exist in America\/New_York/],
    ['a closing time before the opening', { opens_at: '2027-05-04T09:00', closes_at: '2027-05-04T08:59', time_zone: 'UTC', practice: false }, 'availability.closes_at', /must be after the opening/],
    ['a closing time equal to the opening', { opens_at: '2027-05-04T09:00', closes_at: '2027-05-04T09:00', time_zone: 'UTC', practice: false }, 'availability.closes_at', /must be after the opening/],
    ['an unknown time zone', { opens_at: '2027-05-04T09:00', closes_at: null, time_zone: 'Mars/Olympus', practice: false }, 'availability.time_zone', /time zone from the list/],
    ['a malformed time', { opens_at: '4 May 2027', closes_at: null, time_zone: 'UTC', practice: false }, 'availability.opens_at', /Enter a date and a time/],
    ['a date that does not exist', { opens_at: '2027-02-30T09:00', closes_at: null, time_zone: 'UTC', practice: false }, 'availability.opens_at', /Enter a date and a time/],
    ['an unknown member', { opens_at: null, closes_at: null, time_zone: 'UTC', practice: false, extra: 1 }, 'availability.extra', /./],
  ];
  for (const [what, availability, path, message] of refusals) {
    it(`refuses ${what}, saving nothing`, async () => {
      const before = await current();
      const answer = await save(availability);
      assert.equal(answer.status, 422);
      const violation = (answer.body.violations as Array<{ path: string; message: string }>).find((v) => v.path === path);
      assert.ok(violation, `a violation at ${path}: ${JSON.stringify(answer.body.violations)}`);
      assert.match(violation.message, message);
      assert.deepEqual((await current()).availability, before.availability);
    });
  }

  it("says so in the reader's language", async () => {
    const answer = await save({ opens_at: '2027-03-28T02:30', closes_at: null, time_zone: 'Europe/Berlin', practice: false });
    const [violation] = answer.body.violations as Violation[];
    assert.ok(violation);
    assert.match(localizeViolation(translator('de').t, violation).message, /2027-03-28 02:30 gibt es in Europe\/Berlin nicht/);
    assert.match(localizeViolation(translator('ar').t, violation).message, /2027-03-28 02:30.*Europe\/Berlin/);
  });

  it('saves the window and the practice flag, shows them back as entered, and records them in words', async () => {
    // 02:30 on the autumn change happens twice in Europe/Berlin: the first one (summer time, UTC+2) is meant.
    const answer = await save({ opens_at: '2027-10-31T02:30', closes_at: '2027-11-02T17:00', time_zone: 'Europe/Berlin', practice: true });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body.availability, { opens_at: '2027-10-31T02:30', closes_at: '2027-11-02T17:00', time_zone: 'Europe/Berlin', practice: true });
    const stored = await app.db.query<{ opens_at: Date; closes_at: Date; practice: boolean }>('SELECT opens_at, closes_at, practice FROM exams WHERE id = $1', [exam.id]);
    assert.equal(new Date(stored.rows[0]!.opens_at).toISOString(), '2027-10-31T00:30:00.000Z');
    assert.equal(new Date(stored.rows[0]!.closes_at).toISOString(), '2027-11-02T16:00:00.000Z');
    assert.equal(stored.rows[0]!.practice, true);
    const lines = (answer.body.history as Array<{ changes: Array<{ text: string }> }>)[0]!.changes.map((c) => c.text);
    assert.ok(lines.includes('Opens: not set → 2027-10-31 02:30 (Europe/Berlin)'), lines.join(' | '));
    assert.ok(lines.includes('Closes: not set → 2027-11-02 17:00 (Europe/Berlin)'), lines.join(' | '));
    assert.ok(lines.includes('Practice exam: off → on'), lines.join(' | '));

    // Cleared again: open at once, no end.
    const cleared = await save({ opens_at: null, closes_at: '', time_zone: 'Europe/Berlin', practice: false });
    assert.equal(cleared.status, 200);
    assert.deepEqual(cleared.body.availability, { opens_at: null, closes_at: null, time_zone: 'Europe/Berlin', practice: false });
  });

  it('shows the fields on the settings page with the stored values, and the hub its window and practice badge', async () => {
    assert.equal((await save({ opens_at: '2099-01-05T09:00', closes_at: null, time_zone: 'America/New_York', practice: true })).status, 200);
    const page = await instructor.agent.post(`/lti/exams/${exam.id}/settings`).type('form').send({ ltik: instructor.ltik });
    assert.equal(page.status, 200);
    assert.match(page.text, /<input type="datetime-local" id="f-availability-opens_at" name="availability.opens_at" value="2099-01-05T09:00"/);
    assert.match(page.text, /<option value="America\/New_York" selected>America\/New York<\/option>/);
    assert.match(page.text, /id="f-availability-practice"[^>]* checked/);
    await createAttemptStore(app.db).startOrResume({ examId: exam.id, userId: 'practising-student', isTest: false, practice: true });
    const hub = await instructor.agent.post(`/lti/hub/${exam.id}`).type('form').send({ ltik: instructor.ltik });
    assert.equal(hub.status, 200);
    assert.match(hub.text, /data-practice>Practice</);
    assert.match(hub.text, /data-practice-attempt>Practice</, 'the practice attempt is marked');
    assert.match(hub.text, /data-window="notYetOpen">Opens Monday, January 5, 2099 at 9:00\sAM \(America\/New York\)</);
    assert.equal((await save({ opens_at: null, closes_at: null, time_zone: 'UTC', practice: false })).status, 200);
  });
});
