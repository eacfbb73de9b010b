import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { requestSlot } from '../../src/http/request-slots.js';

describe('request slots', () => {
  it('keeps a value on its own object, one per object and per slot', () => {
    const first = requestSlot<object, string>('first');
    const second = requestSlot<object, string>('second');
    const a = {};
    const b = {};
    first.set(a, 'a1');
    second.set(a, 'a2');
    first.set(b, 'b1');
    assert.equal(first.get(a), 'a1');
    assert.equal(second.get(a), 'a2');
    assert.equal(first.get(b), 'b1');
    assert.equal(second.get(b), undefined);
    // Invisible to whatever lists or serialises the object.
    assert.deepEqual(Object.keys(a), []);
    assert.equal(JSON.stringify(a), '{}');
  });

});
