import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAuditLog } from '../../../src/admin/audit.js';
import { createInstitutionSettingsStore } from '../../../src/institution/settings.js';
import { platformKey } from '../../../src/lti/identifiers.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { ADMIN_TEST_PASSWORD, signedInAgent } from '../../helpers/admin.js';
import { launch } from '../../helpers/lti-flow.js';

const PNG_1PX = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/** A PNG whose header claims width × height (the pixel data is never read). */
function pngClaiming(width: number, height: number): Buffer {
  const png = Buffer.from(PNG_1PX);
  png.writeUInt32BE(width, 16);
  png.writeUInt32BE(height, 20);
  return png;
}

describe('admin console: institution settings', () => {
  let app: TestApp;
  let admin: Awaited<ReturnType<typeof signedInAgent>>;
  let key: string;
  let issuer: string;
  let clientId: string;
  before(async () => {
    app = await startTestApp({ ADMIN_PASSWORD: ADMIN_TEST_PASSWORD });
    admin = await signedInAgent(app);
    ({ issuer, clientId } = app.tool.sandbox!.demoLms.registration);
    key = platformKey(issuer, clientId);
    await launch(app, { user: 'instructor' });
  });
  after(async () => {
    await app.close();
  });

  it('offers the roles seen in launches as proctor roles', async () => {
    const page = await admin.agent.get(`/admin/institution/${key}`).expect(200);
    assert.match(page.text, /membership#Instructor/);
  });

  it('saves settings, normalising colours, and records old → new in the audit log', async () => {
    const response = await admin.agent.post(`/admin/institution/${key}`).type('form').send({
      _csrf: await admin.csrf(),
      primaryColor: '#0B5CAD',
      secondaryColor: '',
      domain: 'exams.example.edu',
      extensionAllowlist: 'abcdefghijklmnopabcdefghijklmnop',
      proctorRoles: 'http://purl.imsglobal.org/vocab/lis/v2/membership#Mentor',
      teachingAssistantsMayEdit: 'yes',
      proctor_break_allowed: 'no',
    });
    assert.equal(response.status, 303, response.text.slice(0, 500));
    const saved = await createInstitutionSettingsStore(app.db).get(issuer, clientId);
    assert.equal(saved.branding.primary_color, '0b5cad');
    assert.deepEqual(saved.proctorRoles, ['http://purl.imsglobal.org/vocab/lis/v2/membership#Mentor']);
    assert.equal(saved.proctorSettings.break_allowed, false);
    const [entry] = await createAuditLog(app.db).list({ action: 'institution.update' });
    assert.ok(entry!.changes.some((c) => c.field === 'primaryColor' && c.old === undefined && c.new === '0b5cad'));
    assert.ok(entry!.changes.some((c) => c.field === 'teachingAssistantsMayEdit' && c.old === 'false' && c.new === 'true'));
  });

  it('refuses a colour not in the format and a learner proctor role, saying why, saving nothing', async () => {
    const before = await createInstitutionSettingsStore(app.db).get(issuer, clientId);
    const response = await admin.agent.post(`/admin/institution/${key}`).type('form').send({
      _csrf: await admin.csrf(),
      primaryColor: 'blue',
      proctorRoles: 'http://purl.imsglobal.org/vocab/lis/v2/membership#Learner',
    });
    assert.equal(response.status, 400);
    assert.match(response.text, /Primary colour must be 6 hexadecimal digits like 0b5cad/);
    assert.match(response.text, /must not include a learner role/);
    assert.match(response.text, /value="blue"/, 'the typed value is kept');
    assert.deepEqual(await createInstitutionSettingsStore(app.db).get(issuer, clientId), before);
  });

  it('refuses proctor roles that never grant rights in a course (institution, system, the deprecated person# form), naming why', async () => {
    const before = await createInstitutionSettingsStore(app.db).get(issuer, clientId);
    const lis = 'http://purl.imsglobal.org/vocab/lis/v2';
    for (const role of [`${lis}/system/person#TestUser`, `${lis}/institution/person#Instructor`, 'urn:lti:instrole:ims/lis/Instructor', `${lis}/person#Staff`]) {
      const response = await admin.agent.post(`/admin/institution/${key}`).type('form').send({ _csrf: await admin.csrf(), proctorRoles: role });
      assert.equal(response.status, 400, role);
      assert.match(response.text, /never grant rights in a course/, role);
    }
    const typed = await admin.agent.post(`/admin/institution/${key}`).type('form').send({ _csrf: await admin.csrf(), otherProctorRoles: `Mentor ${lis}/system/person#TestUser` });
    assert.equal(typed.status, 400);
    assert.deepEqual(await createInstitutionSettingsStore(app.db).get(issuer, clientId), before);
  });

  it('404 for a platform that does not exist', async () => {
    assert.equal((await admin.agent.get('/admin/institution/nosuchplatform')).status, 404);
    const response = await admin.agent.post('/admin/institution/nosuchplatform').type('form').send({ _csrf: await admin.csrf(), primaryColor: '0b5cad' });
    assert.equal(response.status, 404);
  });

  it('saves a logo with the settings under the hosted checks, refuses wrong ones, removes it after asking', async () => {
    const ok = await admin.agent.post(`/admin/institution/${key}`).field('_csrf', await admin.csrf()).attach('logo', PNG_1PX, 'logo.png');
    assert.equal(ok.status, 303, ok.text.slice(0, 400));
    const page = await admin.agent.get(`/admin/institution/${key}`).expect(200);
    assert.match(page.text, /Current logo \(image\/png/);

    const text = await admin.agent.post(`/admin/institution/${key}`).field('_csrf', await admin.csrf()).attach('logo', Buffer.from('hello'), 'logo.png');
    assert.equal(text.status, 400);
    assert.match(text.text, /must be a PNG, JPEG, WebP or SVG image/);
    const huge = await admin.agent.post(`/admin/institution/${key}`).field('_csrf', await admin.csrf()).attach('logo', pngClaiming(5000, 100), 'logo.png');
    assert.equal(huge.status, 400);
    assert.match(huge.text, /5000×100 pixels; at most 4096×4096/);

    const noCsrf = await admin.agent.post(`/admin/institution/${key}`).attach('logo', PNG_1PX, 'logo.png');
    assert.equal(noCsrf.status, 403);

    const asked = await admin.agent.get(`/admin/institution/${key}/logo/remove`).expect(200);
    assert.match(asked.text, /Remove the logo\?/);
    assert.match((await admin.agent.get(`/admin/institution/${key}`)).text, /Current logo/, 'asking removes nothing');
    await admin.agent.post(`/admin/institution/${key}/logo/remove`).type('form').send({ _csrf: await admin.csrf() }).expect(303);
    assert.match((await admin.agent.get(`/admin/institution/${key}`)).text, /No logo yet/);
    const logoAudit = await createAuditLog(app.db).list({ action: 'institution.logo' });
    assert.equal(logoAudit.length, 2);
  });
});
