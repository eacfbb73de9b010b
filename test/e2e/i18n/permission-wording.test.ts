// The pages say each permission in the same words: a teaching assistant's hub (read-only settings), the page that
// refuses them the settings, and the console's proctor-role page, in every language, show the phrase of
// `common:permissions.<permission>` that the catalogs' own test keeps in every message about it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SUPPORTED_LOCALES, translator } from '../../../src/i18n/index.js';
import { platformKey } from '../../../src/lti/identifiers.js';
import { decodeHtml } from '../../../src/sandbox/demo-lms/forms.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { ADMIN_TEST_PASSWORD, signedInAgent } from '../../helpers/admin.js';
import { demoExam, launchAs, ROLES, withRoles } from '../../helpers/launches.js';

/** The text a reader sees, folded for comparison in the page's language. */
const shown = (html: string, locale: string) =>
  decodeHtml(html.replace(/<script\b[\s\S]*?<\/script>/gi, ' ').replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ').toLocaleLowerCase(locale);

describe('the same permission in the same words on every page', () => {
  let app: TestApp;
  let examId: string;
  before(async () => {
    app = await startTestApp({ ADMIN_PASSWORD: ADMIN_TEST_PASSWORD });
    examId = (await demoExam(app)).id;
  });
  after(async () => {
    await app.close();
  });

  for (const locale of SUPPORTED_LOCALES) {
    it(`${locale}: the hub, the refusal and the console say "change exam settings" and "read-only" alike`, async () => {
      const { t } = translator(locale);
      const phrase = (permission: string) => t(`common:permissions.${permission}`).toLocaleLowerCase(locale);
      const { agent, response, ltik } = await launchAs(app, { user: 'instructor', flavor: 'canvas', presentation: 'window', locale, claims: withRoles(ROLES.ta) });
      assert.equal(response.status, 200, response.text.slice(0, 300));
      const hub = shown(response.text, locale);
      assert.ok(hub.includes(phrase('readOnly')), `${locale} hub: ${phrase('readOnly')}`);
      assert.ok(hub.includes(phrase('changeSettings')), `${locale} hub: ${phrase('changeSettings')}`);

      const refused = await agent.post(`/lti/exams/${examId}/settings`).type('form').send({ ltik });
      assert.equal(refused.status, 403, refused.text.slice(0, 300));
      const refusal = shown(refused.text, locale);
      assert.ok(refusal.includes(phrase('changeSettings')), `${locale} refusal: ${refusal.slice(0, 600)}`);

      const admin = await signedInAgent(app);
      const { issuer, clientId } = app.tool.sandbox!.demoLms.registration;
      const console = await admin.agent.get(`/admin/institution/${platformKey(issuer, clientId)}`).set('Accept-Language', locale).expect(200);
      const roles = shown(console.text, locale);
      assert.ok(roles.includes(phrase('changeSettings')), `${locale} console: ${phrase('changeSettings')}`);
      assert.ok(roles.includes(phrase('monitorLive')), `${locale} console: ${phrase('monitorLive')}`);
    });
  }
});
