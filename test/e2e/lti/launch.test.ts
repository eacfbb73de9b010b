import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { launch } from '../../helpers/lti-flow.js';

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('LTI launch through the demo LMS to the Launch API emulator', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app.close();
  });

  const received = () => app.tool.sandbox?.emulator.received ?? [];

  it('a Learner launch calls the candidate endpoint and answers 302 to its URL', async () => {
    const before = received().length;
    const { response } = await launch(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
    assert.equal(response.status, 302, response.text.slice(0, 500));
    const location = response.headers.location as string;
    assert.ok(location.startsWith(`${app.baseUrl}/sandbox/proctoring/session/`), location);
    const calls = received().slice(before);
    assert.equal(calls.length, 1);
    const call = calls[0]!;
    assert.equal(call.endpoint, '/v2/candidate/launch');
    assert.equal(call.apiKeyValid, true);
    const body = call.body as Record<string, unknown>;
    for (const field of ['launch_url', 'exam_start', 'exam_take', 'exam_end', 'user_id', 'exam_settings']) {
      assert.ok(body[field] !== undefined, `candidate body lacks ${field}`);
    }
    assert.match(String(body.user_id), UUID_SHAPE);
    assert.ok(location.endsWith(`#${String(body.exam_tag)}`), 'the #exam_tag fragment is kept');
    assert.equal(JSON.stringify(body).includes('María'), false, 'no names go to the proctoring service');
  });

  it('an Instructor launch opens the hub; its "Open review center" calls the reviewer endpoint and answers 302 to its URL', async () => {
    const before = received().length;
    const { response, auth } = await launch(app, { user: 'instructor', flavor: 'canvas', presentation: 'window' });
    assert.equal(response.status, 200, response.text.slice(0, 500));
    assert.equal(received().length, before, 'the hub itself calls nothing upstream');
    const action = /<form method="post" action="([^"]+\/review)"/.exec(response.text)?.[1];
    const ltik = /name="ltik" value="([^"]+)"/.exec(response.text)?.[1];
    const csrf = /name="_csrf" value="([^"]+)"/.exec(response.text)?.[1];
    assert.ok(action && ltik && csrf, 'the hub has the review button');
    const pressed = await auth.agent.post(action).type('form').send({ ltik, _csrf: csrf });
    assert.equal(pressed.status, 302, pressed.text.slice(0, 500));
    const calls = received().slice(before);
    assert.equal(calls.length, 1);
    assert.equal(calls[0]!.endpoint, '/v2/reviewer/launch');
    assert.equal(calls[0]!.apiKeyValid, true);
    const body = calls[0]!.body as Record<string, unknown>;
    assert.match(String(body.user_id), UUID_SHAPE);
    assert.ok(body.exam_settings && typeof body.exam_settings === 'object');
  });

  it('a launch shown in a frame moves the top window instead of redirecting inside the frame', async () => {
    const { response } = await launch(app, { user: 'student', flavor: 'moodle', presentation: 'iframe' });
    assert.equal(response.status, 200);
    assert.match(response.text, /target="_top"/);
    assert.match(response.text, /sandbox\/proctoring\/session\//);
  });

  it('the same student resumes the same attempt and gets the same pseudonymous user_id', async () => {
    const before = received().length;
    await launch(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
    await launch(app, { user: 'student', flavor: 'canvas', presentation: 'window' });
    const [first, second] = received().slice(before).map((call) => call.body as Record<string, unknown>);
    assert.equal(first?.user_id, second?.user_id);
    assert.equal(first?.attempt_id, second?.attempt_id);
    assert.equal(first?.exam_tag, second?.exam_tag);
  });

  it('the graceful return records the outcome and the next launch starts a new attempt', async () => {
    const before = received().length;
    const { auth } = await launch(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
    const body = received().at(-1)!.body as { attempt_id: string; redirect_settings: { graceful_submission_url: string } };
    const back = await auth.agent.get(new URL(body.redirect_settings.graceful_submission_url).pathname + new URL(body.redirect_settings.graceful_submission_url).search);
    assert.equal(back.status, 303, back.text.slice(0, 300));
    assert.match(back.headers.location as string, /sandbox\/lms/);
    await launch(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
    const next = received().at(-1)!.body as { attempt_id: string };
    assert.ok(received().length > before);
    assert.notEqual(next.attempt_id, body.attempt_id);
    const forged = await auth.agent.get(`/return/${next.attempt_id}/submitted?sig=AAAA`);
    assert.equal(forged.status, 403);
  });

  it('50 concurrent launches by the same user all succeed', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, () => launch(app, { user: 'student', flavor: 'moodle', presentation: 'window' }).then((r) => r.response.status)),
    );
    assert.deepEqual(results, Array.from({ length: 50 }, () => 302));
  });
});
