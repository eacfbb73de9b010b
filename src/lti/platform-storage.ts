/**
 * LTI client-side platform storage (1EdTech "LTI Client Side postMessages" and "OIDC login with LTI client
 * side storage"; Canvas offers it). When the login initiation names an `lti_storage_target`, a framed login
 * keeps its state and nonce in the platform's window through `lti.put_data`, and the launch page reads them
 * back with `lti.get_data`: no cookie is needed in the LMS's frame. The browser half is
 * `public/js/lti-storage.js`; this module holds the server's pure rules.
 */

/** A frame name or `_parent`, as the storage target is named; anything else is ignored. */
export const STORAGE_TARGET = /^[A-Za-z0-9_-]{1,64}$/;

/** The storage frame Canvas names in its login initiations. */
export const CANVAS_STORAGE_TARGET = 'post_message_forwarding';

/** How long the tool's pages wait for each answer of the platform before falling back to cookies. */
export const STORAGE_ANSWER_TIMEOUT_MS = 4_000;

/** Form fields of the launch page's second POST, after it has read the login back from the platform. */
export const STORAGE_FIELDS = { outcome: 'lti_storage', state: 'lti_storage_state', nonce: 'lti_storage_nonce' } as const;

export function isStorageTarget(value: unknown): value is string {
  return typeof value === 'string' && STORAGE_TARGET.test(value);
}

/** The keys the login's state and nonce are stored under in the platform (as the 1EdTech examples name them). */
export function storageKeys(state: string, nonce: string): { state: string; nonce: string } {
  return { state: `state_${state}`, nonce: `nonce_${nonce}` };
}

/**
 * The platform origin the tool's messages are addressed to: the origin of the platform's OIDC
 * authorization endpoint (Canvas serves its storage frame there, e.g. https://sso.canvaslms.com), never
 * the origin of the page that frames the tool. Undefined for anything but an http(s) URL.
 */
export function platformOriginOf(authUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(authUrl);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  return url.origin;
}

export interface StorageProof {
  state: string;
  nonce: string;
}

/**
 * What the launch page's second POST says it read from the platform's storage, when the request can only
 * come from the tool's own page: the browser marks it same-origin (Sec-Fetch-Site), or, for browsers that
 * send no Sec-Fetch-Site, its Origin is the tool's. A form another site makes the browser post is neither,
 * so it cannot skip the check in the tool's page (login CSRF).
 */
export function storageProofOf(
  body: Record<string, unknown> | undefined,
  headers: { secFetchSite?: string; origin?: string },
  toolOrigin: string,
): StorageProof | undefined {
  if (body?.[STORAGE_FIELDS.outcome] !== 'verified') return undefined;
  const state = body[STORAGE_FIELDS.state];
  const nonce = body[STORAGE_FIELDS.nonce];
  if (typeof state !== 'string' || typeof nonce !== 'string' || state === '' || nonce === '') return undefined;
  const sameOrigin = headers.secFetchSite !== undefined ? headers.secFetchSite === 'same-origin' : headers.origin === toolOrigin;
  return sameOrigin ? { state, nonce } : undefined;
}

/**
 * Whether a launch without the state cookie is accepted on the platform storage's word: the login behind
 * the POSTed state offered storage, and what the page read back is that very state and the token's nonce.
 * The nonce is then still checked against the login's row and used up there (single use).
 */
export function storageProofMatches(
  login: { storageTarget: string | undefined } | undefined,
  proof: StorageProof | undefined,
  posted: { state: string | undefined; nonce: unknown },
): boolean {
  if (!login?.storageTarget || !proof || !posted.state) return false;
  return proof.state === posted.state && typeof posted.nonce === 'string' && proof.nonce === posted.nonce;
}
