import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import express from 'express';
import { decodeJwt } from 'jose';
import { pino } from 'pino';
import supertest from 'supertest';
import { createHostedLinks, HOSTED_LINK_MARGIN_SECONDS } from '../../../src/hosted/links.js';
import { createHostedRoutes, type HostedRoutesDeps } from '../../../src/hosted/routes.js';
import { RosterError } from '../../../src/hosted/roster.js';
import { errorHandler } from '../../../src/http/error-handler.js';
import { DEFAULT_INSTITUTION_SETTINGS } from '../../../src/institution/settings.js';
import { PNG_1PX, signHostedToken } from '../../helpers/hosted.js';
import { platformKey } from '../../../src/lti/identifiers.js';

/** The hosted routes on fakes: CORS with a configured origin list, and the answers that need no LMS. */
const SECRET = 'hosted-links-test-secret';
const links = createHostedLinks({ baseUrl: 'https://tool.example.edu', secret: SECRET });
const KEY = platformKey('https://lms.example.edu', 'client');

function app(allowedOrigins: string[]) {
  const server = express();
  server.use(
    createHostedRoutes({
      links,
      roster: {
        get: async (sectionId) => {
          if (sectionId === 'sec-down') throw new RosterError('roster_unavailable', 'down');
          return { json: '[["id-1","Ана"]]', staffNames: [], members: 1, unnamed: 0, fetchedAt: new Date() };
        },
        clear: () => undefined, forget: () => undefined,
      },
      contexts: { find: async () => undefined },
      exams: { listByContext: async () => [] },
      examTagOf: () => 'ex-tag',
      logos: {
        findByKey: async (key) => (key === KEY ? { contentType: 'image/png', bytes: PNG_1PX, etag: '"abc"', updatedAt: new Date('2026-01-02T03:04:05Z') } : undefined),
      },
      institutions: {
        findByKey: async (key) =>
          key === KEY
            ? { issuer: 'https://lms.example.edu', clientId: 'client', settings: { ...DEFAULT_INSTITUTION_SETTINGS, extensionAllowlist: ['abcdefghijklmnopabcdefghijklmnop', 'not an id'] } }
            : undefined,
      },
      allowedOrigins,
      logger: pino({ level: 'silent' }),
    }),
  );
  // Failures are answered by the tool's one error handler, as in the app.
  server.use(errorHandler(pino({ level: 'silent' })));
  return supertest(server);
}

describe('hosted routes: CORS for configured origins', () => {
  const request = app(['https://portal.example.com', 'https://review.example.com']);

  it('allows a configured origin, without credentials, and varies on Origin', async () => {
    const url = new URL(await links.rosterUrl('sec-1', 60));
    const response = await request.get(url.pathname + url.search).set('Origin', 'https://review.example.com');
    assert.equal(response.status, 200);
    assert.equal(response.headers['access-control-allow-origin'], 'https://review.example.com');
    assert.equal(response.headers['access-control-allow-credentials'], undefined);
    assert.match(String(response.headers.vary), /Origin/);
    assert.deepEqual(response.body, [['id-1', 'Ана']]);
  });

  it('gives an origin that is not configured no Access-Control-Allow-Origin', async () => {
    const url = new URL(await links.rosterUrl('sec-1', 60));
    const response = await request.get(url.pathname + url.search).set('Origin', 'https://evil.example.com');
    assert.equal(response.headers['access-control-allow-origin'], undefined);
  });

  it('answers the preflight of a configured origin', async () => {
    const response = await request
      .options('/hosted/roster?t=x')
      .set('Origin', 'https://portal.example.com')
      .set('Access-Control-Request-Method', 'GET')
      .set('Access-Control-Request-Headers', 'accept');
    assert.equal(response.status, 204);
    assert.equal(response.headers['access-control-allow-origin'], 'https://portal.example.com');
    assert.match(String(response.headers['access-control-allow-methods']), /GET/);
    assert.equal(response.headers['access-control-max-age'], '600');
  });

  it('error answers are JSON, readable cross-origin, and never cached', async () => {
    const url = new URL(await links.rosterUrl('sec-down', 60));
    const response = await request.get(url.pathname + url.search).set('Origin', 'https://portal.example.com');
    assert.equal(response.status, 502);
    const { incidentId, ...rest } = response.body as { incidentId?: unknown };
    assert.deepEqual(rest, { error: 'roster_unavailable', message: 'down' });
    assert.equal(typeof incidentId, 'string', 'every error answer names its incident');
    assert.equal(response.headers['cache-control'], 'no-store');
    assert.equal(response.headers['access-control-allow-origin'], 'https://portal.example.com');
  });
});

describe('hosted routes: logo and allowlist', () => {
  const request = app(['*']);

  it('serves the logo with its type, validators and CORS, and 304 when unchanged', async () => {
    const response = await request.get(`/hosted/logo/${KEY}`).set('Origin', 'https://portal.example.com');
    assert.equal(response.status, 200);
    assert.equal(response.headers['content-type'], 'image/png');
    assert.equal(response.headers['access-control-allow-origin'], '*');
    assert.equal(response.headers.etag, '"abc"');
    assert.equal(response.headers['last-modified'], 'Fri, 02 Jan 2026 03:04:05 GMT');
    assert.deepEqual(Buffer.from(response.body as Buffer), PNG_1PX);
    assert.equal((await request.get(`/hosted/logo/${KEY}`).set('If-None-Match', '"abc"')).status, 304);
    assert.equal((await request.get(`/hosted/logo/${KEY}`).set('If-Modified-Since', 'Sat, 03 Jan 2026 00:00:00 GMT')).status, 304);
  });

  it('answers 404 JSON when a platform has no logo', async () => {
    const response = await request.get(`/hosted/logo/${'A'.repeat(22)}`);
    assert.equal(response.status, 404);
    assert.equal(response.body.error, 'no_logo');
    assert.equal((await request.get('/hosted/logo/..%2F..%2Fetc')).status, 404);
  });

  it('serves the allowlist as a JSON array of valid extension ids only', async () => {
    const response = await request.get(`/hosted/extension-allowlist/${KEY}`).set('Origin', 'https://portal.example.com');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, ['abcdefghijklmnopabcdefghijklmnop']);
    assert.equal(response.headers['access-control-allow-origin'], '*');
    const unknown = await request.get(`/hosted/extension-allowlist/${'B'.repeat(22)}`);
    assert.deepEqual(unknown.body, []);
    assert.equal((await request.get('/hosted/extension-allowlist/short')).status, 404);
  });
});

describe('hosted links: lifetime tied to the launch URL', () => {
  const expOf = (url: string) => decodeJwt(new URL(url).searchParams.get('t')!).exp!;

  it('a link lives as long as the URL it was issued with, plus the margin, and is refused afterwards', async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const ttl of [600, 3600, 18_000]) {
      const exp = expOf(await links.rosterUrl('sec-1', ttl));
      assert.ok(Math.abs(exp - (now + ttl + HOSTED_LINK_MARGIN_SECONDS)) <= 2, `ttl ${ttl}: exp ${exp - now}s from now`);
      assert.ok(Math.abs(expOf(await links.examRosterUrl('sec-1', ttl)) - exp) <= 2);
    }
    const expired = await signHostedToken(SECRET, { s: 'sec-1', k: 'r' }, now - 1);
    assert.equal(await links.verify(expired, 'roster'), undefined);
    assert.equal((await links.verify(new URL(await links.rosterUrl('sec-1', 60)).searchParams.get('t')!, 'roster'))?.sectionId, 'sec-1');
  });

  it("the exam roster's roster_url expires with the exam-roster link, names the same course, and nothing is shared with credentials under *", async () => {
    const server = express();
    server.use(
      createHostedRoutes({
        links,
        roster: { get: async () => ({ json: '[]', staffNames: [], members: 0, unnamed: 0, fetchedAt: new Date() }), clear: () => undefined, forget: () => undefined },
        contexts: {
          find: async (sectionId) =>
            sectionId === 'sec-9'
              ? { sectionId, issuer: 'https://lms.example.edu', clientId: 'client', deploymentId: '1', contextId: 'course-9', membershipsUrl: 'https://lms.example.edu/nrps/9' }
              : undefined,
        },
        exams: {
          listByContext: async () =>
            [
              { title: 'Midterm', resourceLinkId: 'link-1', settings: {} },
              { title: 'Not set up', resourceLinkId: 'link-2', settings: null },
            ] as unknown as Awaited<ReturnType<HostedRoutesDeps['exams']['listByContext']>>,
        },
        examTagOf: (_issuer, _deployment, resourceLinkId) => `tag-${resourceLinkId}`,
        logos: { findByKey: async () => undefined },
        institutions: { findByKey: async () => undefined },
        allowedOrigins: ['*'],
        logger: pino({ level: 'silent' }),
      }),
    );
    const examRosterUrl = await links.examRosterUrl('sec-9', 1800);
    const url = new URL(examRosterUrl);
    const response = await supertest(server).get(url.pathname + url.search).set('Origin', 'https://portal.example.com').set('Cookie', 'session=1');
    assert.equal(response.status, 200, response.text);
    assert.equal(response.headers['access-control-allow-origin'], '*');
    assert.equal(response.headers['access-control-allow-credentials'], undefined, '* is never combined with credentials');
    const entries = response.body as Array<{ exam_name: string; exam_tag: string; section_id: string; roster_url: string }>;
    assert.deepEqual(entries.map((e) => [e.exam_name, e.exam_tag, e.section_id]), [['Midterm', 'tag-link-1', 'sec-9']], 'only configured exams');
    assert.ok(Math.abs(expOf(entries[0]!.roster_url) - expOf(examRosterUrl)) <= 2, 'the roster_url expires with the exam-roster link');
    assert.equal((await links.verify(new URL(entries[0]!.roster_url).searchParams.get('t')!, 'roster'))?.sectionId, 'sec-9');
  });
});
