import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The candidate's redirect URLs point back at the tool, which records the attempt's outcome. The
 * link is signed so nobody can end someone else's attempt by guessing its id.
 */
export type ReturnOutcome = 'submitted' | 'ended';

function signature(secret: string, attemptId: string, outcome: ReturnOutcome): string {
  return createHmac('sha256', secret).update(`return\n${attemptId}\n${outcome}`).digest('base64url').slice(0, 32);
}

export function returnLink(baseUrl: string, secret: string, attemptId: string, outcome: ReturnOutcome): string {
  return `${baseUrl}/return/${attemptId}/${outcome}?sig=${signature(secret, attemptId, outcome)}`;
}

export function verifyReturnLink(secret: string, attemptId: string, outcome: ReturnOutcome, sig: string): boolean {
  const expected = Buffer.from(signature(secret, attemptId, outcome));
  const given = Buffer.from(sig);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
