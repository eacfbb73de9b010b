import { timingSafeEqual } from 'node:crypto';
import { apiKeyFor } from '../../proctoring/api-key.js';
import type { ProctoringOperation } from '../../proctoring/errors.js';

/** An account of the emulated service. Its key is `apiKey` when given, else consumer_key + md5(secret). */
export interface EmulatorAccount {
  consumerKey: string;
  secret: string;
  apiKey?: string;
  region: string;
  active: boolean;
  /** The operations enabled for the key (spec: Authentication, rule 4); all when omitted. */
  endpoints?: ProctoringOperation[];
}

/** The 401 answers of the spec's Errors table. */
export const UNAUTHORIZED = {
  inactive: { code: 2154, message: 'Account not active' },
  region: { code: 2155, message: 'Incorrect region' },
  key: { code: 2655, message: 'Invalid api_key' },
} as const;

export type AuthResult = { ok: true; account: EmulatorAccount } | { ok: false; account?: EmulatorAccount; error: (typeof UNAUTHORIZED)[keyof typeof UNAUTHORIZED] };

function sameKey(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export function createAuthenticator(accounts: readonly EmulatorAccount[], region: string | undefined) {
  const keyOf = (account: EmulatorAccount) => account.apiKey ?? apiKeyFor({ consumerKey: account.consumerKey, secret: account.secret });
  return function authenticate(key: string | undefined, operation: ProctoringOperation): AuthResult {
    const account = key ? accounts.find((a) => sameKey(keyOf(a), key)) : undefined;
    if (!account) return { ok: false, error: UNAUTHORIZED.key };
    if (region !== undefined && account.region !== region) return { ok: false, account, error: UNAUTHORIZED.region };
    if (!account.active) return { ok: false, account, error: UNAUTHORIZED.inactive };
    if (account.endpoints && !account.endpoints.includes(operation)) return { ok: false, account, error: UNAUTHORIZED.key };
    return { ok: true, account };
  };
}
