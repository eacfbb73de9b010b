import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The candidate's redirect URLs point back at the tool, which records the attempt's outcome. The
 * link is signed so nobody can end someone else's attempt by guessing its id.
 */
export type ReturnOutcome = 'submitted' | 'ended';

function signature(secret: string, attemptId: string, outcome: ReturnOutcome): string {
  return createHmac('sha256', secret).update(`return\n${attemptId}\n${outcome}`).digest('base64url').slice(0, 32);
}

/** The pseudonym key, or its versions: the newest signs, each verifies (links outlive a key rotation). */
export type ReturnLinkSecret = string | { readonly newest: string; readonly all: readonly string[] };

export function returnLink(baseUrl: string, secret: ReturnLinkSecret, attemptId: string, outcome: ReturnOutcome): string {
  const newest = typeof secret === 'string' ? secret : secret.newest;
  return `${baseUrl}/return/${attemptId}/${outcome}?sig=${signature(newest, attemptId, outcome)}`;
}

export function verifyReturnLink(secret: ReturnLinkSecret, attemptId: string, outcome: ReturnOutcome, sig: string): boolean {
  const given = Buffer.from(sig);
  return (typeof secret === 'string' ? [secret] : secret.all).some((candidate) => {
    const expected = Buffer.from(signature(candidate, attemptId, outcome));
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
}
