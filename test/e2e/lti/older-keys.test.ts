// During a key rotation every key ENCRYPTION_KEY lists verifies what it signed, on ltijs's own routes too: the
// login's state cookie (ltijs reads it with its own cookie parser) and the LTI session token (ltijs verifies it
// with its one key). A replica that lists the new key first must accept what a replica still on the old key
// signed; anything signed with a key it does not list is refused as before.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { decodeJwt, SignJWT } from 'jose';
import supertest from 'supertest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { authorize, launch } from '../../helpers/lti-flow.js';

const OLDER = 'an-older-encryption-key-0123456789-abcdefghijklmnop';
const UNLISTED = 'a-key-nobody-lists-0123456789-abcdefghijklmnopqrstu';

/** A cookie value signed as express signs one (`s:` + cookie-signature's HMAC-SHA256). */
const signedCookie = (value: string, secret: string) => `s:${value}.${createHmac('sha256', secret).update(value).digest('base64').replace(/=+$/, '')}`;

describe('older keys of ENCRYPTION_KEY on ltijs routes', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({}, { olderEncryptionKeys: [OLDER], launchesThroughLtijs: true });
  });
  after(async () => {
    await app.close();
  });

  const postWithStateCookie = async (key: string) => {
    const auth = await authorize(app, { user: 'student', flavor: 'moodle' });
    const cookie = `state${auth.state}=${encodeURIComponent(signedCookie(String(auth.claims.iss), key))}`;
    return supertest(app.baseUrl).post('/lti/launch').set('Cookie', cookie).type('form').send({ id_token: auth.idToken, state: auth.state });
  };

  it('accepts a login state cookie signed with an older key, and refuses one signed with a key not listed', async () => {
    const older = await postWithStateCookie(OLDER);
    assert.equal(older.status, 200, older.text.slice(0, 300));
    assert.match(older.text, /Start your proctored exam/, "the launch's start page");
    const unlisted = await postWithStateCookie(UNLISTED);
    assert.equal(unlisted.status, 401);
  });

  it('opens a session whose token an older key signed, and refuses one signed with a key not listed', async () => {
    const { ltik } = await launch(app, { user: 'instructor', flavor: 'moodle' });
    const exam = await app.db.query<{ id: string }>('SELECT id FROM exams ORDER BY created_at LIMIT 1');
    const examId = exam.rows[0]!.id;
    const resign = (key: string) => new SignJWT(decodeJwt(ltik)).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(key));
    const read = async (token: string) => supertest(app.baseUrl).get(`/lti/api/exams/${examId}/settings`).set('Authorization', `Bearer ${token}`);
    assert.equal((await read(ltik)).status, 200, 'the token as issued (the newest key)');
    const older = await read(await resign(OLDER));
    assert.equal(older.status, 200, older.text.slice(0, 300));
    assert.equal((await read(await resign(UNLISTED))).status, 401);
  });
});
