import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AP_CLAIM, readProctoringClaims, type ProctoringMessageType } from '../../../src/lti/proctoring-claims.js';

const START: Record<string, unknown> = {
  [AP_CLAIM.startAssessmentUrl]: 'https://lms.example.edu/api/lti_consumer/v1/start_proctoring_assessment',
  [AP_CLAIM.sessionData]: 'csrf-4f2a',
  [AP_CLAIM.attemptNumber]: 2,
};
const END: Record<string, unknown> = { [AP_CLAIM.attemptNumber]: 2 };

const without = (claims: Record<string, unknown>, name: string) => Object.fromEntries(Object.entries(claims).filter(([key]) => key !== name));

interface Case {
  name: string;
  type: ProctoringMessageType;
  claims: Record<string, unknown>;
  /** The claim refused and a word of the reason, or undefined when the message reads. */
  refused?: { claim: string; problem: RegExp };
}

const CASES: Case[] = [
  { name: 'a start with its three required claims', type: 'LtiStartProctoring', claims: START },
  { name: 'a start without start_assessment_url', type: 'LtiStartProctoring', claims: without(START, AP_CLAIM.startAssessmentUrl), refused: { claim: AP_CLAIM.startAssessmentUrl, problem: /missing/ } },
  { name: 'a start without session_data', type: 'LtiStartProctoring', claims: without(START, AP_CLAIM.sessionData), refused: { claim: AP_CLAIM.sessionData, problem: /missing/ } },
  { name: 'a start with session_data null', type: 'LtiStartProctoring', claims: { ...START, [AP_CLAIM.sessionData]: null }, refused: { claim: AP_CLAIM.sessionData, problem: /missing/ } },
  { name: 'a start without attempt_number', type: 'LtiStartProctoring', claims: without(START, AP_CLAIM.attemptNumber), refused: { claim: AP_CLAIM.attemptNumber, problem: /missing/ } },
  { name: 'a start_assessment_url that is not a URL', type: 'LtiStartProctoring', claims: { ...START, [AP_CLAIM.startAssessmentUrl]: 'start here' }, refused: { claim: AP_CLAIM.startAssessmentUrl, problem: /URL/ } },
  { name: 'a start_assessment_url with a script scheme', type: 'LtiStartProctoring', claims: { ...START, [AP_CLAIM.startAssessmentUrl]: 'javascript:alert(1)' }, refused: { claim: AP_CLAIM.startAssessmentUrl, problem: /URL/ } },
  { name: 'a start_assessment_url that is a number', type: 'LtiStartProctoring', claims: { ...START, [AP_CLAIM.startAssessmentUrl]: 7 }, refused: { claim: AP_CLAIM.startAssessmentUrl, problem: /string/ } },
  { name: 'session_data that is an object', type: 'LtiStartProctoring', claims: { ...START, [AP_CLAIM.sessionData]: { token: 'x' } }, refused: { claim: AP_CLAIM.sessionData, problem: /string/ } },
  { name: 'an attempt_number written as a string', type: 'LtiStartProctoring', claims: { ...START, [AP_CLAIM.attemptNumber]: '2' }, refused: { claim: AP_CLAIM.attemptNumber, problem: /number/ } },
  { name: 'an attempt_number of 0', type: 'LtiStartProctoring', claims: { ...START, [AP_CLAIM.attemptNumber]: 0 }, refused: { claim: AP_CLAIM.attemptNumber, problem: /below 1/ } },
  { name: 'a fractional attempt_number', type: 'LtiStartProctoring', claims: { ...START, [AP_CLAIM.attemptNumber]: 1.5 }, refused: { claim: AP_CLAIM.attemptNumber, problem: /integer/ } },
  { name: 'end_assessment_return as a string', type: 'LtiStartProctoring', claims: { ...START, [AP_CLAIM.endAssessmentReturn]: 'true' }, refused: { claim: AP_CLAIM.endAssessmentReturn, problem: /boolean/ } },
  { name: 'verified_user that is a string', type: 'LtiStartProctoring', claims: { ...START, [AP_CLAIM.verifiedUser]: 'Ada' }, refused: { claim: AP_CLAIM.verifiedUser, problem: /object|record/ } },
  { name: 'an acs claim without its URL', type: 'LtiStartProctoring', claims: { ...START, [AP_CLAIM.acs]: { actions: ['pause'] } }, refused: { claim: AP_CLAIM.acs, problem: /./ } },
  { name: 'a start with every optional claim', type: 'LtiStartProctoring', claims: { ...START, [AP_CLAIM.verifiedUser]: { given_name: 'Ada' }, [AP_CLAIM.endAssessmentReturn]: true, [AP_CLAIM.acs]: { assessment_control_url: 'https://lms.example.edu/acs', actions: ['pause', 'resume'] } } },
  { name: 'an end with its attempt_number only', type: 'LtiEndAssessment', claims: END },
  { name: 'an end with session_data null (Open edX)', type: 'LtiEndAssessment', claims: { ...END, [AP_CLAIM.sessionData]: null } },
  { name: 'an end without attempt_number', type: 'LtiEndAssessment', claims: {}, refused: { claim: AP_CLAIM.attemptNumber, problem: /missing/ } },
  { name: 'an end whose errormsg is a number', type: 'LtiEndAssessment', claims: { ...END, [AP_CLAIM.errorMessage]: 500 }, refused: { claim: AP_CLAIM.errorMessage, problem: /string/ } },
];

describe('LTI Proctoring Services claims', () => {
  for (const testCase of CASES) {
    it(testCase.name, () => {
      const read = readProctoringClaims(testCase.type, testCase.claims);
      if (!testCase.refused) {
        assert.ok(read.ok, read.ok ? '' : `${read.claim}: ${read.problem}`);
        return;
      }
      assert.equal(read.ok, false, 'the message should be refused');
      if (read.ok) return;
      assert.equal(read.claim, testCase.refused.claim);
      assert.match(read.problem, testCase.refused.problem);
    });
  }

  it('reads what a start asks for', () => {
    const read = readProctoringClaims('LtiStartProctoring', { ...START, [AP_CLAIM.endAssessmentReturn]: true });
    assert.deepEqual(read, {
      ok: true,
      message: { kind: 'start', startAssessmentUrl: START[AP_CLAIM.startAssessmentUrl], sessionData: 'csrf-4f2a', attemptNumber: 2, endAssessmentReturn: true, acs: undefined },
    });
  });

  it("reads an end's error under the claim names with stray spaces a platform library writes", () => {
    const read = readProctoringClaims('LtiEndAssessment', { ...END, [` ${AP_CLAIM.errorMessage}`]: 'Camera lost', [` ${AP_CLAIM.errorLog} `]: 'trace 42' });
    assert.ok(read.ok && read.message.kind === 'end');
    assert.equal(read.message.errorMessage, 'Camera lost');
    assert.equal(read.message.errorLog, 'trace 42');
  });
});
