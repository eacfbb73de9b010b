import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkRequest, describeBreaches, type Endpoint } from '../../contract/launch-api-checker.js';
import { BAD, GOOD } from '../../contract/fixtures.js';
import { validateCandidateLaunch, validateLaunchpad, validateLiveLaunch, validateReviewerLaunch, validateSubscribe } from '../../../src/proctoring/contract.js';

const TOOL_CONTRACT: Readonly<Record<Endpoint, (body: unknown) => { ok: boolean }>> = {
  candidate: validateCandidateLaunch,
  reviewer: validateReviewerLaunch,
  live: validateLiveLaunch,
  launchpad: validateLaunchpad,
  subscribe: validateSubscribe,
};

describe('the Launch API document, read a second time', () => {
  for (const fixture of GOOD) {
    it(`accepts ${fixture.name}`, () => {
      assert.deepEqual(checkRequest(fixture.endpoint, fixture.body), [], describeBreaches(checkRequest(fixture.endpoint, fixture.body)));
    });
  }
  for (const fixture of BAD) {
    it(`refuses ${fixture.name}: ${fixture.because}`, () => {
      const breaches = checkRequest(fixture.endpoint, fixture.body);
      assert.deepEqual(breaches.map((b) => `${b.path} ${b.rule}`), [`${fixture.path} ${fixture.rule}`], describeBreaches(breaches));
    });
  }
  it('covers every endpoint whose body the document describes, good and bad', () => {
    for (const endpoint of Object.keys(TOOL_CONTRACT)) {
      assert.ok(GOOD.some((f) => f.endpoint === endpoint), `no good ${endpoint} body`);
      assert.ok(BAD.some((f) => f.endpoint === endpoint), `no bad ${endpoint} body`);
    }
  });
});

describe("the tool's contract agrees with the hand-written fixtures", () => {
  for (const fixture of GOOD) {
    it(`accepts ${fixture.name}`, () => {
      assert.equal(TOOL_CONTRACT[fixture.endpoint](fixture.body).ok, true, JSON.stringify(TOOL_CONTRACT[fixture.endpoint](fixture.body)));
    });
  }
  for (const fixture of BAD) {
    it(`refuses ${fixture.name}`, () => {
      assert.equal(TOOL_CONTRACT[fixture.endpoint](fixture.body).ok, false);
    });
  }
});
