import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { createHostedLinks } from '../../../src/hosted/links.js';
import { deriveSectionId, deriveUserId } from '../../../src/lti/identifiers.js';
import { startTestApp, type TestApp, installationSecret } from '../../helpers/app.js';
import { launch } from '../../helpers/lti-flow.js';

describe('hosted roster: a course of 10,000', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app.close();
  });

  it('is correct, and 20 concurrent cold requests cause one Names and Roles fetch', async () => {
    const demo = app.tool.sandbox!.demoLms;
    demo.setClass({ classSize: 10_000, nrpsPageSize: 1000 });
    await launch(app, { user: 'student', flavor: 'canvas', presentation: 'window' });
    const pseudonyms = await installationSecret(app.db, 'pseudonyms');
    const links = createHostedLinks({ baseUrl: app.baseUrl, secret: await installationSecret(app.db, 'hosted-links') });
    const { issuer, deploymentIds } = demo.registration;
    const url = new URL(await links.rosterUrl(deriveSectionId(pseudonyms, issuer, deploymentIds[0]!, demo.course.id), 3600));
    const pages = Math.ceil(demo.members().length / 1000);
    assert.equal(pages, 11);

    const before = demo.nrpsPageRequests();
    const started = Date.now();
    const responses = await Promise.all(Array.from({ length: 20 }, () => supertest(app.baseUrl).get(url.pathname + url.search)));
    const elapsed = Date.now() - started;
    assert.ok(responses.every((r) => r.status === 200), responses.map((r) => r.status).join(','));
    assert.equal(demo.nrpsPageRequests() - before, pages, 'one fetch of every page, shared by all 20 requests');
    assert.ok(responses.every((r) => r.text === responses[0]!.text));

    const expected = demo
      .members()
      // The demo LMS's Names and Roles speaks Moodle: its teachers (Instructor) are not candidates.
      .filter((person) => person.status === 'Active' && person.role !== 'instructor')
      .map((person) => [deriveUserId(pseudonyms, issuer, person.id), person.name]);
    assert.ok(expected.length > 9_000 && expected.length < 10_004);
    assert.deepEqual(JSON.parse(responses[0]!.text), expected);
    console.log(`# 10,000-member roster: ${expected.length} active members, ${responses[0]!.text.length} characters, 20 concurrent cold requests in ${elapsed} ms`);
  });
});
