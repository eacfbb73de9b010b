import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createInstitutionSettingsStore } from '../../../src/institution/settings.js';
import { platformKey } from '../../../src/lti/identifiers.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { ADMIN_TEST_PASSWORD } from '../../helpers/admin.js';
import { signInByKeyboard } from '../../helpers/admin-browser.js';
import { assertNoAxeViolations } from '../../helpers/axe.js';
import { withBrowser } from '../../helpers/browser.js';

const LIS = 'http://purl.imsglobal.org/vocab/lis/v2';
const SEEN = {
  instructor: `${LIS}/membership#Instructor`,
  assistant: `${LIS}/membership/Instructor#TeachingAssistant`,
  mentor: `${LIS}/membership#Mentor`,
  learner: `${LIS}/membership#Learner`,
  testUser: `${LIS}/system/person#TestUser`,
  systemUser: `${LIS}/system/person#User`,
  institutionInstructor: `${LIS}/institution/person#Instructor`,
  institutionStudent: `${LIS}/institution/person#Student`,
};

describe('in a browser: proctor roles by name, grouped, only those that can grant course rights offered', () => {
  let app: TestApp;
  let key: string;
  let platform: { issuer: string; clientId: string };
  before(async () => {
    app = await startTestApp({ ADMIN_PASSWORD: ADMIN_TEST_PASSWORD });
    const { issuer, clientId } = app.tool.sandbox!.demoLms.registration;
    platform = { issuer, clientId };
    key = platformKey(issuer, clientId);
    await app.db.query('INSERT INTO lti_platform_activity (issuer, client_id, role) SELECT $1, $2, unnest($3::text[]) ON CONFLICT DO NOTHING', [issuer, clientId, Object.values(SEEN)]);
  });
  after(async () => {
    await app.close();
  });

  it('groups the seen roles, names them, offers only course roles that are not learner roles, and saves a choice', async (t) => {
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      await signInByKeyboard(page, app.baseUrl);
      await page.goto(`${app.baseUrl}/admin/institution/${key}`);
      const offered = await page.$$eval('input[name="proctorRoles"]', (inputs) => inputs.map((input) => (input as HTMLInputElement).value));
      for (const role of [SEEN.assistant, SEEN.instructor, SEEN.mentor]) assert.ok(offered.includes(role), `${role} is offered`);
      for (const role of [SEEN.learner, SEEN.testUser, SEEN.systemUser, SEEN.institutionInstructor, SEEN.institutionStudent]) assert.ok(!offered.includes(role), `${role} is not offered`);
      const roles = await page.textContent('#proctor-roles') ?? '';
      assert.doesNotMatch(roles, /purl\.imsglobal\.org/, 'names, not URIs');
      for (const heading of ['Course roles', 'Institution roles', 'System roles']) assert.match(roles, new RegExp(heading));
      assert.match(await page.textContent('#roles-institution') ?? '', /Instructor.*Student|Student.*Instructor/s);
      assert.match(await page.textContent('#roles-institution') ?? '', /never grant rights in a course/);
      assert.match(await page.textContent('#roles-system') ?? '', /TestUser/);
      assert.match(await page.textContent(`label[for="${await page.getAttribute(`input[value="${SEEN.assistant}"]`, 'id')}"]`) ?? '', /TeachingAssistant/);
      await assertNoAxeViolations(page, 'grouped proctor roles');

      await page.check(`input[value="${SEEN.mentor}"]`);
      await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]:has-text("Save the settings")')]);
      assert.match(await page.textContent('.notice-ok') ?? '', /institution settings were saved/);
      assert.ok((await createInstitutionSettingsStore(app.db).get(platform.issuer, platform.clientId)).proctorRoles.includes(SEEN.mentor));
    });
  });
});
