// An LMS that changed its address (a new issuer, the same tool registration): its launches are refused until the
// administrator moves the platform, the console says which platform they look like, and after the move
// everything follows the students — their ids, accommodations, the attempt in progress (resumed), names — and
// the quiz addresses name the new site. Real launches through the OIDC flow, signed with the demo LMS's key.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JWTPayload } from 'jose';
import supertest from 'supertest';
import { signedInConsole } from '../../helpers/admin.js';
import { demoExam, derived, launchAs, oneCall, saveExamSettings } from '../../helpers/launches.js';
import { createAuditLog } from '../../../src/admin/audit.js';
import { platformKey } from '../../../src/lti/identifiers.js';
import { invalidateReadCaches } from '../../../src/db/read-cache.js';
import { pathOf } from '../../helpers/urls.js';

const STUDENT_NAME = 'María José Núñez';

describe('a platform at a new address: refused launches lead to the move, and the move carries everything', () => {
  const fixture = signedInConsole();

  const demo = () => fixture.app.tool.sandbox!.demoLms;
  /** Launches as if the demo LMS now answered at `issuer` (its tool registration, client id and key unchanged). */
  const launchFrom = (issuer: string, user: 'student' | 'instructor', change?: (claims: JWTPayload) => void) =>
    launchAs(fixture.app, {
      user,
      presentation: 'window',
      login: (params) => {
        params.iss = issuer;
      },
      claims: (claims) => {
        claims.iss = issuer;
        change?.(claims);
      },
    });
  const register = (issuer: string) => {
    const { registration } = demo();
    return fixture.app.tool.lti.platforms.register({
      issuer,
      clientId: registration.clientId,
      name: 'Demo LMS (moved)',
      authUrl: registration.authUrl,
      tokenUrl: registration.tokenUrl,
      key: { jwk: JSON.stringify(demo().jwks().keys[0]) },
      deploymentIds: registration.deploymentIds,
    });
  };
  /** The login initiation alone, its fields changed: refused before any redirect to the LMS. */
  const loginFrom = async (edit: (params: Record<string, string>) => void) => {
    const login = await demo().initiateLogin({ user: 'student', presentation: 'window' });
    edit(login.params);
    return supertest(fixture.app.baseUrl).post(pathOf(login.url)).type('form').send(login.params);
  };
  const refusedRows = async () => (await fixture.app.db.query<{ issuer: string; looks_like_issuer: string | null }>('SELECT issuer, looks_like_issuer FROM lti_refused_registrations ORDER BY issuer')).rows;

  it('a launch from an unknown issuer with a registered client id is listed as that platform at a new address, leading to the move', async () => {
    const renamed = 'https://moodle.renamed.example';
    const refused = await loginFrom((params) => {
      params.iss = renamed;
    });
    assert.equal(refused.status, 400, refused.text.slice(0, 300));
    assert.match(refused.text, /not registered/i);
    const { registration } = demo();
    assert.deepEqual(await refusedRows(), [{ issuer: renamed, looks_like_issuer: registration.issuer }]);

    const list = await fixture.admin.agent.get('/admin/platforms').expect(200);
    const oldKey = platformKey(registration.issuer, registration.clientId);
    const moveLink = `/admin/moves?${new URLSearchParams({ from: oldKey, newIssuer: renamed }).toString()}`;
    assert.match(list.text, /This looks like .+ at a new address: <a href="([^"]+)">move it<\/a>/);
    assert.ok(list.text.includes(`href="${moveLink.replace(/&/g, '&amp;')}"`), 'the link leads to the move, the old platform chosen');

    const movePage = await fixture.admin.agent.get(moveLink).expect(200);
    assert.match(movePage.text, /id="register-new-issuer"[^>]*>The refused launches came from <code>https:\/\/moodle\.renamed\.example<\/code>: register it first/);

    // An unknown issuer presenting nothing the tool knows is not kept (anyone can send those).
    // Nor one whose only likeness is a short deployment id (Moodle numbers its deployments 1, 2, … on every site).
    for (const deploymentId of ['unknown-deployment', registration.deploymentIds[0] ?? '1']) {
      const stranger = await loginFrom((params) => {
        params.iss = 'https://stranger.example';
        params.client_id = 'unknown-client';
        params.lti_deployment_id = deploymentId;
      });
      assert.equal(stranger.status, 400);
    }
    assert.deepEqual((await refusedRows()).map((row) => row.issuer), [renamed]);

    // A distinctive deployment id of a registered platform, under another client id, looks like it too.
    const distinctive = '812:4f5e3b2a9c1d';
    await fixture.app.tool.lti.deployments.add(registration.issuer, registration.clientId, distinctive);
    const renamedCanvas = await loginFrom((params) => {
      params.iss = 'https://canvas.renamed.example';
      params.client_id = 'another-client';
      params.lti_deployment_id = distinctive;
    });
    assert.equal(renamedCanvas.status, 400);
    assert.deepEqual(await refusedRows(), [
      { issuer: 'https://canvas.renamed.example', looks_like_issuer: registration.issuer },
      { issuer: renamed, looks_like_issuer: registration.issuer },
    ]);
  });

  it('after the move: the same ids, the accommodation, the attempt in progress resumed, names, the new quiz address; the old platform keeps its last launch', async () => {
    const { registration } = demo();
    const moved = 'https://lms.moved.example';
    const exam = await demoExam(fixture.app);
    assert.ok(exam.settings);
    const quizUrl = String(exam.settings.launch_url);
    assert.ok(quizUrl.startsWith(`${new URL(registration.issuer).origin}/`), `the demo quiz is on the demo LMS's site: ${quizUrl}`);
    await saveExamSettings(fixture.app, exam.id, exam.settings);
    const studentId = (await derived(fixture.app)).userId(registration.issuer, '5');

    // Before the move: the student starts the exam (an attempt in progress) and has an accommodation.
    const first = await oneCall(fixture.app, '/v2/candidate/launch', () => launchAs(fixture.app, { user: 'student', presentation: 'window' }));
    assert.equal(first.body.user_id, studentId);
    const attemptId = String(first.body.attempt_id);
    await fixture.app.db.query(`INSERT INTO exam_accommodations (exam_id, user_id, override) VALUES ($1, $2, '{"expire": 7200}')`, [exam.id, studentId]);
    invalidateReadCaches();

    // The LMS moves; its launches are refused until the administrator registers the new address and moves.
    await register(moved);
    const oldKey = platformKey(registration.issuer, registration.clientId);
    const newKey = platformKey(moved, registration.clientId);
    const post = async (path: string, fields: Record<string, string>) => fixture.admin.agent.post(`/admin/moves${path}`).type('form').send({ _csrf: await fixture.admin.csrf(), ...fields });
    // Once registered, the refused launches' link chooses both registrations.
    const choice = await fixture.admin.agent.get(`/admin/moves?${new URLSearchParams({ from: oldKey, newIssuer: moved }).toString()}`).expect(200);
    assert.match(choice.text, new RegExp(`<select id="from"[^>]*>[\\s\\S]*?<option value="${oldKey}" selected>`));
    assert.match(choice.text, new RegExp(`<select id="to"[^>]*>[\\s\\S]*?<option value="${newKey}" selected>`));
    assert.doesNotMatch(choice.text, /register-new-issuer/);
    const preview = await post('/preview', { from: oldKey, to: newKey });
    assert.equal(preview.status, 200, preview.text.slice(0, 3000));
    assert.match(preview.text, /Students keep their ids: the new issuer&#39;s are derived as the old one&#39;s\. 1 accommodation and 1 attempt \(1 in progress, resumed after the move\)/);
    const rewrittenQuiz = `${moved}${quizUrl.slice(new URL(quizUrl).origin.length)}`;
    assert.ok(preview.text.includes(`<td><code>launch_url</code></td><td><code>${quizUrl}</code></td><td><code>${rewrittenQuiz}</code></td>`), 'the preview lists the quiz address rewrite');
    assert.match(preview.text, /<td><code>exam_start<\/code><\/td><td><code>\^http:\/\/127\\\.0\\\.0\\\.1:\d+\/sandbox/);
    assert.equal((await demoExam(fixture.app)).settings?.launch_url, quizUrl, 'the preview changed nothing');

    const confirmed = await post('', { from: oldKey, to: newKey });
    assert.equal(confirmed.status, 303, confirmed.text.slice(0, 500));
    const [audited] = await createAuditLog(fixture.app.db).list({ action: 'platform.move' });
    assert.deepEqual(
      audited?.changes.filter((c) => ['studentIds', 'addressesRewritten', 'addressesToCheck'].includes(c.field)).map((c) => [c.field, c.new]),
      [['studentIds', 'kept'], ['addressesRewritten', '1'], ['addressesToCheck', '0']],
    );
    const movedExam = await fixture.app.db.query<{ settings: Record<string, string> }>('SELECT settings FROM exams WHERE id = $1', [exam.id]);
    assert.equal(movedExam.rows[0]?.settings.launch_url, rewrittenQuiz);

    // The student launches from the new address: the same id, the same attempt resumed, the accommodation applied.
    const again = await oneCall(fixture.app, '/v2/candidate/launch', () => launchFrom(moved, 'student'));
    assert.equal(again.body.user_id, studentId);
    assert.equal(again.body.attempt_id, attemptId, 'the attempt in progress is resumed');
    assert.equal(again.body.exam_tag, first.body.exam_tag, 'the same deployment id: the same exam tag');
    assert.equal(again.body.section_id, first.body.section_id);
    assert.equal(again.body.expire, 7200, 'the accommodation follows the student');
    assert.equal(again.body.launch_url, rewrittenQuiz);
    assert.equal((await fixture.app.db.query('SELECT 1 FROM attempts WHERE exam_id = $1', [exam.id])).rowCount, 1, 'no second attempt');

    // The instructor's hub names the student of the attempt from before the move (the roster derives the same id).
    const hub = await launchFrom(moved, 'instructor');
    assert.equal(hub.response.status, 200, hub.response.text.slice(0, 300));
    const row = new RegExp(`<tr data-attempt="${attemptId}"[\\s\\S]*?</tr>`).exec(hub.response.text)?.[0] ?? '';
    assert.match(row, new RegExp(`<span [^>]*data-name>${STUDENT_NAME}</span>`));

    // The old platform still shows when it last launched; the new one its own launches.
    const oldDetail = await fixture.admin.agent.get(`/admin/platforms/${oldKey}`).expect(200);
    assert.doesNotMatch(/<dt>Last launch<\/dt><dd>([^<]*)<\/dd>/.exec(oldDetail.text)?.[1] ?? '', /Never/);
    const newDetail = await fixture.admin.agent.get(`/admin/platforms/${newKey}`).expect(200);
    assert.doesNotMatch(/<dt>Last launch<\/dt><dd>([^<]*)<\/dd>/.exec(newDetail.text)?.[1] ?? 'Never', /Never/);
  });
});
