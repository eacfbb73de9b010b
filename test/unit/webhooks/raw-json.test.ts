import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { topLevelMembers } from '../../../src/webhooks/raw-json.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');
const valueText = (body: string, key: string) => {
  const raw = bytes(body);
  const member = topLevelMembers(raw)?.find((m) => m.key === key);
  return member ? raw.subarray(member.start, member.end).toString('utf8') : undefined;
};

describe('top-level members of raw JSON', () => {
  it('cuts out each value exactly as written: spacing, escapes, number forms and multi-byte text kept', () => {
    const body = '{ "type" : 1 ,"nonce":"n\\"1", "data" :{"id": "x", "s": 1.50e1, "t": "é✓ \\u00e9 }]\\\\"} , "z":[1,{"a":[]}] }';
    assert.equal(valueText(body, 'data'), '{"id": "x", "s": 1.50e1, "t": "é✓ \\u00e9 }]\\\\"}');
    assert.equal(valueText(body, 'type'), '1');
    assert.equal(valueText(body, 'nonce'), '"n\\"1"');
    assert.equal(valueText(body, 'z'), '[1,{"a":[]}]');
  });

  it('decodes escaped keys and keeps duplicates in order', () => {
    const members = topLevelMembers(bytes('{"d\\u0061ta":1,"data":2}'));
    assert.deepEqual(members?.map((m) => m.key), ['data', 'data']);
  });

  it('answers undefined for anything but an object', () => {
    for (const text of ['[]', '"data"', '1', 'null', '', '{"a":1} x', '{"a" 1}']) assert.equal(topLevelMembers(bytes(text)), undefined, text);
    assert.deepEqual(topLevelMembers(bytes(' {} ')), []);
  });

  it('every value it cuts out parses to the member JSON.parse sees (any object)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.integer({ min: 0, max: 2 }), (object, indent) => {
        const text = JSON.stringify(object, null, indent);
        const members = topLevelMembers(bytes(text));
        assert.ok(members);
        const raw = bytes(text);
        const parsed = JSON.parse(text) as Record<string, unknown>;
        assert.deepEqual(members.map((m) => m.key), Object.keys(parsed));
        for (const member of members) assert.deepEqual(JSON.parse(raw.subarray(member.start, member.end).toString('utf8')), parsed[member.key]);
      }),
      { numRuns: 300 },
    );
  });
});
