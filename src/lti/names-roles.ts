import { createPrivateKey, randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import type { LtijsAccessToken, LtijsPlatform, LtijsProvider } from 'ltijs';
import { z } from 'zod';
import { countNamesRolesPage } from '../metrics.js';
import { guardedFetch, type GuardedHttp } from '../net/guarded-http.js';
import { messageOf, propertyOf } from '../values.js';

/**
 * Names and Roles Provisioning Service 2.0 (https://www.imsglobal.org/spec/lti-nrps/v2p0): every page of
 * a context's membership. ltijs's own `getMembers` stops after one page unless told `pages: false`, has
 * no timeout and cannot be cancelled, and its token request (got) neither, so both are done here: the
 * client-credentials grant with a signed client assertion (LTI Security Framework §4.1), tokens kept in
 * ltijs's `accesstoken` store as ltijs keeps them, and the pages, all through the guarded HTTP client.
 */

export const NRPS_SCOPE = 'https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly';
export const NRPS_MEDIA_TYPE = 'application/vnd.ims.lti-nrps.v2.membershipcontainer+json';

/** One member of a course as the LMS lists it. */
export interface NamesRolesMember {
  /** The LMS user id: the same value as `sub` in that person's launches. */
  userId: string;
  /** 'Active' when the LMS omits it (NRPS §2.3: status defaults to Active). */
  status: string;
  name?: string;
  givenName?: string;
  familyName?: string;
  roles: string[];
}

export type NamesRolesFailure =
  /** The platform is not registered or not active. */
  | 'platform'
  /** No access token: the LMS refused the grant (scope not granted, wrong key) or its token endpoint failed. */
  | 'access_token'
  /** The memberships endpoint answered an error status, or something that is not a membership container. */
  | 'upstream'
  /** The deadline passed (or the caller gave up) before the last page arrived. */
  | 'timeout'
  /** More pages or members than the safety caps allow. */
  | 'too_large';

export class NamesRolesError extends Error {
  constructor(
    readonly failure: NamesRolesFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'NamesRolesError';
  }
}

const memberSchema = z.object({
  user_id: z.string().min(1),
  status: z.string().optional().catch(undefined),
  name: z.string().nullish().catch(undefined),
  given_name: z.string().nullish().catch(undefined),
  family_name: z.string().nullish().catch(undefined),
  roles: z.array(z.string()).optional().catch(undefined),
});
const containerSchema = z.object({ members: z.array(z.unknown()) });

export interface FetchMembersOptions {
  /** The context_memberships_url of the launch. */
  url: string;
  /** `Authorization` header value; `fresh` asks for a new token after the LMS refused the cached one. */
  authorization(fresh: boolean): Promise<string>;
  userAgent: string;
  signal?: AbortSignal;
  fetch?: typeof fetch;
  /** Safety caps: a course is not endless, and a `next` link loop must end. */
  maxPages?: number;
  maxMembers?: number;
}

export const DEFAULT_MAX_PAGES = 2_000;
export const DEFAULT_MAX_MEMBERS = 200_000;

/** The `rel="next"` target of an HTTP Link header (RFC 8288), resolved against the page's URL. */
export function nextLink(header: string | null, base: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>\s*((?:;[^;]*)*)$/.exec(part);
    if (!match) continue;
    const rels = [...(match[2] ?? '').matchAll(/;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;"]+))/gi)].flatMap((rel) => (rel[1] ?? rel[2] ?? '').toLowerCase().split(/\s+/));
    if (rels.includes('next')) return new URL(match[1] ?? '', base).href;
  }
  return undefined;
}

function toMember(raw: unknown): NamesRolesMember | undefined {
  const parsed = memberSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  const m = parsed.data;
  return {
    userId: m.user_id,
    status: m.status ?? 'Active',
    name: m.name ?? undefined,
    givenName: m.given_name ?? undefined,
    familyName: m.family_name ?? undefined,
    roles: m.roles ?? [],
  };
}

/**
 * Follows `Link: rel="next"` from the first page to the last. Any failed page fails the whole fetch: a
 * roster missing pages must never look complete. `next` links must stay on the memberships URL's origin,
 * since they receive the bearer token.
 */
export async function fetchAllMembers(options: FetchMembersOptions): Promise<NamesRolesMember[]> {
  const doFetch = options.fetch ?? fetch;
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  const maxMembers = options.maxMembers ?? DEFAULT_MAX_MEMBERS;
  const origin = new URL(options.url).origin;
  const seen = new Set<string>();
  const members: NamesRolesMember[] = [];
  let authorization = await options.authorization(false);
  let retriedToken = false;
  let next: string | undefined = options.url;

  while (next) {
    if (seen.has(next)) throw new NamesRolesError('upstream', `the memberships service links back to a page already read (${next})`);
    if (seen.size >= maxPages) throw new NamesRolesError('too_large', `the memberships service has more than ${maxPages} pages`);
    let response: Response;
    try {
      response = await doFetch(next, {
        headers: { Authorization: authorization, Accept: NRPS_MEDIA_TYPE, 'User-Agent': options.userAgent },
        signal: options.signal,
        redirect: 'error',
      });
    } catch (error) {
      if (options.signal?.aborted) throw new NamesRolesError('timeout', 'the memberships service did not answer in time', { cause: error });
      throw new NamesRolesError('upstream', `the memberships service could not be reached: ${messageOf(error)}`, { cause: error });
    }
    if (response.status === 401 && !retriedToken) {
      // The LMS forgot or revoked the cached token (restart, key rotation): one retry with a new one.
      await response.body?.cancel();
      retriedToken = true;
      authorization = await options.authorization(true);
      continue;
    }
    seen.add(next);
    countNamesRolesPage();
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      if (options.signal?.aborted) throw new NamesRolesError('timeout', 'the memberships service did not answer in time', { cause: error });
      throw new NamesRolesError('upstream', 'the memberships service broke off its answer', { cause: error });
    }
    if (!response.ok) {
      throw new NamesRolesError('upstream', `the memberships service answered HTTP ${response.status} for page ${seen.size}`);
    }
    let container: z.infer<typeof containerSchema>;
    try {
      container = containerSchema.parse(JSON.parse(text));
    } catch {
      throw new NamesRolesError('upstream', `page ${seen.size} of the memberships service is not a membership container`);
    }
    for (const raw of container.members) {
      const member = toMember(raw);
      if (member) members.push(member);
    }
    if (members.length > maxMembers) throw new NamesRolesError('too_large', `the course has more than ${maxMembers} members`);
    const following = nextLink(response.headers.get('link'), next);
    if (following && new URL(following).origin !== origin) {
      throw new NamesRolesError('upstream', `the memberships service points its next page at another site (${new URL(following).origin})`);
    }
    next = following;
  }
  return members;
}

/** Largest token endpoint answer read. */
export const MAX_TOKEN_ANSWER_BYTES = 64 * 1024;
/** Largest memberships page read: Moodle sends a whole course in one page (10,000 members are about 3 MB). */
export const MAX_MEMBERSHIP_PAGE_BYTES = 32 * 1024 * 1024;

const tokenAnswerSchema = z.object({ access_token: z.string().min(1).max(8192), token_type: z.string().optional(), expires_in: z.number().positive().optional() });

interface AccessTokenStore {
  Get(encryptionKey: string | false, collection: string, query: Record<string, unknown>): Promise<Array<{ token: LtijsAccessToken; createdAt: number | Date }> | false | undefined>;
  Replace(encryptionKey: string | false, collection: string, query: Record<string, unknown>, item: Record<string, unknown>, index?: Record<string, unknown>): Promise<unknown>;
}

/** The OAuth error code of a token endpoint's refusal, if it names one (never the rest of the body). */
function oauthErrorOf(text: string): string {
  try {
    const error = propertyOf(JSON.parse(text), 'error');
    return typeof error === 'string' ? ` (${error.slice(0, 60)})` : '';
  } catch {
    return '';
  }
}

/**
 * A token for `scope` from the platform's token endpoint: the client_credentials grant with a JWT client
 * assertion signed by the tool's key for this platform (https://www.imsglobal.org/spec/security/v1p0/#using-json-web-tokens-with-oauth-2-0-client-credentials-grant).
 */
export async function requestAccessToken(http: GuardedHttp, platform: LtijsPlatform, scope: string, signal: AbortSignal): Promise<LtijsAccessToken> {
  const clientId = await platform.platformClientId();
  const tokenUrl = await platform.platformAccessTokenEndpoint();
  const audience = (await platform.platformAuthorizationServer()) || tokenUrl;
  const assertion = await new SignJWT({})
    .setProtectedHeader({ alg: 'RS256', kid: await platform.platformKid() })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(audience)
    .setJti(randomBytes(18).toString('base64url'))
    .setIssuedAt()
    .setExpirationTime('60s')
    .sign(createPrivateKey(await platform.platformPrivateKey()));
  const body = new URLSearchParams({
    grant_type: 'client_credentials',
    client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    client_assertion: assertion,
    scope,
  }).toString();
  let answer: Awaited<ReturnType<GuardedHttp['request']>>;
  try {
    answer = await http.request(tokenUrl, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' }, body, signal, maxBytes: MAX_TOKEN_ANSWER_BYTES });
  } catch (error) {
    if (signal.aborted) throw new NamesRolesError('timeout', 'the LMS token endpoint did not answer in time', { cause: error });
    throw new NamesRolesError('access_token', `no access token for Names and Roles: the LMS token endpoint could not be used: ${messageOf(error)}`, { cause: error });
  }
  if (answer.status !== 200) throw new NamesRolesError('access_token', `no access token for Names and Roles: the LMS token endpoint answered HTTP ${answer.status}${oauthErrorOf(answer.text)}`);
  let parsed: z.infer<typeof tokenAnswerSchema>;
  try {
    parsed = tokenAnswerSchema.parse(JSON.parse(answer.text));
  } catch {
    throw new NamesRolesError('access_token', 'no access token for Names and Roles: the LMS token endpoint answered without a usable access_token');
  }
  return { access_token: parsed.access_token, token_type: parsed.token_type ?? 'Bearer', expires_in: parsed.expires_in ?? 3600, scope };
}

export interface NamesRolesClient {
  members: (platform: { issuer: string; clientId: string }, membershipsUrl: string, options?: { signal?: AbortSignal }) => Promise<NamesRolesMember[]>;
}

export function createNamesRolesClient(deps: { provider: LtijsProvider; encryptionKey: string; userAgent: string; http: GuardedHttp }): NamesRolesClient {
  const store = deps.provider.Database as AccessTokenStore;
  /** ltijs's cache of access tokens: one per platform and scope, replaced when a new one is fetched. */
  async function cachedToken(key: Record<string, unknown>): Promise<LtijsAccessToken | undefined> {
    const rows = await store.Get(deps.encryptionKey, 'accesstoken', key);
    const row = rows ? rows[0] : undefined;
    if (!row) return undefined;
    const ageSeconds = (Date.now() - new Date(row.createdAt).getTime()) / 1000;
    return ageSeconds < (row.token.expires_in ?? 0) - 30 ? row.token : undefined;
  }
  return {
    members: async (platformId, membershipsUrl, options = {}) => {
      const platform: LtijsPlatform | false = await deps.provider.getPlatform(platformId.issuer, platformId.clientId);
      if (!platform) throw new NamesRolesError('platform', `no platform ${platformId.issuer} with client id ${platformId.clientId} is registered`);
      if (!(await platform.platformActive())) throw new NamesRolesError('platform', `the platform ${platformId.issuer} is not activated`);
      const signal = options.signal ?? AbortSignal.timeout(30_000);
      const key = { platformUrl: await platform.platformUrl(), clientId: await platform.platformClientId(), scopes: NRPS_SCOPE };
      const authorization = async (fresh: boolean): Promise<string> => {
        let token = fresh ? undefined : await cachedToken(key);
        if (!token) {
          token = await requestAccessToken(deps.http, platform, NRPS_SCOPE, signal);
          await store.Replace(deps.encryptionKey, 'accesstoken', key, { token }, key);
        }
        // RFC 6750: the scheme is "Bearer" whatever case the LMS wrote token_type in.
        return `Bearer ${token.access_token}`;
      };
      return fetchAllMembers({ url: membershipsUrl, authorization, userAgent: deps.userAgent, signal, fetch: guardedMembershipsFetch(deps.http) });
    },
  };
}

/** Pages through the guarded client, each read up to the page cap. */
function guardedMembershipsFetch(http: GuardedHttp): typeof fetch {
  return guardedFetch(http, { maxBytes: MAX_MEMBERSHIP_PAGE_BYTES });
}
