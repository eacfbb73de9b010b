// The demo LMS launches any active member of its class, each under their own `sub`, through the real
// OIDC flow of the app in sandbox mode to the Launch API emulator.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { launch } from '../../helpers/lti-flow.js';

let app: TestApp;

before(async () => {
  app = await startTestApp();
});

after(async () => {
  await app.close();
});

function sandbox(testApp: TestApp) {
  const found = testApp.tool.sandbox;
  assert.ok(found, 'sandbox mode expected');
  return found;
}

describe('demo LMS: launches by class member', () => {
  it('launches two generated learners as two different users of the Launch API', async () => {
    const { demoLms, emulator } = sandbox(app);
    const named = new Set(demoLms.users.map((user) => user.id));
    const [first, second] = demoLms.members().filter((person) => !named.has(person.id) && person.status === 'Active');
    assert.ok(first && second, 'two generated, active learners');

    const userIds: string[] = [];
    for (const member of [first, second]) {
      const before = emulator.received.length;
      const { auth, response } = await launch(app, { member: member.id, presentation: 'window' });
      assert.equal(auth.claims.sub, member.id);
      assert.equal(auth.claims.name, member.name);
      assert.equal(response.status, 302, `candidate launch should redirect: ${response.text.slice(0, 300)}`);
      assert.ok(String(response.headers.location).startsWith(`${sandbox(app).proctoringBaseUrl}/session/`), String(response.headers.location));
      const calls = emulator.received.slice(before).filter((call) => call.endpoint === '/v2/candidate/launch');
      assert.equal(calls.length, 1);
      assert.equal(calls[0]?.status, 200);
      const userId = (calls[0]?.body as { user_id?: unknown }).user_id;
      assert.equal(typeof userId, 'string');
      userIds.push(String(userId));
    }
    assert.notEqual(userIds[0], userIds[1]);
  });

  it('launches a named member as that demo user, and refuses unknown, inactive or ambiguous launchers', async () => {
    const { demoLms } = sandbox(app);
    const student = demoLms.users.find((user) => user.key === 'student');
    assert.ok(student);
    const { auth } = await launch(app, { member: student.id, presentation: 'window' });
    assert.equal(auth.claims.sub, student.id);

    const inactive = demoLms.members().find((person) => person.status === 'Inactive');
    assert.ok(inactive, 'the default class has inactive members');
    await assert.rejects(demoLms.initiateLogin({ member: inactive.id }), /not an active member/);
    await assert.rejects(demoLms.initiateLogin({ member: 'no-such-user' }), /not a member/);
    await assert.rejects(demoLms.initiateLogin({ user: 'student', member: student.id }), /either/);
    await assert.rejects(demoLms.initiateLogin({}), /either/);
  });
});
