// What staff read under "For administrators", and the refusals people read, in the launch's language: the
// proctoring service's answer explained, a role's reason, with no English left where a translation exists.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { translator } from '../../../src/i18n/index.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { emulator, launchAs, pressHubButton, ROLES, setInstitution, withRoles } from '../../helpers/launches.js';
import { unauthorized } from '../../helpers/proctoring.js';


/** A page's text as a reader sees it: tags dropped, the entities EJS writes decoded, spaces collapsed. */
function readable(html: string): string {
  return html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&#34;|&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}

/** The administrators' part of an error page. */
const adminPart = (html: string) => readable(/<section class="admin-detail" aria-labelledby="admin-detail-heading">([\s\S]*?)<\/section>/.exec(html)?.[1] ?? "");

describe('staff causes and refusals in the reader language', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
    // The demo institution monitors with content developers; here no role is a proctor, so a designer is plain staff.
    await setInstitution(app, {});
  });
  after(async () => {
    await app.close();
  });
  afterEach(() => emulator(app).faults.clear());

  const inactive: Array<[string, string]> = [
    ['de', 'de'],
    ['es-MX', 'es'],
    ['ar', 'ar'],
    ['zh-CN', 'zh-Hans'],
  ];
  for (const [sent, locale] of inactive) {
    it(`an inactive account (401 2154) on "Open review center" is explained in ${locale}`, async () => {
      const hub = await launchAs(app, { user: 'instructor', flavor: 'canvas', presentation: 'window', locale: sent });
      emulator(app).faults.inject(unauthorized(2154));
      const pressed = await pressHubButton(hub, 'review');
      assert.equal(pressed.status, 502);
      assert.match(pressed.text, new RegExp(`<html lang="${locale}"`));
      const t = translator(locale as 'de');
      const admin = adminPart(pressed.text);
      assert.ok(admin.includes(t.t('causes:proctoring.accountInactive')), `the cause in ${locale}: ${admin}`);
      assert.ok(!admin.includes(translator('en').t('causes:proctoring.accountInactive')), 'not in English');
      assert.ok(admin.includes(t.t('causes:proctoring.fixInConsole')), `where to fix it in ${locale}`);
      assert.ok(readable(pressed.text).includes(t.t('common:errors.upstreamConfigurationStaff.message')));
    });
  }

  it('a designer refused the review center reads the refusal and its reason in Arabic, with the roles it names', async () => {
    const designer = await launchAs(app, { user: 'instructor', flavor: 'canvas', presentation: 'window', locale: 'ar', claims: withRoles(ROLES.contentDeveloper) });
    assert.equal(designer.response.status, 200, designer.response.text.slice(0, 300));
    const pressed = await pressHubButton(designer, 'review');
    assert.equal(pressed.status, 403);
    const t = translator('ar');
    const page = readable(pressed.text);
    assert.ok(page.includes(t.t('common:errors.notAllowedReview.message')), page);
    assert.doesNotMatch(page, /Your role in this course/);
    const admin = adminPart(pressed.text);
    assert.ok(admin.includes(t.t('causes:roles.mayNot.review')), admin);
    assert.ok(admin.includes(t.t('causes:roles.staffNames.contentDeveloper')), admin);
    assert.match(admin, /ContentDeveloper/, 'the role received, as sent');
    assert.doesNotMatch(admin, /instructor hub|may not/);
  });

  it('an observer refused the exam reads it in Spanish, and sees no cause (not staff)', async () => {
    const observer = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window', locale: 'es', claims: withRoles(ROLES.mentor) });
    assert.equal(observer.response.status, 403, observer.response.text.slice(0, 300));
    const page = readable(observer.response.text);
    assert.ok(page.includes(translator('es').t('common:errors.notAllowedExam.message')), page);
    assert.doesNotMatch(page, /Your role|Observer/);
    assert.equal(adminPart(observer.response.text), '');
  });

  it("the hub's troubleshooting panel gives the role decision in the launch's language", async () => {
    const hub = await launchAs(app, { user: 'instructor', flavor: 'canvas', presentation: 'window', locale: 'fr' });
    const panel = readable(/<details class="hub-section roles-panel"[\s\S]*?<\/details>/.exec(hub.response.text)?.[0] ?? '');
    const t = translator('fr');
    const instructor = t.t('causes:roles.staffNames.instructor');
    assert.ok(panel.includes(instructor.charAt(0).toLocaleUpperCase('fr') + instructor.slice(1)), panel);
    assert.doesNotMatch(panel, /instructor hub/);
  });
});
