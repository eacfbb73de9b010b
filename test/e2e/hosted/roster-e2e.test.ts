import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import supertest from 'supertest';
import { createContextStore } from '../../../src/hosted/contexts.js';
import { createLogoStore } from '../../../src/hosted/logos.js';
import { createInstitutionSettingsStore } from '../../../src/institution/settings.js';
import { createHostedLinks, HOSTED_LINK_MARGIN_SECONDS, type HostedLinks } from '../../../src/hosted/links.js';
import { createExamStore } from '../../../src/exams/store.js';
import { deriveExamTag, deriveSectionId, deriveUserId, platformKey } from '../../../src/lti/identifiers.js';
import type { DemoLms } from '../../../src/sandbox/demo-lms/index.js';
import { startTestApp, type TestApp, installationSecret } from '../../helpers/app.js';
import { CLAIMS, launchAs } from '../../helpers/launches.js';
import { launch } from '../../helpers/lti-flow.js';
import { PNG_1PX, signHostedToken, startStub } from '../../helpers/hosted.js';
import { pathOf } from '../../helpers/urls.js';

/**
 * The roster and exam-roster endpoints of the real app, fed by the demo LMS's Names and Roles service
 * through the OAuth2 client-credentials flow ltijs uses, after real signed launches.
 */
describe('hosted roster: real launches, Names and Roles over several pages', () => {
  let app: TestApp;
  let demo: DemoLms;
  let pseudonyms: string;
  let linkSecret: string;
  let links: HostedLinks;
  let sectionId: string;
  let request: ReturnType<typeof supertest>;
  const received = () => app.tool.sandbox?.emulator.received ?? [];

  before(async () => {
    // Short enough that the silent-stub case ends quickly, long enough for real fetches on a loaded machine.
    app = await startTestApp({ ROSTER_FETCH_TIMEOUT_MS: '4000' });
    demo = app.tool.sandbox!.demoLms;
    // 4 named members + 30 generated learners (2 of them inactive) in pages of 13: 3 pages.
    demo.setClass({ classSize: 30, nrpsPageSize: 13 });
    pseudonyms = await installationSecret(app.db, 'pseudonyms');
    linkSecret = await installationSecret(app.db, 'hosted-links');
    links = createHostedLinks({ baseUrl: app.baseUrl, secret: linkSecret });
    const { issuer, deploymentIds } = demo.registration;
    sectionId = deriveSectionId(pseudonyms, issuer, deploymentIds[0]!, demo.course.id);
    request = supertest(app.baseUrl);
  });
  after(async () => {
    await app.close();
  });

  // The candidates: Moodle lists its teachers as Instructor (out of the roster), its non-editing teachers as Learner.
  const expectedPairs = () =>
    demo
      .members()
      .filter((person) => person.status === 'Active' && person.role !== 'instructor')
      .map((person) => [deriveUserId(pseudonyms, demo.registration.issuer, person.id), person.name]);

  /** A student launch of the demo course's exam: the tool then knows the course and its Names and Roles URL. */
  const launchCourse = () => launch(app, { user: 'student', flavor: 'moodle', presentation: 'window' });

  let courses = 0;

  it('a launch records the course; its roster is every active member from 3 NRPS pages, fetched once', async () => {
    // A course no other test has fetched the roster of, whose Names and Roles URL is still the demo class's.
    const contextId = `roster-course-${++courses}`;
    await launchAs(app, {
      user: 'student',
      flavor: 'moodle',
      presentation: 'window',
      claims: (claims) => {
        claims[CLAIMS.context] = { ...(claims[CLAIMS.context] as object), id: contextId };
      },
    });
    const section = deriveSectionId(pseudonyms, demo.registration.issuer, demo.registration.deploymentIds[0]!, contextId);
    const pagesBefore = demo.nrpsPageRequests();
    const response = await request.get(pathOf(await links.rosterUrl(section, 3600))).set('Origin', 'https://portal.example.com');
    assert.equal(response.status, 200, response.text.slice(0, 300));
    assert.match(response.headers['content-type'] as string, /^application\/json; charset=utf-8/);
    assert.equal(response.headers['access-control-allow-origin'], '*');
    assert.equal(response.headers['cache-control'], 'no-store');
    assert.equal(demo.nrpsPageRequests() - pagesBefore, 3);
    const expected = expectedPairs();
    assert.equal(expected.length, 31);
    assert.deepEqual(JSON.parse(response.text), expected);
    assert.ok(response.text.includes('李明') && response.text.includes('فاطمة الزهراء'), 'names arrive unescaped UTF-8');
    assert.ok(!response.text.includes('Олена Коваленко'), 'the instructor is not a candidate');
    const ids = (JSON.parse(response.text) as string[][]).map(([id]) => id);
    assert.equal(new Set(ids).size, ids.length, 'no id twice');

    const again = await request.get(pathOf(await links.rosterUrl(section, 3600)));
    assert.equal(again.text, response.text);
    assert.equal(demo.nrpsPageRequests() - pagesBefore, 3, 'the second request is served from the cache');
  });

  it('roster ids equal the user_ids the launches of the same people send', async () => {
    // Candidate launches go straight to the service; staff launches open the exam hub first.
    const sent: Array<{ user: string; name: string; userId: string | undefined }> = [];
    for (const [user, flavor] of [['student', 'moodle'], ['student', 'canvas']] as const) {
      const before = received().length;
      await launch(app, { user, flavor, presentation: 'window' });
      const call = received().slice(before).at(-1);
      assert.ok(call, `the ${user} launch reached the proctoring service`);
      sent.push({ user, name: demo.users.find((u) => u.key === user)!.name, userId: (call.body as { user_id?: string }).user_id });
    }
    const response = await request.get(pathOf(await links.rosterUrl(sectionId, 60)));
    assert.equal(response.status, 200, response.text.slice(0, 300));
    const roster = new Map((JSON.parse(response.text) as [string, string][]).map(([id, name]) => [name, id]));
    for (const { user, name, userId } of sent) assert.equal(userId, roster.get(name), `${user}: launch user_id = roster id`);
  });

  it("the roster_url a launch sends lives as long as that launch's URL (the exam's expire, else the service default) plus the margin", async () => {
    const exams = createExamStore(app.db);
    const key = { issuer: demo.registration.issuer, clientId: demo.registration.clientId, deploymentId: demo.registration.deploymentIds[0]!, contextId: demo.course.id, resourceLinkId: demo.course.exam.id };
    const exam = (await exams.find(key))!;
    const original = exam.settings!;
    const seconds = () => Math.floor(Date.now() / 1000);
    /** The link's expiry and the clock (in whole seconds) just before and just after the launch that signed it. */
    const rosterExpiry = async () => {
      const before = received().length;
      const startedAt = seconds();
      await launch(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
      const endedAt = seconds();
      const body = received().slice(before).find((c) => c.endpoint === '/v2/candidate/launch')?.body as { roster_url: string; expire?: number };
      assert.ok(body?.roster_url, 'the candidate launch carries a roster_url');
      const exp = decodeJwt(new URL(body.roster_url).searchParams.get('t')!).exp!;
      return { exp, startedAt, endedAt, expire: body.expire };
    };
    const assertLifetime = (link: { exp: number; startedAt: number; endedAt: number }, lifetime: number) =>
      assert.ok(link.startedAt + lifetime <= link.exp && link.exp <= link.endedAt + lifetime, `exp ${link.exp} within [${link.startedAt}, ${link.endedAt}] + ${lifetime} s`);
    try {
      await exams.saveSettings(exam.id, { ...original, expire: 900 });
      const short = await rosterExpiry();
      assert.equal(short.expire, 900);
      assertLifetime(short, 900 + HOSTED_LINK_MARGIN_SECONDS);
      const withoutExpire = { ...original };
      delete withoutExpire.expire;
      await exams.saveSettings(exam.id, withoutExpire);
      const byDefault = await rosterExpiry();
      assert.equal(byDefault.expire, undefined);
      assertLifetime(byDefault, 18_000 + HOSTED_LINK_MARGIN_SECONDS);
    } finally {
      await exams.saveSettings(exam.id, original);
    }
  });

  it('refuses expired, altered, foreign and wrong-kind links with 401 JSON and no data', async () => {
    const now = Math.floor(Date.now() / 1000);
    const good = new URL(await links.rosterUrl(sectionId, 60)).searchParams.get('t')!;
    const [header, payload, signature] = good.split('.');
    const otherSection = deriveSectionId(pseudonyms, demo.registration.issuer, '1', 'another-course');
    const forgedPayload = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), s: otherSection })).toString('base64url');
    const tokens = {
      expired: await signHostedToken(linkSecret, { s: sectionId, k: 'r' }, now - 10),
      'altered signature': `${header}.${payload}.${signature!.slice(0, -2)}${signature!.endsWith('AA') ? 'BB' : 'AA'}`,
      'altered course (cross-context)': `${header}.${forgedPayload}.${signature}`,
      'signed by another installation': await signHostedToken('another-installation-secret', { s: sectionId, k: 'r' }, now + 600),
      'exam-roster token on the roster': new URL(await links.examRosterUrl(sectionId, 60)).searchParams.get('t')!,
      'no algorithm': `${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.`,
      empty: '',
    };
    for (const [what, token] of Object.entries(tokens)) {
      const response = await request.get(`/hosted/roster?t=${encodeURIComponent(token)}`).set('Origin', 'https://portal.example.com');
      assert.equal(response.status, 401, `${what}: ${response.status}`);
      assert.deepEqual(Object.keys(response.body as object).sort(), ['error', 'incidentId', 'message'], what);
      assert.equal((response.body as { error: string }).error, 'invalid_token');
      assert.equal(response.headers['access-control-allow-origin'], '*', 'the refusal is readable by the portal');
    }
    assert.equal((await request.get('/hosted/roster')).status, 401);
    // A valid link for a course the tool never saw: 404, no data.
    const unknown = await request.get(pathOf(await links.rosterUrl(otherSection, 60)));
    assert.equal(unknown.status, 404);
    assert.equal((unknown.body as { error: string }).error, 'unknown_course');
  });

  it('stays well under 600 characters and needs no cookie', async () => {
    await launchCourse();
    const url = await links.rosterUrl(sectionId, 18_000);
    assert.ok(url.length < 300, `${url.length} characters`);
    const response = await supertest(app.baseUrl).get(pathOf(url));
    assert.equal(response.status, 200);
    assert.equal(response.headers['set-cookie'], undefined);
  });

  it('answers the CORS preflight', async () => {
    const response = await request.options('/hosted/roster?t=x').set('Origin', 'https://portal.example.com').set('Access-Control-Request-Method', 'GET');
    assert.equal(response.status, 204);
    assert.equal(response.headers['access-control-allow-origin'], '*');
    assert.match(String(response.headers['access-control-allow-methods']), /GET/);
  });

  it('the exam roster lists the course exam with the exam_tag launches send and a working roster_url', async () => {
    const before = received().length;
    await launchCourse();
    const candidate = received().slice(before).at(-1)?.body as { exam_tag?: string } | undefined;
    const response = await request.get(pathOf(await links.examRosterUrl(sectionId, 600))).set('Origin', 'https://portal.example.com');
    assert.equal(response.status, 200, response.text);
    assert.equal(response.headers['access-control-allow-origin'], '*');
    const entries = response.body as Array<{ exam_name: string; exam_tag: string; section_id: string; roster_url?: string }>;
    assert.equal(entries.length, 1);
    const [entry] = entries;
    const tag = deriveExamTag(pseudonyms, demo.registration.issuer, demo.registration.deploymentIds[0]!, demo.course.exam.id);
    assert.deepEqual({ ...entry, roster_url: undefined }, { exam_name: demo.course.exam.title, exam_tag: tag, section_id: sectionId, roster_url: undefined });
    if (candidate?.exam_tag) assert.equal(entry!.exam_tag, candidate.exam_tag, 'the candidate launch sent the same exam_tag');
    assert.ok(entry!.roster_url!.length < 600);
    const roster = await request.get(pathOf(entry!.roster_url!));
    assert.equal(roster.status, 200);
    assert.deepEqual(JSON.parse(roster.text), expectedPairs());
    const wrongKind = await request.get(pathOf(await links.rosterUrl(sectionId, 60)).replace('/hosted/roster', '/hosted/exam-roster'));
    assert.equal(wrongKind.status, 401);
  });

  describe('when Names and Roles is missing, failing or slow', () => {
    const contexts = () => createContextStore(app.db, { pseudonymSecret: pseudonyms });
    const courseWith = (contextId: string, namesRolesUrl: string | undefined) =>
      contexts().remember({ issuer: demo.registration.issuer, clientId: demo.registration.clientId, deploymentId: '1', context: { id: contextId }, namesRolesUrl });

    it('says so clearly when the platform offers no Names and Roles for the course', async () => {
      const section = (await courseWith('course-without-nrps', undefined))!;
      const response = await request.get(pathOf(await links.rosterUrl(section, 60)));
      assert.equal(response.status, 404);
      assert.equal((response.body as { error: string }).error, 'no_names_and_roles');
      assert.match((response.body as { message: string }).message, /Names and Roles/);
    });

    it('answers 502 when a later page fails, never a partial roster', async () => {
      const stub = await startStub((req, res) => {
        if (req.url === '/nrps/p1') {
          res.writeHead(200, { 'Content-Type': 'application/vnd.ims.lti-nrps.v2.membershipcontainer+json', Link: `<${stubUrl}/nrps/p2>; rel="next"` });
          res.end(JSON.stringify({ id: 'x', context: { id: 'c' }, members: [{ user_id: '1', name: 'Ana', status: 'Active', roles: ['Learner'] }] }));
          return;
        }
        res.writeHead(500).end('upstream broke');
      });
      const stubUrl = stub.url;
      try {
        const section = (await courseWith('course-failing-nrps', `${stub.url}/nrps/p1`))!;
        const response = await request.get(pathOf(await links.rosterUrl(section, 60)));
        assert.equal(response.status, 502);
        assert.equal((response.body as { error: string }).error, 'roster_unavailable');
        assert.doesNotMatch(response.text, /Ana/);
      } finally {
        await stub.close();
      }
    });

    it('answers 504 when Names and Roles does not answer in time', async () => {
      const stub = await startStub(() => undefined);
      try {
        const section = (await courseWith('course-slow-nrps', `${stub.url}/nrps`))!;
        const started = Date.now();
        const response = await request.get(pathOf(await links.rosterUrl(section, 60)));
        assert.equal(response.status, 504);
        assert.equal((response.body as { error: string }).error, 'roster_timeout');
        // Well under the default 30 s deadline: the configured one applied, the request did not hang.
        assert.ok(Date.now() - started < 20_000);
      } finally {
        await stub.close();
      }
    });

    it('records members without names for the administrator', async () => {
      const stub = await startStub((_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ members: [{ user_id: '9', status: 'Active', roles: ['Learner'] }, { user_id: '10', name: 'Bo', roles: ['Learner'] }] }));
      });
      try {
        const section = (await courseWith('course-private-names', `${stub.url}/nrps`))!;
        const response = await request.get(pathOf(await links.rosterUrl(section, 60)));
        assert.equal(response.status, 200);
        assert.deepEqual(JSON.parse(response.text), [
          [deriveUserId(pseudonyms, demo.registration.issuer, '9'), ''],
          [deriveUserId(pseudonyms, demo.registration.issuer, '10'), 'Bo'],
        ]);
        const problems = await contexts().rosterProblems();
        const mine = problems.find((p) => p.sectionId === section);
        assert.deepEqual(mine?.roster, { members: 2, unnamed: 1, error: undefined });
      } finally {
        await stub.close();
      }
    });
  });
  describe('logo and extension allowlist on the real app', () => {
    const key = () => platformKey(demo.registration.issuer, demo.registration.clientId);

    const logos = () => createLogoStore(app.db);
    const removeLogo = () => logos().remove(demo.registration.issuer, demo.registration.clientId);

    it('the logo is 404 JSON until set, then served with its type, validators and CORS', async () => {
      await removeLogo();
      try {
        const missing = await request.get(`/hosted/logo/${key()}`);
        assert.equal(missing.status, 404);
        assert.equal((missing.body as { error: string }).error, 'no_logo');
        await logos().save(demo.registration.issuer, demo.registration.clientId, PNG_1PX);
        const logo = await request.get(`/hosted/logo/${key()}`).set('Origin', 'https://portal.example.com');
        assert.equal(logo.status, 200);
        assert.equal(logo.headers['content-type'], 'image/png');
        assert.equal(logo.headers['access-control-allow-origin'], '*');
        assert.equal(logo.headers['cross-origin-resource-policy'], 'cross-origin');
        assert.ok(logo.headers.etag && logo.headers['last-modified']);
        assert.deepEqual(Buffer.from(logo.body as Buffer), PNG_1PX);
        assert.equal((await request.get(`/hosted/logo/${key()}`).set('If-None-Match', logo.headers.etag as string)).status, 304);
      } finally {
        await removeLogo();
      }
    });

    it('an SVG logo is served sanitised, with a policy that forbids scripts when opened directly', async () => {
      const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script><rect width="10" height="10"/></svg>';
      try {
        await logos().save(demo.registration.issuer, demo.registration.clientId, new TextEncoder().encode(svg));
        const logo = await request.get(`/hosted/logo/${key()}`).buffer(true).parse((res, done) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => done(null, text));
        });
        assert.equal(logo.headers['content-type'], 'image/svg+xml');
        assert.match(String(logo.headers['content-security-policy']), /default-src 'none'.*sandbox/);
        assert.doesNotMatch(String(logo.body), /script|alert/);
        assert.match(String(logo.body), /<rect/);
      } finally {
        await removeLogo();
      }
    });

    it('the allowlist is the JSON array of the institution settings', async () => {
      const settings = createInstitutionSettingsStore(app.db);
      const { issuer, clientId } = demo.registration;
      try {
        assert.deepEqual((await request.get(`/hosted/extension-allowlist/${key()}`)).body, []);
        await settings.update(issuer, clientId, { extensionAllowlist: ['abcdefghijklmnopabcdefghijklmnop', '{12345678-1234-1234-1234-123456789abc}'] });
        const response = await request.get(`/hosted/extension-allowlist/${key()}`).set('Origin', 'https://portal.example.com');
        assert.equal(response.status, 200);
        assert.equal(response.headers['access-control-allow-origin'], '*');
        assert.deepEqual(response.body, ['abcdefghijklmnopabcdefghijklmnop', '{12345678-1234-1234-1234-123456789abc}']);
      } finally {
        await settings.update(issuer, clientId, { extensionAllowlist: [] });
      }
    });
  });
});
