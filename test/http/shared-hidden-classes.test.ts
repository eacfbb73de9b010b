// Objects a launch builds many times share one hidden class. On Node.js 20, an object made by a spread and then given
// more properties (`{ ...a, b: 1 }`, `{ ...a, ...b }`) gets a hidden class of its own once the spread's inline cache
// has warmed up: those live in the old generation until a full collection and keep the launch's short-lived objects
// alive through the young collections in between (docs/performance.md, "The rules"). Each builder here runs more
// often than that warm-up, and its last results must share their hidden class (V8's %HaveSameMap).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { LaunchLog, LaunchRecord } from '../../src/launches/log.js';
import { createLaunchRecorder } from '../../src/launches/recorder.js';
import type { LaunchSession } from '../../src/launches/service.js';
import { launchClaimsSchema } from '../../src/lti/claims.js';
import { createLogger } from '../../src/logger.js';
import { merged } from '../../src/values.js';

setFlagsFromString('--allow-natives-syntax');
const haveSameMap = runInNewContext('(a, b) => %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

const RUNS = 40;

/** True when every result after the inline caches' warm-up has the hidden class of the one before it. */
function shareOneHiddenClass(results: readonly object[]): boolean {
  return results.slice(RUNS / 2).every((result, i, later) => i === 0 || haveSameMap(later[i - 1]!, result));
}

describe('hidden classes of what a launch builds', () => {
  it('the check itself tells objects of one shape from objects of two', () => {
    assert.equal(shareOneHiddenClass(Array.from({ length: RUNS }, (_, i) => ({ a: i, b: 'x' }))), true);
    assert.equal(shareOneHiddenClass(Array.from({ length: RUNS }, (_, i) => (i % 2 ? { a: i } : { b: i }))), false);
  });

  describe('merged', () => {
    it('copies like a spread: own enumerable properties in order, later sources winning, absent sources skipped', () => {
      const result = merged({ a: 1, b: 2 }, undefined, { b: 3, c: 4 });
      assert.deepEqual(result, { a: 1, b: 3, c: 4 });
      assert.deepEqual(Object.keys(result), ['a', 'b', 'c']);
      assert.equal(Object.getPrototypeOf(result), Object.prototype);
    });

    it('keeps a property named __proto__ as a property and never as the prototype', () => {
      const hostile = JSON.parse('{"__proto__": {"isAdmin": true}, "name": "x"}') as Record<string, unknown>;
      const result = merged({ a: 1 }, hostile);
      assert.equal(Object.getPrototypeOf(result), Object.prototype);
      assert.equal((result as { isAdmin?: unknown }).isAdmin, undefined);
      assert.deepEqual(Object.getOwnPropertyDescriptor(result, '__proto__')?.value, { isAdmin: true });
      assert.deepEqual(Object.keys(result), ['a', '__proto__', 'name']);
    });

    it('gives every merge of the same keys one hidden class', () => {
      const results = Array.from({ length: RUNS }, (_, i) => merged({ iss: `https://lms${i}.example`, sub: `user-${i}` }, { clientId: 'client', platformId: `p${i}` }));
      assert.equal(shareOneHiddenClass(results), true);
    });
  });

  it('launch records', async () => {
    const records: LaunchRecord[] = [];
    const log: LaunchLog = {
      record: async (entry) => void records.push(entry),
      unstored: () => 0,
      settled: async () => undefined,
      recentForExam: async () => [],
    };
    const record = createLaunchRecorder({ log });
    for (let i = 0; i < RUNS; i++) {
      const session = { launch: { issuer: 'https://lms.example', context: { id: `course-${i}` } }, userId: `user-${i}`, decision: { kind: 'candidate' }, logger: createLogger('silent') } as unknown as LaunchSession;
      await record(session, { endpoint: 'candidate', examId: `exam-${i}` }, async () => ({ kind: 'settings' as const, examId: `exam-${i}` }));
    }
    assert.equal(records.length, RUNS);
    assert.deepEqual({ ...records[0] }, { issuer: 'https://lms.example', contextId: 'course-0', userId: 'user-0', role: 'candidate', examId: 'exam-0', endpoint: 'candidate', outcome: 'shown', errorCode: undefined, incidentId: undefined, durationMs: records[0]!.durationMs });
    assert.equal(shareOneHiddenClass(records), true);
  });

  it('launch claims: a null name reads as absent, a wrong type too, a name stays', () => {
    const claims = {
      iss: 'https://lms.example',
      sub: 'user',
      aud: 'client',
      'https://purl.imsglobal.org/spec/lti/claim/message_type': 'LtiResourceLinkRequest',
      'https://purl.imsglobal.org/spec/lti/claim/version': '1.3.0',
      'https://purl.imsglobal.org/spec/lti/claim/deployment_id': 'dep',
    };
    assert.equal(launchClaimsSchema.parse({ ...claims, name: null }).name, undefined);
    assert.equal(launchClaimsSchema.parse({ ...claims, name: 42 }).name, undefined);
    assert.equal(launchClaimsSchema.parse({ ...claims, name: 'Ada' }).name, 'Ada');
    assert.equal(launchClaimsSchema.parse(claims).name, undefined);
  });
});
