import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import express from 'express';
import { createLocalJWKSet, decodeProtectedHeader, exportJWK, generateKeyPair, jwtVerify, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import request from 'supertest';
import { CLAIM, createDemoLms, NRPS_SCOPE, parseAutoSubmitForm, ROLE, type DemoLms, type DemoLmsOptions } from '../../../src/sandbox/demo-lms/index.js';

const ISSUER = 'http://lms.test/sandbox/lms';
const MOUNT = '/sandbox/lms';
const TOOL = { loginUrl: 'http://tool.test/lti/login', launchUrl: 'http://tool.test/lti/launch' };
const NRPS_MEDIA_TYPE = 'application/vnd.ims.lti-nrps.v2.membershipcontainer+json';

let toolKey: { privateKey: CryptoKey; publicJwk: JWK };
// One platform key for every demo LMS of this file: a 2048-bit key pair per test would be slow.
let platformKey: CryptoKey;
let jwksServer: Server;
let toolJwksUrl: string;

before(async () => {
  const pair = await generateKeyPair('RS256', { modulusLength: 2048 });
  platformKey = (await generateKeyPair('RS256', { modulusLength: 2048, extractable: true })).privateKey;
  toolKey = { privateKey: pair.privateKey, publicJwk: { ...(await exportJWK(pair.publicKey)), kid: 'tool-key-1', alg: 'RS256', use: 'sig' } };
  // The tool's JWKS on an ephemeral local server: the token endpoint fetches it like a real platform.
  jwksServer = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [toolKey.publicJwk] }));
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  toolJwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/lti/keys`;
});

after(async () => {
  await new Promise<void>((resolve) => jwksServer.close(() => resolve()));
});

async function setup(overrides: Partial<DemoLmsOptions> = {}): Promise<{ lms: DemoLms; app: express.Express }> {
  const lms = await createDemoLms({ issuer: ISSUER, tool: { ...TOOL, jwksUrl: toolJwksUrl }, privateKey: platformKey, ...overrides });
  const app = express();
  app.use(MOUNT, lms.router);
  return { lms, app };
}

function authQuery(lms: DemoLms, login: Record<string, string>, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    response_type: 'id_token',
    scope: 'openid',
    response_mode: 'form_post',
    prompt: 'none',
    client_id: lms.registration.clientId,
    redirect_uri: TOOL.launchUrl,
    login_hint: login.login_hint ?? '',
    lti_message_hint: login.lti_message_hint ?? '',
    nonce: 'nonce-from-the-tool',
    state: 'state-from-the-tool',
    ...overrides,
  };
}

/** POSTs the course page's launch form and returns the login initiation fields. */
async function startLaunch(app: express.Express, form: Record<string, string>): Promise<Record<string, string>> {
  const res = await request(app).post(`${MOUNT}/launch`).type('form').send({ presentation: 'window', ...form }).expect(200);
  const parsed = parseAutoSubmitForm(res.text);
  assert.ok(parsed, 'an auto-submitting form');
  return parsed.fields;
}

/** Runs the launch through /auth and returns the verified id_token claims. */
async function launchClaims(lms: DemoLms, app: express.Express, form: Record<string, string>): Promise<JWTPayload> {
  const login = await startLaunch(app, form);
  const res = await request(app).get(`${MOUNT}/auth`).query(authQuery(lms, login)).expect(200);
  const idToken = parseAutoSubmitForm(res.text)?.fields.id_token ?? '';
  const { payload } = await jwtVerify(idToken, createLocalJWKSet(lms.jwks()), { issuer: ISSUER });
  return payload;
}

async function clientAssertion(lms: DemoLms, overrides: { aud?: string; key?: CryptoKey; jti?: string } = {}): Promise<string> {
  const { clientId, tokenUrl } = lms.registration;
  return new SignJWT({})
    .setProtectedHeader({ alg: 'RS256', kid: toolKey.publicJwk.kid })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(overrides.aud ?? tokenUrl)
    .setIssuedAt()
    .setExpirationTime('60s')
    .setJti(overrides.jti ?? crypto.randomUUID())
    .sign(overrides.key ?? toolKey.privateKey);
}

describe('demo LMS: course page and login initiation', () => {
  it('shows the course, the exam and the launch buttons', async () => {
    const { app } = await setup();
    const res = await request(app).get(`${MOUNT}/`).expect(200);
    for (const text of [
      'Demo Course 101 — Statistics',
      'Midterm exam',
      'Open the exam as a student',
      'Open the exam as an instructor',
      'Open the exam as a teaching assistant',
      'Open course navigation (launchpad)',
      'Canvas-like',
      'Moodle-like',
      'Embedded in this page (iframe)',
    ]) {
      assert.ok(res.text.includes(text), `course page shows "${text}"`);
    }
  });

  it('posts the OIDC login initiation to the tool with the fields Moodle sends', async () => {
    const { lms, app } = await setup();
    const res = await request(app).post(`${MOUNT}/launch`).type('form').send({ launch: 'resource:student:exam-midterm', flavor: 'moodle', presentation: 'window' }).expect(200);
    const form = parseAutoSubmitForm(res.text);
    assert.ok(form);
    assert.equal(form.action, TOOL.loginUrl);
    assert.equal(form.method, 'post');
    assert.ok(res.text.includes('<button type="submit"'), 'a visible button for browsers without JavaScript');
    const student = lms.users.find((user) => user.key === 'student');
    assert.deepEqual(Object.keys(form.fields).sort(), ['client_id', 'iss', 'login_hint', 'lti_deployment_id', 'lti_message_hint', 'target_link_uri']);
    assert.equal(form.fields.iss, ISSUER);
    assert.equal(form.fields.login_hint, student?.id);
    assert.equal(form.fields.target_link_uri, TOOL.launchUrl);
    assert.equal(form.fields.client_id, lms.registration.clientId);
    assert.equal(form.fields.lti_deployment_id, lms.registration.deploymentIds[0]);
    // Moodle's hint is a JSON string naming a stored launch; it says nothing about the user itself.
    const hint: unknown = JSON.parse(form.fields.lti_message_hint ?? '');
    assert.equal(typeof (hint as { launchid?: unknown }).launchid, 'string');
  });

  it('adds Canvas login fields and a signed hint in the Canvas flavor', async () => {
    const { app } = await setup();
    const fields = await startLaunch(app, { launch: 'resource:instructor:exam-midterm', flavor: 'canvas' });
    assert.equal(fields.canvas_environment, 'prod');
    assert.equal(fields.lti_message_hint?.split('.').length, 3, 'a JWT');
  });

  it('embeds the tool in an iframe on the course page when asked', async () => {
    const { app } = await setup();
    const res = await request(app).post(`${MOUNT}/launch`).type('form').send({ launch: 'resource:student:exam-midterm', presentation: 'iframe' }).expect(200);
    const form = parseAutoSubmitForm(res.text);
    assert.match(res.text, /<iframe[^>]*name="demo-lms-tool"/);
    assert.equal(form?.target, 'demo-lms-tool');
    assert.equal(form?.action, TOOL.loginUrl);
  });

  it('offers a GET variant that redirects to the login initiation', async () => {
    const { lms, app } = await setup();
    const res = await request(app).get(`${MOUNT}/launch`).query({ user: 'ta', kind: 'resource' }).expect(302);
    const location = new URL(res.headers.location ?? '');
    assert.equal(`${location.origin}${location.pathname}`, TOOL.loginUrl);
    assert.equal(location.searchParams.get('login_hint'), lms.users.find((user) => user.key === 'ta')?.id);
    assert.ok(location.searchParams.get('lti_message_hint'));
  });

  it('refuses an unknown user or link', async () => {
    const { app } = await setup();
    await request(app).post(`${MOUNT}/launch`).type('form').send({ launch: 'resource:nobody:exam-midterm' }).expect(400);
    await request(app).post(`${MOUNT}/launch`).type('form').send({ launch: 'resource:student:no-such-link' }).expect(400);
  });
});

describe('demo LMS: authorization endpoint', () => {
  it('issues an id_token verifiable with /jwks, carrying the nonce it was given', async () => {
    const { lms, app } = await setup();
    const login = await startLaunch(app, { launch: 'resource:student:exam-midterm', flavor: 'moodle' });
    const res = await request(app).post(`${MOUNT}/auth`).type('form').send(authQuery(lms, login)).expect(200);
    const form = parseAutoSubmitForm(res.text);
    assert.ok(form);
    assert.equal(form.action, TOOL.launchUrl);
    assert.equal(form.method, 'post');
    assert.equal(form.fields.state, 'state-from-the-tool');
    const idToken = form.fields.id_token ?? '';

    const jwks = await request(app).get(`${MOUNT}/jwks`).expect(200);
    const header = decodeProtectedHeader(idToken);
    assert.equal(header.alg, 'RS256');
    assert.ok(header.kid && (jwks.body as { keys: JWK[] }).keys.some((key) => key.kid === header.kid));
    const { payload } = await jwtVerify(idToken, createLocalJWKSet(jwks.body as { keys: JWK[] }), {
      issuer: ISSUER,
      audience: lms.registration.clientId,
    });
    assert.equal(payload.nonce, 'nonce-from-the-tool');
    assert.equal(payload.sub, login.login_hint);
    // Moodle: a plain-string aud, no azp, a 60-second token, the short context type.
    assert.equal(payload.aud, lms.registration.clientId);
    assert.equal(payload.azp, undefined);
    assert.equal((payload.exp ?? 0) - (payload.iat ?? 0), 60);
    assert.deepEqual((payload[CLAIM.context] as { type: string[] }).type, ['CourseSection']);
    assert.deepEqual(payload[CLAIM.roles], [ROLE.learner]);
    assert.deepEqual(payload[CLAIM.resourceLink], {
      id: 'exam-midterm',
      title: 'Midterm exam',
      description: lms.course.exam.text,
    });
    assert.equal((payload[CLAIM.toolPlatform] as { product_family_code: string }).product_family_code, 'moodle');
    assert.equal((payload[CLAIM.launchPresentation] as { document_target: string }).document_target, 'window');
    assert.equal((payload[CLAIM.custom] as Record<string, string>).context_memberships_url, lms.registration.nrpsUrl('course-101'));
  });

  it('refuses a replayed message hint', async () => {
    const { lms, app } = await setup();
    const login = await startLaunch(app, { launch: 'resource:student:exam-midterm' });
    await request(app).get(`${MOUNT}/auth`).query(authQuery(lms, login)).expect(200);
    const replay = await request(app).get(`${MOUNT}/auth`).query(authQuery(lms, login)).expect(400);
    assert.match(replay.type, /html/);
    assert.ok(!replay.text.includes('id_token'), 'no token on a replay');
  });

  it('refuses a redirect_uri the tool did not register, without burning the launch', async () => {
    const { lms, app } = await setup();
    const login = await startLaunch(app, { launch: 'resource:student:exam-midterm' });
    for (const redirect of ['http://evil.test/lti/launch', `${TOOL.launchUrl}/`, `${TOOL.launchUrl}?x=1`]) {
      const res = await request(app).get(`${MOUNT}/auth`).query(authQuery(lms, login, { redirect_uri: redirect })).expect(400);
      assert.match(res.text, /redirect_uri/);
    }
    await request(app).get(`${MOUNT}/auth`).query(authQuery(lms, login)).expect(200);
  });

  it('refuses a login_hint that is not the launching user', async () => {
    const { lms, app } = await setup();
    const login = await startLaunch(app, { launch: 'resource:student:exam-midterm' });
    const instructor = lms.users.find((user) => user.key === 'instructor');
    await request(app)
      .get(`${MOUNT}/auth`)
      .query(authQuery(lms, login, { login_hint: instructor?.id ?? '' }))
      .expect(400);
  });

  for (const [name, value] of [
    ['response_type', 'code'],
    ['scope', 'openid profile'],
    ['response_mode', 'query'],
    ['prompt', 'login'],
    ['client_id', 'someone-else'],
    ['nonce', ''],
  ] as const) {
    it(`refuses ${name}=${JSON.stringify(value)}`, async () => {
      const { lms, app } = await setup();
      const login = await startLaunch(app, { launch: 'resource:student:exam-midterm' });
      await request(app).get(`${MOUNT}/auth`).query(authQuery(lms, login, { [name]: value })).expect(400);
    });
  }

  it('refuses an expired message hint', async () => {
    let clock = Date.now();
    const { lms, app } = await setup({ now: () => clock });
    const login = await startLaunch(app, { launch: 'resource:student:exam-midterm', flavor: 'canvas' });
    clock += 6 * 60 * 1000;
    const res = await request(app).get(`${MOUNT}/auth`).query(authQuery(lms, login)).expect(400);
    assert.match(res.text, /expired/);
  });
});

describe('demo LMS: launch claims per flavor', () => {
  it('sends Canvas roles for a teaching assistant and the student-view user', async () => {
    const { lms, app } = await setup();
    const ta = await launchClaims(lms, app, { launch: 'resource:ta:exam-midterm', flavor: 'canvas' });
    assert.deepEqual(ta[CLAIM.roles], [ROLE.institutionInstructor, ROLE.instructor, ROLE.teachingAssistant, ROLE.systemUser]);
    assert.equal(ta.azp, lms.registration.clientId);
    assert.equal((ta.exp ?? 0) - (ta.iat ?? 0), 3600);
    const testStudent = await launchClaims(lms, app, { launch: 'resource:test-student:exam-midterm', flavor: 'canvas' });
    assert.ok((testStudent[CLAIM.roles] as string[]).includes(ROLE.testUser));
    assert.ok((testStudent[CLAIM.roles] as string[]).includes(ROLE.learner));
  });

  it('sends Moodle teachers, editing or not, as Instructor only', async () => {
    const { lms } = await setup();
    assert.deepEqual(lms.buildLaunchClaims({ flavor: 'moodle', user: 'ta' })[CLAIM.roles], [ROLE.instructor]);
    assert.deepEqual(lms.buildLaunchClaims({ flavor: 'moodle', user: 'instructor' })[CLAIM.roles], [ROLE.instructor]);
  });

  it('sends the unenrolled Moodle site admin as Moodle does', async () => {
    const { lms } = await setup();
    assert.deepEqual(lms.buildLaunchClaims({ flavor: 'moodle', user: 'admin' })[CLAIM.roles], [
      ROLE.institutionAdministrator,
      ROLE.instructor,
      ROLE.systemAdministrator,
    ]);
  });

  it('makes course navigation a course-level launch', async () => {
    const { lms, app } = await setup();
    const canvas = await launchClaims(lms, app, { launch: 'course:proctor', flavor: 'canvas' });
    assert.equal(canvas[CLAIM.canvasPlacement], 'course_navigation');
    // LTI 1.3 requires a resource_link claim in every resource link launch: Canvas names the course.
    assert.deepEqual(canvas[CLAIM.resourceLink], { id: lms.course.id, title: lms.course.title });
    assert.equal((canvas[CLAIM.custom] as Record<string, string>).placement, 'launchpad');
    const moodle = await launchClaims(lms, app, { launch: 'course:proctor', flavor: 'moodle' });
    assert.equal((moodle[CLAIM.custom] as Record<string, string>).placement, 'launchpad');
  });

  it('sends a deep-linking request to the tool', async () => {
    const { lms, app } = await setup();
    const claims = await launchClaims(lms, app, { launch: 'deep-linking:instructor', flavor: 'moodle' });
    assert.equal(claims[CLAIM.messageType], 'LtiDeepLinkingRequest');
    assert.equal(claims[CLAIM.resourceLink], undefined);
    assert.deepEqual(claims[CLAIM.launchPresentation], { locale: 'en' });
    const settings = claims[CLAIM.deepLinkingSettings] as { deep_link_return_url: string; accept_types: string[] };
    assert.equal(settings.deep_link_return_url, `${ISSUER}/deep-linking/return`);
    assert.deepEqual(settings.accept_types, ['ltiResourceLink']);
  });

  it('signs forged tokens for tests: another key fails verification against /jwks', async () => {
    const { lms } = await setup();
    const other = await generateKeyPair('RS256', { modulusLength: 2048 });
    const forged = await lms.signIdToken(lms.buildLaunchClaims({ user: 'student' }), { key: other.privateKey });
    await assert.rejects(jwtVerify(forged, createLocalJWKSet(lms.jwks())));
  });
});

describe('demo LMS: deep-linking response', () => {
  it('adds the returned resource link to the course', async () => {
    const { lms, app } = await setup();
    const jwt = await new SignJWT({
      [CLAIM.messageType]: 'LtiDeepLinkingResponse',
      [CLAIM.version]: '1.3.0',
      [CLAIM.deploymentId]: lms.registration.deploymentIds[0],
      nonce: 'dl-nonce',
      [CLAIM.contentItems]: [{ type: 'ltiResourceLink', title: 'Final exam', url: TOOL.launchUrl, custom: { exam_id: 'e-42' } }],
    })
      .setProtectedHeader({ alg: 'RS256', kid: toolKey.publicJwk.kid })
      .setIssuer(lms.registration.clientId)
      .setAudience(ISSUER)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(toolKey.privateKey);
    await request(app).post(`${MOUNT}/deep-linking/return`).type('form').send({ JWT: jwt }).expect(303);
    const added = lms.course.links.find((link) => link.title === 'Final exam');
    assert.deepEqual(added?.custom, { exam_id: 'e-42' });
    const claims = lms.buildLaunchClaims({ user: 'student', linkId: added?.id });
    assert.equal((claims[CLAIM.custom] as Record<string, string>).exam_id, 'e-42');
    await request(app).post(`${MOUNT}/deep-linking/return`).type('form').send({ JWT: jwt }).expect(400);
  });
});

describe('demo LMS: token endpoint', () => {
  function requestToken(app: express.Express, assertion: string, overrides: Record<string, string> = {}): request.Test {
    return request(app)
      .post(`${MOUNT}/token`)
      .type('form')
      .send({
        grant_type: 'client_credentials',
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: assertion,
        scope: NRPS_SCOPE,
        ...overrides,
      });
  }

  it('grants a token for a client assertion signed with the key in the tool JWKS', async () => {
    const { lms, app } = await setup();
    const res = await requestToken(app, await clientAssertion(lms)).expect(200);
    assert.match(res.type, /json/);
    const body = res.body as { access_token: string; token_type: string; expires_in: number; scope: string };
    assert.ok(body.access_token.length >= 32);
    assert.equal(body.token_type, 'bearer');
    assert.ok(body.expires_in > 0);
    assert.equal(body.scope, NRPS_SCOPE);
  });

  it('refuses a bad signature, a wrong audience and a replayed jti', async () => {
    const { lms, app } = await setup();
    const other = await generateKeyPair('RS256', { modulusLength: 2048 });
    const badSignature = await requestToken(app, await clientAssertion(lms, { key: other.privateKey })).expect(401);
    assert.equal((badSignature.body as { error: string }).error, 'invalid_client');
    await requestToken(app, await clientAssertion(lms, { aud: `${lms.registration.tokenUrl}/` })).expect(401);
    const once = await clientAssertion(lms, { jti: 'same-jti' });
    await requestToken(app, once).expect(200);
    await requestToken(app, once).expect(401);
  });

  it('refuses a wrong grant type and scopes it does not serve', async () => {
    const { lms, app } = await setup();
    await requestToken(app, await clientAssertion(lms), { grant_type: 'password' }).expect(400);
    const res = await requestToken(app, await clientAssertion(lms), { scope: 'https://purl.imsglobal.org/spec/lti-ags/scope/score' }).expect(400);
    assert.equal((res.body as { error: string }).error, 'invalid_scope');
  });

  it('can answer JSON labelled text/html, as Moodle does', async () => {
    const { lms, app } = await setup({ tokenContentType: 'html' });
    const res = await requestToken(app, await clientAssertion(lms)).expect(200);
    assert.match(res.type, /text\/html/);
    assert.equal((JSON.parse(res.text) as { token_type: string }).token_type, 'bearer');
  });
});

describe('demo LMS: Names and Roles', () => {
  it('pages through the class with Link headers, every active member once', async () => {
    // 4 enrolled named users + 26 generated learners = 30 members: three pages of 10.
    const { lms, app } = await setup({ classSize: 26 });
    const token = (await nrpsAccessToken(app, lms)).access_token;
    const url = new URL(`${lms.registration.nrpsUrl(lms.course.id)}?limit=10`);
    const seen: Array<{ user_id: string; status: string; name: string; roles: string[] }> = [];
    let next: string | undefined = `${url.pathname}${url.search}`;
    let pages = 0;
    while (next) {
      const res: request.Response = await request(app).get(next).set('Authorization', `Bearer ${token}`).expect(200);
      pages += 1;
      assert.match(res.headers['content-type'] ?? '', new RegExp(NRPS_MEDIA_TYPE.replace(/[.+]/g, '\\$&')));
      const parsed = JSON.parse(res.text) as { context: { id: string }; members: typeof seen };
      assert.equal(parsed.context.id, lms.course.id);
      seen.push(...parsed.members);
      const link = res.headers.link as string | undefined;
      if (link) {
        const match = /^<([^>]+)>; rel="next"$/.exec(link);
        assert.ok(match?.[1], `Link header ${link}`);
        assert.ok(match[1].startsWith(lms.registration.nrpsUrl(lms.course.id)), 'absolute next URL');
        const nextUrl = new URL(match[1]);
        next = `${nextUrl.pathname}${nextUrl.search}`;
      } else {
        next = undefined;
      }
      assert.ok(pages <= 5, 'paging ends');
    }
    assert.equal(pages, 3);
    const active = seen.filter((member) => member.status === 'Active');
    const expected = lms.members().filter((member) => member.status === 'Active');
    assert.equal(new Set(active.map((member) => member.user_id)).size, active.length, 'no active member twice');
    assert.deepEqual(active.map((member) => member.user_id).sort(), expected.map((member) => member.id).sort());
    assert.equal(seen.filter((member) => member.status === 'Inactive').length, 2);
    assert.ok(seen.some((member) => member.name === '李明'));
    assert.ok(seen.some((member) => /[\u0600-\u06FF]/.test(member.name)), 'an Arabic name');
    assert.ok(seen.some((member) => /[\u0400-\u04FF]/.test(member.name)), 'a Cyrillic name');
    assert.ok(seen.some((member) => /[\u0370-\u03FF]/.test(member.name)), 'a Greek name');
  });

  it('answers everyone in one page without limit, with names as raw UTF-8', async () => {
    const { lms, app } = await setup();
    const token = lms.issueAccessToken().access_token;
    const res = await request(app).get(`${MOUNT}/nrps/${lms.course.id}`).set('Authorization', `Bearer ${token}`).expect(200);
    assert.equal(res.headers.link, undefined);
    assert.ok(res.text.includes('Олена Коваленко'), 'not \\u-escaped');
    const members = (JSON.parse(res.text) as { members: Array<{ roles: string[]; user_id: string }> }).members;
    assert.equal(members.length, 4 + 30);
    // Moodle lists a non-editing teacher as Learner in Names and Roles.
    const ta = lms.users.find((user) => user.key === 'ta');
    assert.deepEqual(members.find((member) => member.user_id === ta?.id)?.roles, ['Learner']);
  });

  it('requires a bearer token with the membership scope', async () => {
    const { lms, app } = await setup();
    const path = `${MOUNT}/nrps/${lms.course.id}`;
    const none = await request(app).get(path).expect(401);
    assert.match(none.headers['www-authenticate'] ?? '', /^Bearer/);
    await request(app).get(path).set('Authorization', 'Bearer not-a-token').expect(401);
    await request(app).get(path).set('Authorization', `Bearer ${lms.issueAccessToken([]).access_token}`).expect(403);
    await request(app).get(`${MOUNT}/nrps/another-course`).set('Authorization', `Bearer ${lms.issueAccessToken().access_token}`).expect(404);
    await request(app).get(`${path}?limit=0`).set('Authorization', `Bearer ${lms.issueAccessToken().access_token}`).expect(400);
  });

  async function nrpsAccessToken(app: express.Express, lms: DemoLms): Promise<{ access_token: string }> {
    const res = await request(app)
      .post(`${MOUNT}/token`)
      .type('form')
      .send({
        grant_type: 'client_credentials',
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: await clientAssertion(lms),
        scope: NRPS_SCOPE,
      })
      .expect(200);
    return res.body as { access_token: string };
  }
});

describe('demo LMS: quiz pages', () => {
  it('serves the quiz the exam guards: start, attempt, review', async () => {
    const { lms, app } = await setup();
    await request(app).get(`${MOUNT}/quiz/${lms.course.exam.id}`).expect(200);
    await request(app).get(`${MOUNT}/quiz/${lms.course.exam.id}/attempt`).expect(200);
    const submitted = await request(app).post(`${MOUNT}/quiz/${lms.course.exam.id}/attempt`).type('form').send({ q0: '7' }).expect(303);
    assert.match(submitted.headers.location ?? '', /\/quiz\/exam-midterm\/review\?score=1$/);
    await request(app).get(`${MOUNT}/quiz/no-such-quiz`).expect(404);
  });
});
