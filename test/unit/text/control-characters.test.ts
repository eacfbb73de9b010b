import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { forTerminal, hasControlCharacters, jsonForTerminal } from '../../../src/text/control-characters.js';

describe('control characters', () => {
  const TABLE: Array<[string, boolean, string]> = [
    ['plain text é ü 中', false, 'plain text é ü 中'],
    ['esc\u001b[31m', true, 'esc\\x1b[31m'],
    ['bell\u0007', true, 'bell\\x07'],
    ['nul\u0000', true, 'nul\\x00'],
    ['newline\nand tab\t', true, 'newline\\x0aand tab\\x09'],
    ['del\u007f', true, 'del\\x7f'],
    ['csi\u009b2J', true, 'csi\\x9b2J'],
    ['rlo\u202eabc', true, 'rlo\\u{202e}abc'],
    ['isolate\u2066x\u2069', true, 'isolate\\u{2066}x\\u{2069}'],
  ];
  for (const [text, found, printed] of TABLE) {
    it(JSON.stringify(text), () => {
      assert.equal(hasControlCharacters(text), found);
      assert.equal(forTerminal(text), printed);
    });
  }
  it('JSON for a terminal escapes what JSON.stringify leaves raw, and still parses to the same value', () => {
    const value = { name: 'a\u009bb\u202ec\u001b' };
    const json = jsonForTerminal(value);
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(json, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    assert.deepEqual(JSON.parse(json), value);
  });
});
