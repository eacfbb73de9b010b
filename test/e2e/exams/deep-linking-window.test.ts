import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { parseAutoSubmitForm } from '../../../src/sandbox/demo-lms/index.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { launch } from '../../helpers/lti-flow.js';
import { hiddenField } from '../../helpers/urls.js';

const CONTENT_ITEMS = 'https://purl.imsglobal.org/spec/lti-dl/claim/content_items';

/** The tool asks the LMS to open its links in a new window where the LMS accepts that (LTI-DL 2.0 `window`). */
describe('deep-linked exams open in a new window', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app.close();
  });

  for (const flavor of ['moodle', 'canvas'] as const) {
    it(`${flavor}: the returned resource link asks for a new window`, async () => {
      const { auth, response } = await launch(app, { user: 'instructor', kind: 'deep-linking', flavor, presentation: 'window' });
      assert.equal(response.status, 200, response.text.slice(0, 300));
      const action = /<form method="post" action="([^"]+)"/.exec(response.text)?.[1] ?? '';
      const quizUrl = flavor === 'moodle' ? 'https://moodle.example.edu/mod/quiz/view.php?id=78' : 'https://canvas.example.edu/courses/1/quizzes/9';
      const created = await auth.agent
        .post(action)
        .type('form')
        .send({ ltik: hiddenField(response.text, 'ltik'), _csrf: hiddenField(response.text, '_csrf'), title: `Window ${flavor}`, lms_preset: flavor === 'moodle' ? 'moodle' : 'canvas-classic', quiz_url: quizUrl, security_preset: 'standard' });
      assert.equal(created.status, 200, created.text.slice(0, 400));
      const form = parseAutoSubmitForm(created.text);
      assert.ok(form?.fields.JWT);
      const [item] = decodeJwt(form.fields.JWT)[CONTENT_ITEMS] as Array<{ type: string; window?: { targetName?: string } }>;
      assert.equal(item?.type, 'ltiResourceLink');
      assert.deepEqual(item?.window, { targetName: '_blank' });
    });
  }
});
