// After a registration, the platform's page in the console lists what is left to do in that LMS, with where to
// click: Moodle's and Canvas's own lists, a generic one otherwise. Ticks are kept per platform; the list stays
// until it is hidden, and can be shown again.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import supertest from 'supertest';
import { platformKey } from '../../../src/lti/identifiers.js';
import { createRegistrationLinks } from '../../../src/lti/registration-links.js';
import { signedInConsole } from '../../helpers/admin.js';
import { fakeLms } from '../../helpers/fake-lms.js';

let counter = 0;
/** A platform of its own for each test, registered through the console's form. */
const platformAt = (site: string, authPath: string) => {
  counter += 1;
  const issuer = `https://${site}-${counter}.example.edu`;
  return { name: `LMS ${counter}`, issuer, clientId: `client-${counter}`, authUrl: `${issuer}${authPath}`, tokenUrl: `${issuer}/token`, jwksUrl: `${issuer}/jwks`, deploymentIds: '1' };
};
const checkboxes = (html: string) => [...html.matchAll(/<input type="checkbox" id="checklist-(\w+)" name="done" value="\w+"( checked)?>/g)].map((m) => `${m[1]}${m[2] ? ' ✓' : ''}`);

describe('admin console: the LMS setup checklist after a registration', () => {
  const fixture = signedInConsole();

  const register = async (platform: ReturnType<typeof platformAt>) => {
    const response = await fixture.admin.agent.post('/admin/platforms/new').type('form').send({ _csrf: await fixture.admin.csrf(), ...platform });
    assert.equal(response.status, 303, response.text.slice(0, 300));
    return `/admin/platforms/${platformKey(platform.issuer, platform.clientId)}`;
  };

  it("a Moodle registered by hand: Moodle's four steps, each saying where to click; ticks are kept", async () => {
    const page = await register(platformAt('moodle', '/mod/lti/auth.php'));
    const detail = await fixture.admin.agent.get(page).expect(200);
    assert.match(detail.text, /<h2 id="checklist-heading">Finish in Moodle<\/h2>/);
    assert.deepEqual(checkboxes(detail.text), ['activate', 'chooser', 'newWindow', 'httpSecurity']);
    assert.match(detail.text, /Site administration → Plugins → Activity modules → External tool → Manage tools: a tool registered from a link waits there as <em>Pending<\/em>/);
    assert.match(detail.text, /<em>Tool configuration usage<\/em>: <em>Show in activity chooser and as a preconfigured tool<\/em>/);
    assert.match(detail.text, /<em>Default launch container<\/em>: <em>New window<\/em>/);
    assert.match(detail.text, /ignores the tool’s request for a new window/);
    const toolHost = new URL(fixture.app.baseUrl).host;
    assert.ok(detail.text.includes(`(<code>${toolHost}</code>): Site administration → General → Security → HTTP security`), 'names the tool’s own host and port');

    const saved = await fixture.admin.agent.post(`${page}/checklist`).type('form').send({ _csrf: await fixture.admin.csrf(), done: ['activate', 'newWindow', 'not-an-item'] });
    assert.equal(saved.status, 303);
    assert.equal(saved.headers.location, `${page}?done=checklist-saved#checklist-heading`);
    const after = await fixture.admin.agent.get(`${page}?done=checklist-saved`).expect(200);
    assert.match(after.text, /The checklist was saved\./);
    assert.deepEqual(checkboxes(after.text), ['activate ✓', 'chooser', 'newWindow ✓', 'httpSecurity']);
    assert.doesNotMatch(after.text, /Everything is ticked off/);

    await fixture.admin.agent.post(`${page}/checklist`).type('form').send({ _csrf: await fixture.admin.csrf(), done: 'chooser' }).expect(303);
    assert.deepEqual(checkboxes((await fixture.admin.agent.get(page).expect(200)).text), ['activate', 'chooser ✓', 'newWindow', 'httpSecurity'], 'unticking keeps only what is ticked');
    await fixture.admin.agent.post(`${page}/checklist`).type('form').send({ _csrf: await fixture.admin.csrf(), done: ['activate', 'chooser', 'newWindow', 'httpSecurity'] }).expect(303);
    assert.match((await fixture.admin.agent.get(page).expect(200)).text, /Everything is ticked off/);
  });

  it('the list stays until hidden, and can be shown again with its ticks', async () => {
    const page = await register(platformAt('moodle', '/mod/lti/auth.php'));
    await fixture.admin.agent.post(`${page}/checklist`).type('form').send({ _csrf: await fixture.admin.csrf(), done: 'activate' }).expect(303);
    const hidden = await fixture.admin.agent.post(`${page}/checklist/shown`).type('form').send({ _csrf: await fixture.admin.csrf(), dismissed: 'yes' });
    assert.equal(hidden.headers.location, `${page}?done=checklist-dismissed`);
    const without = await fixture.admin.agent.get(`${page}?done=checklist-dismissed`).expect(200);
    assert.doesNotMatch(without.text, /checklist-heading/);
    assert.match(without.text, /The checklist is hidden; this page can show it again\./);
    assert.match(without.text, /<button type="submit" class="button small">Show the LMS setup checklist<\/button>/);
    await fixture.admin.agent.post(`${page}/checklist/shown`).type('form').send({ _csrf: await fixture.admin.csrf(), dismissed: 'no' }).expect(303);
    assert.deepEqual(checkboxes((await fixture.admin.agent.get(page).expect(200)).text), ['activate ✓', 'chooser', 'newWindow', 'httpSecurity']);
  });

  it("Canvas: its key on, the fixture.app added by this client id, the placements; another LMS: the generic list", async () => {
    const canvas = platformAt('canvas', '/api/lti/authorize_redirect');
    const detail = await fixture.admin.agent.get(await register(canvas)).expect(200);
    assert.match(detail.text, /<h2 id="checklist-heading">Finish in Canvas<\/h2>/);
    assert.deepEqual(checkboxes(detail.text), ['keyOn', 'appAdded', 'placements']);
    assert.ok(detail.text.includes(`Admin → Developer Keys → the key of client id <code>${canvas.clientId}</code>: <em>State</em> <em>On</em>`));
    assert.ok(detail.text.includes(`Configuration Type <em>By Client ID</em>: <code>${canvas.clientId}</code>`));
    assert.match(detail.text, /<em>Course Navigation<\/em> opens the proctor launchpad/);

    const other = await fixture.admin.agent.get(await register(platformAt('brightspace', '/d2l/lti/authenticate'))).expect(200);
    assert.match(other.text, /<h2 id="checklist-heading">Finish in the LMS<\/h2>/);
    assert.deepEqual(checkboxes(other.text), ['enable', 'available', 'newWindow', 'tryIt']);
  });

  it('a dynamic registration keeps the product family the LMS named: Moodle, whatever its endpoints', async () => {
    const lms = await fakeLms({});
    try {
      const { token } = await createRegistrationLinks(fixture.app.db).issue(600);
      const response = await supertest(fixture.app.baseUrl).get('/lti/register').query({ link: token, openid_configuration: `${lms.base}/.well-known/openid-configuration`, registration_token: 'reg-token' });
      assert.equal(response.status, 200, response.text.slice(0, 300));
      const registered = (await fixture.app.tool.lti.platforms.list()).find((p) => p.issuer === lms.base);
      assert.ok(registered);
      assert.doesNotMatch(registered.authUrl, /mod\/lti/, 'nothing in its endpoints says Moodle');
      const detail = await fixture.admin.agent.get(`/admin/platforms/${platformKey(registered.issuer, registered.clientId)}`).expect(200);
      assert.match(detail.text, /<h2 id="checklist-heading">Finish in Moodle<\/h2>/);
    } finally {
      await lms.close();
    }
  });

  it("Register an LMS → Moodle leads an address change to the move, not to a new tool", async () => {
    const page = await fixture.admin.agent.get('/admin/platforms/new?lms=moodle').expect(200);
    assert.match(page.text, /<p class="hint" id="moodle-moved">Moodle moved to a new address .*Do not configure a new tool in Moodle.*<a href="\/admin\/moves">move the platform<\/a>\.<\/p>/);
    assert.doesNotMatch((await fixture.admin.agent.get('/admin/platforms/new?lms=canvas').expect(200)).text, /moodle-moved/);
  });

  it('checklist forms need the CSRF token and a registered platform', async () => {
    const page = await register(platformAt('moodle', '/mod/lti/auth.php'));
    assert.equal((await fixture.admin.agent.post(`${page}/checklist`).type('form').send({ done: 'activate' })).status, 403);
    assert.equal((await fixture.admin.agent.post('/admin/platforms/unknown-platform/checklist').type('form').send({ _csrf: await fixture.admin.csrf(), done: 'activate' })).status, 404);
  });
});
