import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { migrations } from '../../../src/db/migrations/index.js';

describe('the migrations list', () => {
  it('runs in the order of the migrations\' numbers, each number once', () => {
    const numbers = migrations.map((migration) => {
      const match = /^(\d{4})_[a-z0-9_]+$/.exec(migration.name);
      assert.ok(match, `${migration.name} is named NNNN_words`);
      return Number(match[1]);
    });
    assert.deepEqual(numbers, [...numbers].sort((a, b) => a - b), 'ascending');
    assert.equal(new Set(numbers).size, numbers.length, 'no number twice');
  });
});
