import assert from 'node:assert/strict';
import { translator } from '../../../src/i18n/index.js';
import { describe, it } from 'node:test';
import { createAuditLog } from '../../../src/admin/audit.js';
import { platformKey } from '../../../src/lti/identifiers.js';
import { authorize, launch } from '../../helpers/lti-flow.js';
import { csrfFrom, signedInConsole } from '../../helpers/admin.js';

const canvas = {
  issuer: 'https://canvas.test.example.edu',
  clientId: '10000000000077',
  authUrl: 'https://canvas.test.example.edu/api/lti/authorize_redirect',
  tokenUrl: 'https://canvas.test.example.edu/login/oauth2/token',
  jwksUrl: 'https://canvas.test.example.edu/api/lti/security/jwks',
};

describe('admin console: platforms', () => {
  const fixture = signedInConsole();

  it('lists the platforms with status, deployments and last launch', async () => {
    await launch(fixture.app, { user: 'student' });
    const page = await fixture.admin.agent.get('/admin/platforms').expect(200);
    const demo = fixture.app.tool.sandbox!.demoLms.registration;
    assert.ok(page.text.includes(demo.issuer));
    assert.ok(page.text.includes(demo.deploymentIds[0]!));
    assert.match(page.text, /Active/);
    // The demo LMS's row: other tests may register platforms that never launched.
    const table = page.text.split('Registered platforms')[1]!.split('</table>')[0]!;
    const demoRow = table.split('<tr>').find((row) => row.includes(`<code>${demo.clientId}</code>`));
    assert.ok(demoRow, 'the demo LMS has a row');
    assert.doesNotMatch(demoRow, />Never</, 'the last launch is shown');
  });

  it('shows the values to paste per LMS', async () => {
    const page = await fixture.admin.agent.get('/admin/platforms/new?lms=moodle').expect(200);
    assert.ok(page.text.includes(`${fixture.app.baseUrl}/lti/login`));
    assert.ok(page.text.includes(`${fixture.app.baseUrl}/lti/keys`));
    assert.ok(!page.text.includes(`${fixture.app.baseUrl}/lti/canvas.json`), "Moodle's help shows no Canvas configuration URL");
    assert.match(page.text, /View configuration details/);
    assert.match(page.text, /Default launch container: <em>New window<\/em>/);
    assert.match(page.text, /the keyset URL and the login URL above/);
    const canvasPage = await fixture.admin.agent.get('/admin/platforms/new?lms=canvas').expect(200);
    assert.ok(canvasPage.text.includes(`${fixture.app.baseUrl}/lti/canvas.json`));
    // The values to paste come before the steps that refer to them.
    assert.ok(canvasPage.text.indexOf('value-canvas') < canvasPage.text.indexOf('paste the Canvas configuration URL above'));
  });

  it('refuses a platform without a deployment id, keeps what was typed, saves nothing', async () => {
    const response = await fixture.admin.agent.post('/admin/platforms/new').type('form').send({ _csrf: await fixture.admin.csrf(), ...canvas, deploymentIds: '' });
    assert.equal(response.status, 400);
    assert.match(response.text, /At least one deployment id is required/);
    assert.ok(response.text.includes(canvas.tokenUrl), 'the form keeps the values');
    assert.ok(!(await fixture.app.tool.lti.platforms.list()).some((p) => p.clientId === canvas.clientId));
  });

  it('refuses a registration form with a field sent twice as a malformed request, saving nothing', async () => {
    const form = new URLSearchParams({ _csrf: await fixture.admin.csrf(), ...canvas, name: 'Twice', deploymentIds: '1:abc' });
    form.append('issuer', 'https://other.example.edu');
    const response = await fixture.admin.agent.post('/admin/platforms/new').type('form').send(form.toString());
    assert.equal(response.status, 400);
    assert.match(response.text, /Unexpected request/);
    assert.match(response.text, /issuer: Invalid input: expected string, received array/, 'the administrator sees which field');
    assert.ok(!(await fixture.app.tool.lti.platforms.list()).some((p) => p.name === 'Twice'));
  });

  it('registers a platform, records it in the audit log, then manages deployments, status and removal', async () => {
    const added = await fixture.admin.agent.post('/admin/platforms/new').type('form').send({ _csrf: await fixture.admin.csrf(), ...canvas, name: 'Test Canvas', deploymentIds: '1:abc\n2:def' });
    assert.equal(added.status, 303, added.text.slice(0, 400));
    const key = platformKey(canvas.issuer, canvas.clientId);
    assert.equal(added.headers.location, `/admin/platforms/${key}?done=platform-added`);
    const detail = await fixture.admin.agent.get(`/admin/platforms/${key}`).expect(200);
    assert.match(detail.text, /1:abc/);
    let audit = await createAuditLog(fixture.app.db).list({ action: 'platform.add' });
    assert.equal(audit[0]!.target, `${canvas.issuer} (client id ${canvas.clientId})`);
    assert.ok(audit[0]!.changes.some((c) => c.field === 'deploymentIds' && c.new === '1:abc, 2:def'));

    const bad = await fixture.admin.agent.post(`/admin/platforms/${key}/deployments`).type('form').send({ _csrf: await fixture.admin.csrf(), deploymentId: 'two words' });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /without spaces or commas/);
    await fixture.admin.agent.post(`/admin/platforms/${key}/deployments`).type('form').send({ _csrf: await fixture.admin.csrf(), deploymentId: '3:ghi' }).expect(303);
    await fixture.admin.agent.post(`/admin/platforms/${key}/deployments/remove`).type('form').send({ _csrf: await fixture.admin.csrf(), deploymentId: '1:abc' }).expect(303);
    assert.deepEqual(await fixture.app.tool.lti.deployments.list(canvas.issuer, canvas.clientId), ['2:def', '3:ghi']);
    audit = await createAuditLog(fixture.app.db).list({ action: 'deployment.remove' });
    assert.deepEqual(audit[0]!.changes, [{ field: 'deploymentIds', old: '1:abc, 2:def, 3:ghi', new: '2:def, 3:ghi' }]);

    await fixture.admin.agent.post(`/admin/platforms/${key}/active`).type('form').send({ _csrf: await fixture.admin.csrf(), active: 'no' }).expect(303);
    assert.equal((await fixture.app.tool.lti.platforms.list()).find((p) => p.clientId === canvas.clientId)!.active, false);

    const confirm = await fixture.admin.agent.get(`/admin/platforms/${key}/remove`).expect(200);
    assert.match(confirm.text, /Remove this platform/);
    await fixture.admin.agent.post(`/admin/platforms/${key}/remove`).type('form').send({ _csrf: csrfFrom(confirm.text) }).expect(303);
    assert.ok(!(await fixture.app.tool.lti.platforms.list()).some((p) => p.clientId === canvas.clientId));
    assert.equal((await fixture.admin.agent.get(`/admin/platforms/${key}`)).status, 404);
  });

  it('says how long a registration link lasts in days or hours, in each language', async () => {
    const list = await fixture.admin.agent.get('/admin/platforms').expect(200);
    assert.match(list.text, /expires after 7 days\./);
    assert.doesNotMatch(list.text, /168 hours/);
    const intro = (locale: 'en' | 'de' | 'ar' | 'zh-Hans', unit: 'days' | 'hours', count: number) => {
      const t = translator(locale);
      return t.t('admin:platforms.dynamic.intro', { duration: t.t(`admin:platforms.dynamic.${unit}`, { count }) });
    };
    assert.match(intro('en', 'hours', 36), /after 36 hours\./);
    assert.match(intro('en', 'days', 1), /after 1 day\./);
    assert.match(intro('de', 'days', 7), /nach 7 Tagen ab/);
    assert.match(intro('ar', 'days', 2), /يومين/);
    assert.match(intro('zh-Hans', 'days', 7), /7 天后失效/);
  });

  it('issues a dynamic-registration link with its expiry, never writing the link to the audit log', async () => {
    const response = await fixture.admin.agent.post('/admin/platforms/register-link').type('form').send({ _csrf: await fixture.admin.csrf() }).expect(200);
    const link = /(http:\/\/[^<"]+\/lti\/register\?link=[\w-]+)/.exec(response.text)?.[1];
    assert.ok(link, 'the link is shown');
    assert.match(response.text, /Valid until/);
    const token = new URL(link).searchParams.get('link')!;
    const audit = await createAuditLog(fixture.app.db).list({ action: 'platform.register_link' });
    assert.equal(audit.length, 1);
    assert.ok(!JSON.stringify(audit).includes(token));
  });

  it('a launch from an unknown deployment names the ids, is listed, and one confirmed click adds the deployment', async () => {
    const demo = fixture.app.tool.sandbox!.demoLms.registration;
    const deploymentId = demo.deploymentIds[0]!;
    const key = platformKey(demo.issuer, demo.clientId);
    await fixture.admin.agent.post(`/admin/platforms/${key}/deployments/remove`).type('form').send({ _csrf: await fixture.admin.csrf(), deploymentId }).expect(303);

    const auth = await authorize(fixture.app, { user: 'student' });
    const refused = await auth.agent.post(new URL(auth.redirectUri).pathname).type('form').send({ id_token: auth.idToken, state: auth.state });
    assert.equal(refused.status, 401);
    assert.match(refused.text, /For your LMS administrator/);
    assert.ok(refused.text.includes(deploymentId) && refused.text.includes(demo.clientId), 'the page names the ids');

    const list = await fixture.admin.agent.get('/admin/platforms').expect(200);
    assert.match(list.text, /Add this deployment…/);
    const confirmUrl = `/admin/platforms/refused/confirm?${new URLSearchParams({ issuer: demo.issuer, clientId: demo.clientId, deploymentId })}`;
    const confirm = await fixture.admin.agent.get(confirmUrl).expect(200);
    const accepted = await fixture.admin.agent.post('/admin/platforms/refused/accept').type('form').send({ _csrf: csrfFrom(confirm.text), issuer: demo.issuer, clientId: demo.clientId, deploymentId });
    assert.equal(accepted.status, 303);
    assert.deepEqual(await fixture.app.tool.lti.deployments.list(demo.issuer, demo.clientId), [deploymentId]);
    assert.doesNotMatch((await fixture.admin.agent.get('/admin/platforms')).text, /Add this deployment…/);
    await launch(fixture.app, { user: 'student' });
  });

  it('a login from an unknown client id of a known issuer is listed; "add this client" copies the endpoints', async () => {
    const demo = fixture.app.tool.sandbox!.demoLms.registration;
    const agent = (await import('supertest')).default.agent(fixture.app.baseUrl);
    const login = await fixture.app.tool.sandbox!.demoLms.initiateLogin({ user: 'student' });
    const refused = await agent.post(new URL(login.url).pathname).type('form').send({ ...login.params, client_id: 'second-key', lti_deployment_id: 'dep-2' });
    assert.equal(refused.status, 400);
    assert.ok(refused.text.includes('second-key') && refused.text.includes('dep-2'));

    const confirmUrl = `/admin/platforms/refused/confirm?${new URLSearchParams({ issuer: demo.issuer, clientId: 'second-key', deploymentId: 'dep-2' })}`;
    const confirm = await fixture.admin.agent.get(confirmUrl).expect(200);
    assert.match(confirm.text, /Add this client/);
    await fixture.admin.agent.post('/admin/platforms/refused/accept').type('form').send({ _csrf: csrfFrom(confirm.text), issuer: demo.issuer, clientId: 'second-key', deploymentId: 'dep-2' }).expect(303);
    const added = (await fixture.app.tool.lti.platforms.list()).find((p) => p.clientId === 'second-key');
    assert.ok(added);
    assert.deepEqual(added.deploymentIds, ['dep-2']);
    const original = (await fixture.app.tool.lti.platforms.list()).find((p) => p.clientId === demo.clientId)!;
    assert.equal(added.authUrl, original.authUrl);
    assert.equal(added.jwksUrl, original.jwksUrl);
  });

  it('does not record launches from unknown issuers', async () => {
    const login = await fixture.app.tool.sandbox!.demoLms.initiateLogin({ user: 'student' });
    const agent = (await import('supertest')).default.agent(fixture.app.baseUrl);
    await agent.post(new URL(login.url).pathname).type('form').send({ ...login.params, iss: 'https://spam.example', client_id: 'x' }).expect(400);
    const count = await fixture.app.db.query<{ n: number }>("SELECT count(*)::int AS n FROM lti_refused_registrations WHERE issuer = 'https://spam.example'");
    assert.equal(count.rows[0]!.n, 0);
  });
});
