// Attempts of LMS test users in the hub and the CSV: Canvas's Student View user (TestUser role) and a Moodle
// teacher who switched to the Student role (a learner launch by someone the course roster lists as staff) are
// marked as tests and can be left out or shown alone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { derived, downloadAttemptsCsv, launchAs, oneCall, type Derived, type Flavor } from '../../helpers/launches.js';

describe('test attempts in the hub and the CSV', () => {
  let app: TestApp;
  let d: Derived;
  let issuer: string;
  before(async () => {
    app = await startTestApp();
    d = await derived(app);
    issuer = app.tool.sandbox!.demoLms.registration.issuer;
  });
  after(async () => {
    await app.close();
  });

  const candidate = async (user: 'student' | 'test-student', flavor: Flavor) =>
    (await oneCall(app, '/v2/candidate/launch', () => launchAs(app, { user, flavor, presentation: 'window' }))).body;
  const hubOf = (fields: Record<string, string> = {}) =>
    launchAs(app, { user: 'instructor', flavor: 'moodle', presentation: 'window' }).then(async (hub) => {
      if (Object.keys(fields).length === 0) return hub;
      const examId = /\/lti\/hub\/([0-9a-f-]{36})\//.exec(hub.response.text)?.[1] ?? '';
      const filtered = await hub.agent.post(`/lti/hub/${examId}`).type('form').send({ ltik: hub.ltik, ...fields });
      assert.equal(filtered.status, 200);
      return { ...hub, response: filtered };
    });

  it('a Moodle teacher switched to the Student role launches as a learner under their own id: the attempt is marked as a staff test', async () => {
    const moodleTest = await candidate('test-student', 'moodle');
    // Moodle's "Switch role to… Student" sends the teacher's own user id with the role Learner only.
    assert.equal(moodleTest.user_id, d.userId(issuer, '3'));
    const student = await candidate('student', 'moodle');
    const canvasTest = await candidate('test-student', 'canvas');

    const hub = await hubOf();
    const rowOf = (attemptId: unknown) => new RegExp(`<tr data-attempt="${String(attemptId)}"[^>]*>[\\s\\S]*?</tr>`).exec(hub.response.text)?.[0] ?? '';
    assert.match(rowOf(moodleTest.attempt_id), /data-test-student="staff"/, 'the teacher previewing as a student is a test');
    assert.match(rowOf(moodleTest.attempt_id), /Staff member as a student/);
    assert.match(rowOf(canvasTest.attempt_id), /data-test-student="lms"/);
    assert.doesNotMatch(rowOf(student.attempt_id), /data-test-student/);

    const csv = await downloadAttemptsCsv(hub);
    const testColumn = (userId: unknown) => csv.find((row) => row['Pseudonymous id'] === userId)?.['Test student'];
    assert.equal(testColumn(moodleTest.user_id), 'yes');
    assert.equal(testColumn(canvasTest.user_id), 'yes');
    assert.equal(testColumn(student.user_id), 'no');

    // Names: from the roster, or the reason there is none, in the hub and the CSV.
    assert.match(rowOf(moodleTest.attempt_id), /data-name>Олена Коваленко</, 'the teacher is in the roster: named');
    assert.match(rowOf(canvasTest.attempt_id), /data-name-missing="not_in_roster"[^>]*>Not in the course roster/);
    const nameOf = (userId: unknown) => csv.find((row) => row['Pseudonymous id'] === userId);
    assert.deepEqual([nameOf(student.user_id)?.Name, nameOf(student.user_id)?.['Name note']], ['María José Núñez', '']);
    assert.deepEqual([nameOf(canvasTest.user_id)?.Name, nameOf(canvasTest.user_id)?.['Name note']], ['', 'Not in the course roster (an LMS test user, or no longer enrolled)']);
  });

  it('the hub and the CSV leave test attempts out, or show them alone, as the filter says', async () => {
    const student = await candidate('student', 'canvas');
    const canvasTest = await candidate('test-student', 'canvas');

    const without = await hubOf({ tests: 'exclude' });
    assert.doesNotMatch(without.response.text, /data-test-student=/);
    assert.match(without.response.text, new RegExp(`data-attempt="${String(student.attempt_id)}"`));
    assert.match(without.response.text, /<option value="exclude" selected>/);
    const csvWithout = await downloadAttemptsCsv(without, { tests: 'exclude' });
    assert.ok(csvWithout.length > 0);
    assert.ok(csvWithout.every((row) => row['Test student'] === 'no'));

    const only = await hubOf({ tests: 'only' });
    assert.match(only.response.text, new RegExp(`data-attempt="${String(canvasTest.attempt_id)}"`));
    assert.doesNotMatch(only.response.text, new RegExp(`data-attempt="${String(student.attempt_id)}"`));
    const csvOnly = await downloadAttemptsCsv(only, { tests: 'only' });
    assert.ok(csvOnly.length > 0);
    assert.ok(csvOnly.every((row) => row['Test student'] === 'yes'));
  });
});
