// Moodle sends plain Instructor for its proctors and non-editing teachers: a course names its proctors on the hub,
// non-editing teachers get what "teaching assistants may edit" says, and staff are never among the candidates.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createCourseStaffStore } from '../../../src/institution/course-staff.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { callsDuring, launchAs, setInstitution } from '../../helpers/launches.js';
import { hiddenField, pathOf } from '../../helpers/urls.js';

describe('course proctors and staff in a Moodle-like course', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app.close();
  });
  beforeEach(async () => {
    await setInstitution(app, {});
  });

  /** The option values of a select of the hub, by the option's text. */
  function options(html: string, selectId: string): Map<string, string> {
    const select = new RegExp(`<select id="${selectId}"[^>]*>([\\s\\S]*?)</select>`).exec(html)?.[1] ?? '';
    return new Map([...select.matchAll(/<option value="([^"]+)">([^<]*)<\/option>/g)].map((m) => [m[2]!.trim(), m[1]!]));
  }

  it('an instructor names the proctor from the roster: the proctor then reaches live monitoring only, teachers keep the hub', async () => {
    await app.db.query('UPDATE course_staff SET proctor_named_at = NULL, proctor_named_by = NULL');
    const instructor = await launchAs(app, { user: 'instructor', flavor: 'moodle', presentation: 'window' });
    assert.equal(instructor.response.status, 200);
    assert.match(instructor.response.text, /data-proctors/);
    const members = options(instructor.response.text, 'proctor-member');
    const proctorId = members.get('فاطمة الزهراء');
    assert.ok(proctorId, `the proctor is offered: ${[...members.keys()].join(', ')}`);
    assert.ok(!members.has('Олена Коваленко'), 'not the instructor looking');

    const action = /<form method="post" action="([^"]+\/proctors\/name)"/.exec(instructor.response.text)?.[1] ?? '';
    const named = await instructor.agent.post(action).type('form').send({ ltik: hiddenField(instructor.response.text, 'ltik'), _csrf: hiddenField(instructor.response.text, '_csrf'), member: proctorId });
    assert.equal(named.status, 200, named.text.slice(0, 300));
    assert.match(named.text, /is now a proctor of this course/);
    assert.match(named.text, new RegExp(`data-proctor="${proctorId}"`));

    const calls = await callsDuring(app, () => launchAs(app, { user: 'proctor', flavor: 'moodle', presentation: 'window' }));
    assert.equal(calls.result.response.status, 302, calls.result.response.text.slice(0, 300));
    assert.deepEqual(calls.calls.map((call) => call.endpoint), ['/v2/live/launch']);

    // The named proctor's launch leaves no session that opens the settings page or the hub (accommodations).
    const proctor = calls.result;
    const examId = /\/lti\/hub\/([0-9a-f-]{36})/.exec(instructor.response.text)?.[1] ?? '';
    const settings = await proctor.agent.post(`/lti/exams/${examId}/settings`).type('form').send({ ltik: proctor.ltik });
    assert.ok([401, 403].includes(settings.status), `settings page: ${settings.status}`);
    const hub = await proctor.agent.post(`/lti/hub/${examId}`).type('form').send({ ltik: proctor.ltik });
    assert.ok([401, 403].includes(hub.status), `hub: ${hub.status}`);

    // Teachers keep the hub.
    const again = await launchAs(app, { user: 'instructor', flavor: 'moodle', presentation: 'window' });
    assert.match(again.response.text, /data-edit-settings/);
  });

  it('a non-editing teacher edits settings only when teaching assistants may', async () => {
    const before = await launchAs(app, { user: 'ta', flavor: 'moodle', presentation: 'window' });
    assert.doesNotMatch(before.response.text, /data-edit-settings/);
    assert.match(before.response.text, /data-action="live"/);
    await setInstitution(app, { teachingAssistantsMayEdit: true });
    const after = await launchAs(app, { user: 'ta', flavor: 'moodle', presentation: 'window' });
    assert.match(after.response.text, /data-edit-settings/);
  });

  for (const flavor of ['canvas', 'moodle'] as const) {
    it(`${flavor}-like: staff are not in the accommodation picker nor in the live roster`, async () => {
      // Moodle lists its non-editing teachers (the TA and the proctor) as learners: their staff launches tell.
      await launchAs(app, { user: 'ta', flavor, presentation: 'window' });
      await launchAs(app, { user: 'proctor', flavor, presentation: 'window' });
      const instructor = await launchAs(app, { user: 'instructor', flavor, presentation: 'window' });
      const students = options(instructor.response.text, 'accommodation-student');
      assert.ok(students.has('María José Núñez'), `a student is offered: ${[...students.keys()].join(', ')}`);
      for (const staff of ['Олена Коваленко', '李明', 'فاطمة الزهراء']) assert.ok(!students.has(staff), `${staff} is not offered`);

      // The roster the proctoring service reads (roster_url of a student's launch).
      const { calls, result } = await callsDuring(app, () => launchAs(app, { user: 'student', flavor, presentation: 'window' }));
      const rosterUrl = (calls.find((call) => call.endpoint === '/v2/candidate/launch')?.body as { roster_url?: string } | undefined)?.roster_url;
      assert.ok(rosterUrl, 'the candidate launch names its roster');
      const roster = await result.agent.get(pathOf(rosterUrl));
      assert.equal(roster.status, 200, roster.text.slice(0, 200));
      const pairs = JSON.parse(roster.text) as Array<[string, string]>;
      assert.ok(pairs.some(([, name]) => name === 'María José Núñez'));
      for (const staff of ['Олена Коваленко', '李明', 'فاطمة الزهراء']) assert.ok(!pairs.some(([, name]) => name === staff), `${staff} is not in the roster`);
    });
  }

  it('a named proctor is remembered per course', async () => {
    const store = createCourseStaffStore(app.db);
    const course = { issuer: 'https://lms.example', clientId: 'c', deploymentId: '1', contextId: 'k' };
    await store.nameProctor(course, 'u-1', 'teacher');
    assert.equal(await store.isNamedProctor(course, 'u-1'), true);
    assert.equal(await store.isNamedProctor({ ...course, contextId: 'other' }, 'u-1'), false);
    assert.equal(await store.unnameProctor(course, 'u-1'), true);
    assert.equal(await store.isNamedProctor(course, 'u-1'), false);
  });
});
