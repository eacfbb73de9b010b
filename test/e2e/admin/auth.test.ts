import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { createAuditLog } from '../../../src/admin/audit.js';
import { hashPassword, verifyPassword } from '../../../src/secrets/password.js';
import { loadConfig } from '../../../src/config.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { ADMIN_TEST_PASSWORD, csrfFrom, signedInAgent } from '../../helpers/admin.js';

describe('admin console sign-in', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ ADMIN_PASSWORD: await hashPassword(ADMIN_TEST_PASSWORD) });
  });
  after(async () => {
    await app.close();
  });

  it('sends a visitor without a session to the sign-in page, never framed', async () => {
    const response = await supertest(app.baseUrl).get('/admin/audit');
    assert.equal(response.status, 303);
    assert.equal(response.headers.location, '/admin/sign-in?next=%2Fadmin%2Faudit');
    const page = await supertest(app.baseUrl).get('/admin/sign-in').expect(200);
    assert.match(String(page.headers['content-security-policy']), /frame-ancestors 'none'/);
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.equal(page.headers['cache-control'], 'no-store');
  });

  it('signs in with the password whose hash is configured: HttpOnly, SameSite=Strict session cookie', async () => {
    const agent = supertest.agent(app.baseUrl);
    const form = await agent.get('/admin/sign-in');
    const response = await agent.post('/admin/sign-in').type('form').send({ _csrf: csrfFrom(form.text), password: ADMIN_TEST_PASSWORD, next: '/admin/audit' });
    assert.equal(response.status, 303);
    assert.equal(response.headers.location, '/admin/audit');
    const cookie = ([] as string[]).concat(response.headers['set-cookie'] ?? []).find((c) => c.startsWith('proctor.admin='));
    assert.ok(cookie, 'a session cookie is set');
    assert.match(cookie, /HttpOnly/i);
    assert.match(cookie, /SameSite=Strict/i);
    assert.match(cookie, /^proctor\.admin=s%3A/, 'the cookie is signed');
    const audit = await agent.get('/admin/audit').expect(200);
    assert.match(audit.text, /Signed in to the console/);
  });

  it('refuses a wrong password with 401 and records no session', async () => {
    const agent = supertest.agent(app.baseUrl);
    const form = await agent.get('/admin/sign-in');
    const response = await agent.post('/admin/sign-in').type('form').send({ _csrf: csrfFrom(form.text), password: 'not the password at all' });
    assert.equal(response.status, 401);
    assert.match(response.text, /That password is not correct/);
    assert.equal((await agent.get('/admin')).status, 303);
  });

  it('refuses a sign-in without a CSRF token', async () => {
    const agent = supertest.agent(app.baseUrl);
    await agent.get('/admin/sign-in');
    const response = await agent.post('/admin/sign-in').type('form').send({ password: ADMIN_TEST_PASSWORD });
    assert.equal(response.status, 403);
  });

  it('refuses a form of a signed-in page without the CSRF token of the session', async () => {
    const { agent } = await signedInAgent(app);
    const response = await agent.post('/admin/sign-out').type('form').send({});
    assert.equal(response.status, 403);
    assert.equal((await agent.get('/admin')).status, 200, 'still signed in');
  });

  it('signs out: the session no longer works, even replayed', async () => {
    const { agent, csrf } = await signedInAgent(app);
    const page = await agent.get('/admin');
    const cookieHeader = String(page.request.getHeader('cookie') ?? '');
    const response = await agent.post('/admin/sign-out').type('form').send({ _csrf: await csrf() });
    assert.equal(response.status, 303);
    assert.equal((await agent.get('/admin')).status, 303);
    const replayed = await supertest(app.baseUrl).get('/admin').set('Cookie', cookieHeader);
    assert.equal(replayed.status, 303, 'the old cookie is refused');
  });

  it('ends a session after 30 idle minutes and 8 hours after sign-in', async () => {
    const idle = await signedInAgent(app);
    await app.db.query("UPDATE admin_sessions SET last_seen_at = now() - interval '31 minutes'");
    const response = await idle.agent.get('/admin/audit');
    assert.equal(response.status, 303);
    assert.match(String(response.headers.location), /expired=1/);

    const old = await signedInAgent(app);
    await app.db.query("UPDATE admin_sessions SET created_at = now() - interval '8 hours 1 minute'");
    assert.equal((await old.agent.get('/admin')).status, 303);
  });

  it('locks an address out after five wrong passwords, slowing down from the third', async () => {
    await app.db.query('DELETE FROM admin_sign_in_failures');
    const agent = supertest.agent(app.baseUrl);
    const token = csrfFrom((await agent.get('/admin/sign-in')).text);
    const started = Date.now();
    for (let i = 0; i < 5; i += 1) {
      const response = await agent.post('/admin/sign-in').type('form').send({ _csrf: token, password: `wrong password ${i}` });
      assert.equal(response.status, 401, `wrong password ${i + 1} is refused, not yet locked`);
    }
    // The third, fourth and fifth failures wait 0.5, 1 and 1.5 s.
    assert.ok(Date.now() - started >= 2950, 'later failures are slowed down');
    const locked = await agent.post('/admin/sign-in').type('form').send({ _csrf: token, password: ADMIN_TEST_PASSWORD });
    assert.equal(locked.status, 429);
    assert.match(locked.text, /locked for 15 minutes/);
    await app.db.query('DELETE FROM admin_sign_in_failures');
  });

  it('records who signed in, from where, in the audit log', async () => {
    await app.db.query('DELETE FROM admin_sign_in_failures');
    const before = (await createAuditLog(app.db).list({ action: 'admin.sign_in' })).length;
    await signedInAgent(app);
    const entries = await createAuditLog(app.db).list({ action: 'admin.sign_in' });
    assert.equal(entries.length, before + 1);
    assert.equal(entries[0]!.source, 'console');
    assert.equal(entries[0]!.actor, 'admin');
    assert.ok(entries[0]!.remoteAddress);
  });
});

describe('admin passwords', () => {
  it('verifies plain and hashed passwords; refuses others', async () => {
    const hash = await hashPassword('a long enough password');
    assert.match(hash, /^\$scrypt\$n=16384,r=8,p=1\$/);
    assert.equal(await verifyPassword('a long enough password', hash), true);
    assert.equal(await verifyPassword('a long enough passwore', hash), false);
    assert.equal(await verifyPassword('plain password here', 'plain password here'), true);
    assert.equal(await verifyPassword('plain password herE', 'plain password here'), false);
  });

  it('config accepts a hash, and refuses short passwords and ruinous hash costs', async () => {
    const hash = await hashPassword('a long enough password');
    assert.equal(loadConfig({ ADMIN_PASSWORD: hash }).adminPassword, hash);
    assert.throws(() => loadConfig({ ADMIN_PASSWORD: 'short' }), /ADMIN_PASSWORD must be at least 12 characters/);
    assert.throws(() => loadConfig({ ADMIN_PASSWORD: hash.replace('n=16384', 'n=1073741824') }), /ADMIN_PASSWORD/);
  });
});
