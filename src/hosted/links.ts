import { decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';
import { readCache } from '../db/read-cache.js';

/** Public paths of the endpoints the proctoring service's pages fetch from the user's browser. */
export const HOSTED_ROUTES = {
  roster: '/hosted/roster',
  examRoster: '/hosted/exam-roster',
  logo: '/hosted/logo',
  extensionAllowlist: '/hosted/extension-allowlist',
} as const;

export type HostedTokenKind = 'roster' | 'exam-roster';
const KIND_CLAIM: Record<HostedTokenKind, string> = { roster: 'r', 'exam-roster': 'x' };

/** Extra validity of a roster link beyond the launch URL it was issued with (clock skew, a slow start). */
export const HOSTED_LINK_MARGIN_SECONDS = 300;

export interface HostedLinks {
  /** `{base}/hosted/roster?t=…`: the course's roster, valid for `ttlSeconds` plus the margin. */
  rosterUrl(sectionId: string, ttlSeconds: number): Promise<string>;
  /** `{base}/hosted/exam-roster?t=…`: the course's proctored exams, same rules. */
  examRosterUrl(sectionId: string, ttlSeconds: number): Promise<string>;
  /** `{base}/hosted/logo/{platformKey}` (see lti/identifiers.ts platformKey). */
  logoUrl(platformKey: string): string;
  /** `{base}/hosted/extension-allowlist/{platformKey}`. */
  extensionAllowlistUrl(platformKey: string): string;
  /** The section a token names, when the token is intact, unexpired and of this kind; otherwise undefined. */
  verify(token: string, kind: HostedTokenKind): Promise<{ sectionId: string; expiresAt: Date } | undefined>;
}

/** One version of the hosted-link key (app secret `hosted-links`). */
export interface HostedLinkKey {
  version: number;
  value: string;
}

/** `keys(true)` reads them again (a token names a version newer than this process has read). */
export type HostedLinkKeys = { secret: string } | { keys: (fresh?: boolean) => Promise<readonly HostedLinkKey[]> };

/**
 * Compact signed tokens (HS256 JWS) in the URL: they name one course section (the derived section_id,
 * which the tool maps back to the LTI context) and expire. The URL carries no ltik (~900 characters)
 * and needs no cookie: the proctoring portal fetches it cross-origin without credentials.
 *
 * The key is versioned (`keys`, newest first): the newest signs and names its version in the token's `kid`;
 * a token verifies with the version it names for as long as that version is kept (a token without `kid` is
 * of version 1). A token names no user, so every launch of a section that asks for the same kind and expiry
 * second gets the same token: signed once (a class starting together signs one per second, not one per
 * student). Each key is imported once.
 */
export function createHostedLinks(options: { baseUrl: string } & HostedLinkKeys): HostedLinks {
  const keysOf = 'keys' in options ? options.keys : () => Promise.resolve([{ version: 1, value: options.secret }]);
  const imported = new Map<string, Promise<CryptoKey>>();
  const importKey = (value: string) => {
    let key = imported.get(value);
    if (!key) {
      key = globalThis.crypto.subtle.importKey('raw', new TextEncoder().encode(value), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
      // A key that cannot be imported fails each signing and verification that awaits it, not the process.
      key.catch(() => {});
      if (imported.size >= 16) imported.clear();
      imported.set(value, key);
    }
    return key;
  };
  // Kept for a second: the expiry second is part of the name, so an older token is never asked for again.
  const signed = readCache<string>(options, 'hosted-links', 1000);
  const sign = (kind: HostedTokenKind, sectionId: string, ttlSeconds: number): Promise<string> => {
    const expiresAt = Math.floor(Date.now() / 1000) + Math.max(1, Math.ceil(ttlSeconds)) + HOSTED_LINK_MARGIN_SECONDS;
    return signed.get(`${kind} ${expiresAt} ${sectionId}`, async () => {
      const [newest] = await keysOf();
      if (!newest) throw new Error('no hosted-link key');
      // Version 1 names no kid: the tokens of a tool that had one key stay the same.
      const header = newest.version === 1 ? { alg: 'HS256' } : { alg: 'HS256', kid: String(newest.version) };
      return new SignJWT({ s: sectionId, k: KIND_CLAIM[kind] }).setProtectedHeader(header).setExpirationTime(expiresAt).sign(await importKey(newest.value));
    });
  };
  return {
    rosterUrl: async (sectionId, ttl) => `${options.baseUrl}${HOSTED_ROUTES.roster}?t=${await sign('roster', sectionId, ttl)}`,
    examRosterUrl: async (sectionId, ttl) => `${options.baseUrl}${HOSTED_ROUTES.examRoster}?t=${await sign('exam-roster', sectionId, ttl)}`,
    logoUrl: (platform) => `${options.baseUrl}${HOSTED_ROUTES.logo}/${encodeURIComponent(platform)}`,
    extensionAllowlistUrl: (platform) => `${options.baseUrl}${HOSTED_ROUTES.extensionAllowlist}/${encodeURIComponent(platform)}`,
    async verify(token, kind) {
      try {
        const { kid } = decodeProtectedHeader(token);
        const version = kid === undefined ? 1 : Number(kid);
        const known = await keysOf();
        const newer = version > (known[0]?.version ?? 0) && 'keys' in options;
        const key = (newer ? await options.keys(true) : known).find((entry) => entry.version === version);
        if (!key) return undefined;
        const { payload } = await jwtVerify(token, await importKey(key.value), { algorithms: ['HS256'] });
        if (payload.k !== KIND_CLAIM[kind] || typeof payload.s !== 'string' || typeof payload.exp !== 'number') return undefined;
        return { sectionId: payload.s, expiresAt: new Date(payload.exp * 1000) };
      } catch {
        return undefined;
      }
    },
  };
}
