import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseLaunchUrl } from '../../../src/proctoring/responses.js';

const URL_WITH_TAG = 'https://exams.example.com/session/abc?x=1#exam-42';

describe('reading a launch success body (shape not shown in the spec)', () => {
  const accepted: [string, string][] = [
    ['bare URL text', URL_WITH_TAG],
    ['bare URL text with a newline', `${URL_WITH_TAG}\n`],
    ['a JSON string', JSON.stringify(URL_WITH_TAG)],
    ['an array (first item)', JSON.stringify([URL_WITH_TAG, 'https://exams.example.com/review/abc'])],
    ['an object with url', JSON.stringify({ url: URL_WITH_TAG })],
    ['an object with launch_url', JSON.stringify({ launch_url: URL_WITH_TAG })],
    ['an object with another …url field', JSON.stringify({ status: 'ok', candidateUrl: URL_WITH_TAG })],
    ['a percent-encoded URL', encodeURIComponent(URL_WITH_TAG)],
    ['a percent-encoded URL twice', encodeURIComponent(encodeURIComponent(URL_WITH_TAG))],
    ['an array of percent-encoded URLs', JSON.stringify([encodeURIComponent(URL_WITH_TAG)])],
  ];
  for (const [name, body] of accepted) {
    it(`accepts ${name}, keeping the #tag`, () => {
      assert.deepEqual(parseLaunchUrl(body), { ok: true, value: URL_WITH_TAG });
    });
  }

  const refused: [string, string][] = [
    ['an empty body', ''],
    ['a number (an error code)', '2655'],
    ['a JSON number', ' 42 '],
    ['HTML', '<html><body>Bad gateway</body></html>'],
    ['a relative URL', '/session/abc'],
    ['another scheme', 'javascript:alert(1)'],
    ['an object without a URL', JSON.stringify({ error: 'nope' })],
    ['an empty array', '[]'],
    ['malformed JSON', '{"url": '],
    ['a URL with spaces', 'https://exams.example.com/a b'],
  ];
  for (const [name, body] of refused) {
    it(`refuses ${name}`, () => {
      const result = parseLaunchUrl(body);
      assert.equal(result.ok, false);
    });
  }
});
