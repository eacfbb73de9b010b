import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAuditLog } from '../../../src/admin/audit.js';
import { exportExams } from '../../../src/exams/transfer.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { ADMIN_TEST_PASSWORD, signedInAgent } from '../../helpers/admin.js';
import { launch } from '../../helpers/lti-flow.js';
import { hiddenField } from '../../helpers/urls.js';

describe('admin console: operations pages', () => {
  let app: TestApp;
  let admin: Awaited<ReturnType<typeof signedInAgent>>;
  before(async () => {
    app = await startTestApp({ ADMIN_PASSWORD: ADMIN_TEST_PASSWORD });
    admin = await signedInAgent(app);
    await launch(app, { user: 'instructor' });
    await launch(app, { user: 'student' });
    await app.tool.launchesRecorded();
  });
  after(async () => {
    await app.close();
  });

  it('an exam whose deep-linking form was left before the LMS added the link is not on the Exams page', async () => {
    const picker = await launch(app, { user: 'instructor', kind: 'deep-linking', flavor: 'moodle', presentation: 'window' });
    const action = /<form method="post" action="([^"]+)"/.exec(picker.response.text)?.[1] ?? '';
    const fields = { ltik: hiddenField(picker.response.text, 'ltik'), _csrf: hiddenField(picker.response.text, '_csrf') };
    const title = 'Abandoned picker exam';
    const created = await picker.auth.agent.post(action).type('form').send({ ...fields, title, lms_preset: 'moodle', quiz_url: 'https://moodle.example.edu/mod/quiz/view.php?id=5', security_preset: 'strict-lockdown' });
    assert.equal(created.status, 200, created.text.slice(0, 300));
    // The teacher closes the LMS's dialog: the signed response is never posted to the LMS.
    const list = await admin.agent.get('/admin/exams').expect(200);
    assert.doesNotMatch(list.text, new RegExp(title));
    // The other tests count the demo course's exams.
    await app.db.query('DELETE FROM exams WHERE title = $1', [title]);
  });

  it('searches the launch log by incident id, course, exam, outcome and time', async () => {
    const demo = app.tool.sandbox!.demoLms;
    await app.db.query("UPDATE launch_log SET incident_id = 'incident-1234' WHERE id = (SELECT min(id) FROM launch_log)");
    const all = await admin.agent.get('/admin/launches').expect(200);
    assert.ok((all.text.match(/<tr>/g) ?? []).length >= 3, 'header and at least two launches');
    const byIncident = await admin.agent.get('/admin/launches?incident=incident-1234').expect(200);
    assert.equal((byIncident.text.match(/<tr>/g) ?? []).length, 2);
    const byCourse = await admin.agent.get(`/admin/launches?course=${encodeURIComponent(demo.course.id)}`).expect(200);
    assert.ok((byCourse.text.match(/<tr>/g) ?? []).length >= 3);
    const none = await admin.agent.get('/admin/launches?outcome=upstream_error').expect(200);
    assert.match(none.text, /No launch matches/);
    const future = await admin.agent.get('/admin/launches?from=2999-01-01T00:00').expect(200);
    assert.match(future.text, /No launch matches/);
    const [exam] = (await exportExams(app.db)).exams;
    assert.ok(exam?.id);
    const byExam = await admin.agent.get(`/admin/launches?exam=${exam.id}`).expect(200);
    assert.ok((byExam.text.match(/<tr>/g) ?? []).length >= 2);
  });

  it('lists roster problems: members without names and courses without Names and Roles', async () => {
    await app.db.query("UPDATE lti_contexts SET roster_checked_at = now(), roster_members = 5, roster_unnamed = 2");
    await app.db.query(`INSERT INTO lti_contexts (section_id, issuer, client_id, deployment_id, context_id, title) VALUES ('s-no-nrps', 'https://lms.example', 'c', 'd', 'course-without-nrps', 'History 101')`);
    const page = await admin.agent.get('/admin/roster').expect(200);
    assert.match(page.text, /History 101/);
    assert.match(page.text, /status-bad">2</);
  });

  it('shows LMS data without its raw control characters: escapes instead of terminal codes and bidi overrides', async () => {
    await app.db.query(`INSERT INTO lti_contexts (section_id, issuer, client_id, deployment_id, context_id, title) VALUES ('s-controls', 'https://lms.example', 'c', 'd', 'course-controls', $1)`, ['Evil\u001b[2J\u202eesruoC\u0007']);
    const page = await admin.agent.get('/admin/roster').expect(200);
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(page.text, /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    assert.ok(page.text.includes('Evil\\x1b[2J\\u{202e}esruoC\\x07'), 'shown as visible escapes');
  });

  it('exports every exam and imports them back, all or nothing', async () => {
    const list = await admin.agent.get('/admin/exams').expect(200);
    const file = await exportExams(app.db);
    assert.ok(list.text.includes(file.exams[0]!.title));
    const exported = await admin.agent.get('/admin/exams/export').expect(200);
    assert.match(String(exported.headers['content-disposition']), /attachment; filename="exams-/);
    const body = JSON.parse(exported.text) as typeof file;
    assert.equal(body.exams.length, file.exams.length);

    const broken = { ...body, exams: [{ ...body.exams[0]!, title: 'Renamed' }, { ...body.exams[0]!, resource_link_id: 'other', settings: { exam_url: 'not a url' } }] };
    const refused = await admin.agent.post('/admin/exams/import').field('_csrf', await admin.csrf()).attach('file', Buffer.from(JSON.stringify(broken)), 'exams.json');
    assert.equal(refused.status, 400);
    assert.match(refused.text, /Nothing was imported/);
    assert.ok(refused.text.includes(`Exam #2, “${body.exams[0]!.title}”`), 'a refused exam is named by its title');
    assert.notEqual((await exportExams(app.db)).exams[0]!.title, 'Renamed', 'the valid exam was not imported either');

    const notJson = await admin.agent.post('/admin/exams/import').type('form').send({ _csrf: await admin.csrf(), json: '{oops' });
    assert.equal(notJson.status, 400);
    assert.match(notJson.text, /not valid JSON/);

    const renamed = { ...body, exams: [{ ...body.exams[0]!, title: 'Renamed' }] };
    const dryRun = await admin.agent.post('/admin/exams/import').type('form').send({ _csrf: await admin.csrf(), json: JSON.stringify(renamed) });
    assert.equal(dryRun.status, 200);
    assert.match(dryRun.text, /Dry run: nothing is imported yet/);
    assert.match(dryRun.text, /creates 0 exams and overwrites 1 existing exam/);
    assert.notEqual((await exportExams(app.db)).exams.find((e) => e.id === body.exams[0]!.id)!.title, 'Renamed', 'a dry run writes nothing');
    const unticked = await admin.agent.post('/admin/exams/import/confirm').type('form').send({ _csrf: await admin.csrf(), json: JSON.stringify(renamed) });
    assert.equal(unticked.status, 400);
    assert.match(unticked.text, /tick “Overwrite”/);
    assert.notEqual((await exportExams(app.db)).exams.find((e) => e.id === body.exams[0]!.id)!.title, 'Renamed', 'not overwritten without asking');
    const ok = await admin.agent.post('/admin/exams/import/confirm').type('form').send({ _csrf: await admin.csrf(), json: JSON.stringify(renamed), overwrite: 'yes' });
    assert.equal(ok.status, 303);
    assert.match((await admin.agent.get(String(ok.headers.location))).text, /0 created, 1 updated/);
    assert.equal((await exportExams(app.db)).exams.find((e) => e.id === body.exams[0]!.id)!.title, 'Renamed');
    assert.equal((await createAuditLog(app.db).list({ action: 'exam.import' })).length, 1);
  });
});
