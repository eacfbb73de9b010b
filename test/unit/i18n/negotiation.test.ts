import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { negotiateLocale, parseAcceptLanguage } from '../../../src/i18n/locales.js';

/** One tag (a launch's locale or one Accept-Language entry) → the language of the pages. */
const SINGLE_TAGS: readonly [string, string][] = [
  ['en', 'en'],
  ['en-GB', 'en'],
  ['es', 'es'],
  ['es-MX', 'es'],
  ['es-419', 'es'],
  ['fr-CA', 'fr'],
  ['de-AT', 'de'],
  ['de-CH', 'de'],
  ['ar-EG', 'ar'],
  ['AR', 'ar'],
  ['pt', 'pt-BR'],
  ['pt-BR', 'pt-BR'],
  // The only Portuguese we have: closer to a reader of European Portuguese than English.
  ['pt-PT', 'pt-BR'],
  ['zh', 'zh-Hans'],
  ['zh-CN', 'zh-Hans'],
  ['zh-SG', 'zh-Hans'],
  ['zh-Hans', 'zh-Hans'],
  ['zh-Hans-CN', 'zh-Hans'],
  // Traditional Chinese is not served in Simplified: the next choice (here none: English) answers.
  ['zh-TW', 'en'],
  ['zh-HK', 'en'],
  ['zh-Hant', 'en'],
  // Moodle's underscore locales.
  ['es_mx', 'es'],
  ['pt_br', 'pt-BR'],
  ['zh_cn', 'zh-Hans'],
  ['zh_tw', 'en'],
  ['ja', 'en'],
  ['', 'en'],
  ['*', 'en'],
  ['garbage!!', 'en'],
  ['x-klingon-', 'en'],
  ['12345', 'en'],
];

describe('choosing the language', () => {
  for (const [tag, expected] of SINGLE_TAGS) {
    it(`${JSON.stringify(tag)} → ${expected}`, () => {
      assert.equal(negotiateLocale([tag]), expected);
    });
  }

  it('takes the first candidate that matches: the launch locale before Accept-Language', () => {
    assert.equal(negotiateLocale(['fr-CA', 'de']), 'fr');
    assert.equal(negotiateLocale([undefined, 'de']), 'de');
    assert.equal(negotiateLocale(['zh-TW', 'zh-CN']), 'zh-Hans');
    assert.equal(negotiateLocale(['ja', 'ko', 'ar']), 'ar');
    assert.equal(negotiateLocale([]), 'en');
  });

  const HEADERS: readonly [string, string][] = [
    ['de-AT,de;q=0.9,en;q=0.8', 'de'],
    ['en;q=0.5, fr;q=0.9', 'fr'],
    ['ja, es;q=0.4', 'es'],
    ['zh-TW,zh;q=0.9,en-US;q=0.8', 'zh-Hans'],
    ['zh-TW,en-US;q=0.8,zh-CN;q=0.5', 'en'],
    ['fr;q=0, es', 'es'],
    ['*', 'en'],
    ['*, de;q=0.5', 'de'],
    ['pt-PT;q=0.8, *;q=0.1', 'pt-BR'],
    ['garbage;;;q=abc, ar-EG;q=0.7', 'ar'],
    ['es;q=1.5', 'en'],
    ['', 'en'],
  ];
  for (const [header, expected] of HEADERS) {
    it(`Accept-Language ${JSON.stringify(header)} → ${expected}`, () => {
      assert.equal(negotiateLocale(parseAcceptLanguage(header)), expected);
    });
  }

  it('orders Accept-Language by q-value, keeping the header order among equals, and drops q=0', () => {
    assert.deepEqual(parseAcceptLanguage('a;q=0.5, b, c;q=0.5, d;q=0, e;q=1'), ['b', 'e', 'a', 'c']);
  });

  it('reads at most 50 entries of a long header', () => {
    const header = [...Array.from({ length: 60 }, () => 'ja'), 'es'].join(',');
    assert.equal(negotiateLocale(parseAcceptLanguage(header)), 'en');
  });
});
