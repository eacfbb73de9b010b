import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { launch } from '../../helpers/lti-flow.js';
import { hiddenField } from '../../helpers/urls.js';

const htmlOf = (text: string) => /<html lang="([^"]+)" dir="([^"]+)">/.exec(text)?.slice(1);

/** The language of the tool's pages: Accept-Language for every page, the launch's locale first in an LTI session. */
describe('page language', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app.close();
  });

  it('English without Accept-Language; the language asked for otherwise, with its direction; Vary names the header', async () => {
    const english = await supertest(app.baseUrl).get('/no-such-page');
    assert.deepEqual(htmlOf(english.text), ['en', 'ltr']);
    const arabic = await supertest(app.baseUrl).get('/no-such-page').set('Accept-Language', 'ar-EG,ar;q=0.9,en;q=0.5');
    assert.deepEqual(htmlOf(arabic.text), ['ar', 'rtl']);
    assert.match(String(arabic.headers.vary), /Accept-Language/i);
    const german = await supertest(app.baseUrl).get('/no-such-page').set('Accept-Language', 'de-AT');
    assert.deepEqual(htmlOf(german.text), ['de', 'ltr']);
  });

  it("a launch speaks its launch_presentation.locale over Accept-Language, and so do the session's later pages", async () => {
    const agent = supertest.agent(app.baseUrl).set('Accept-Language', 'de');
    const { response, ltik } = await launch(app, { user: 'instructor', flavor: 'canvas', presentation: 'window', locale: 'es-MX' }, agent);
    assert.equal(response.status, 200, response.text.slice(0, 300));
    assert.deepEqual(htmlOf(response.text), ['es', 'ltr']);
    const examId = /\/lti\/hub\/([0-9a-f-]{36})/.exec(response.text)?.[1];
    assert.ok(examId, 'the hub names its exam');
    const again = await agent.post(`/lti/hub/${examId}`).type('form').send({ ltik });
    assert.equal(again.status, 200);
    assert.deepEqual(htmlOf(again.text), ['es', 'ltr']);
  });

  it('a launch without a locale falls back to Accept-Language', async () => {
    const agent = supertest.agent(app.baseUrl).set('Accept-Language', 'fr-CA,fr;q=0.9');
    const { response } = await launch(app, { user: 'instructor', flavor: 'moodle', presentation: 'window', locale: 'tlh' }, agent);
    assert.deepEqual(htmlOf(response.text), ['fr', 'ltr']);
  });

  const languages: Array<[string, string, RegExp, RegExp]> = [
    ['de', 'ltr', /Beaufsichtigte Prüfung hinzufügen/, /Geben Sie der Prüfung einen Titel/],
    ['ar', 'rtl', /إضافة اختبار مراقَب/, /أعطِ الاختبار عنوانًا/],
    ['zh-Hans', 'ltr', /添加监考考试/, /请为考试填写标题/],
  ];
  for (const [locale, dir, heading, refusal] of languages) {
    it(`the content picker's form and its refusals speak the launch's language (${locale})`, async () => {
      const agent = supertest.agent(app.baseUrl);
      const { response } = await launch(app, { user: 'instructor', kind: 'deep-linking', flavor: 'moodle', presentation: 'window', locale }, agent);
      assert.equal(response.status, 200, response.text.slice(0, 300));
      assert.deepEqual(htmlOf(response.text), [locale, dir]);
      assert.match(response.text, heading);
      assert.doesNotMatch(response.text, /Add a proctored exam|Exam title|Security preset/, 'no English left');
      const action = /<form method="post" action="([^"]+)"/.exec(response.text)?.[1] ?? '';
      const refused = await agent.post(action).type('form').send({ ltik: hiddenField(response.text, 'ltik'), _csrf: hiddenField(response.text, '_csrf'), title: ' ', lms_preset: 'moodle', quiz_url: '', security_preset: 'standard' });
      assert.equal(refused.status, 422);
      assert.match(refused.text, refusal);
    });
  }
});
