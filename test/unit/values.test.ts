import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deepFrozen } from '../../src/values.js';

describe('deepFrozen', () => {
  it('freezes the value and every object and array inside it, and returns the same value', () => {
    const launch = { issuer: 'https://lms.example', roles: ['Learner'], context: { id: 'c1' }, custom: { a: '1' }, proctoring: { attempt: { number: 1 } } };
    const frozen = deepFrozen(launch);
    assert.equal(frozen, launch);
    for (const part of [frozen, frozen.roles, frozen.context, frozen.custom, frozen.proctoring, frozen.proctoring.attempt]) assert.ok(Object.isFrozen(part));
    assert.throws(() => {
      (frozen.roles as string[]).push('Instructor');
    }, TypeError);
    assert.throws(() => {
      (frozen.custom as Record<string, string>).b = '2';
    }, TypeError);
  });

  it('leaves strings, numbers and nothing as they are', () => {
    assert.equal(deepFrozen('text'), 'text');
    assert.equal(deepFrozen(3), 3);
    assert.equal(deepFrozen(undefined), undefined);
    assert.equal(deepFrozen(null), null);
  });
});
