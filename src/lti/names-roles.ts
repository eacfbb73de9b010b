import type { LtijsPlatform, LtijsProvider } from 'ltijs';
import Auth from 'ltijs/dist/Utils/Auth.js';
import { z } from 'zod';

/**
 * Names and Roles Provisioning Service 2.0 (https://www.imsglobal.org/spec/lti-nrps/v2p0): every page of
 * a context's membership. ltijs's own `getMembers` stops after one page unless told `pages: false`, has
 * no timeout and cannot be cancelled, so only its access-token machinery (client-credentials grant with
 * a signed client assertion, tokens cached in its store) is used; the pages are fetched here.
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
      throw new NamesRolesError('upstream', `the memberships service could not be reached: ${(error as Error).message}`, { cause: error });
    }
    if (response.status === 401 && !retriedToken) {
      // The LMS forgot or revoked the cached token (restart, key rotation): one retry with a new one.
      await response.body?.cancel();
      retriedToken = true;
      authorization = await options.authorization(true);
      continue;
    }
    seen.add(next);
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

/** ltijs's errors from `got` carry the HTTP response; show its status and the OAuth error, never the body. */
function describeTokenError(error: unknown): string {
  const response = (error as { response?: { statusCode?: number; body?: unknown } }).response;
  if (response?.statusCode) {
    let oauthError = '';
    try {
      const body = typeof response.body === 'string' ? (JSON.parse(response.body) as { error?: unknown }) : undefined;
      if (typeof body?.error === 'string') oauthError = ` (${body.error.slice(0, 60)})`;
    } catch {
      // not JSON
    }
    return `the LMS token endpoint answered HTTP ${response.statusCode}${oauthError}`;
  }
  return `the LMS token endpoint could not be reached: ${(error as Error).message}`;
}

/** Rejects when `signal` aborts: ltijs's token request (got) cannot be cancelled, only abandoned. */
function abandonOnAbort<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new NamesRolesError('timeout', 'the LMS token endpoint did not answer in time'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export interface NamesRolesClient {
  members: (platform: { issuer: string; clientId: string }, membershipsUrl: string, options?: { signal?: AbortSignal }) => Promise<NamesRolesMember[]>;
}

export function createNamesRolesClient(deps: { provider: LtijsProvider; encryptionKey: string; userAgent: string; fetch?: typeof fetch }): NamesRolesClient {
  return {
    members: async (platformId, membershipsUrl, options = {}) => {
      const platform: LtijsPlatform | false = await deps.provider.getPlatform(platformId.issuer, platformId.clientId);
      if (!platform) throw new NamesRolesError('platform', `no platform ${platformId.issuer} with client id ${platformId.clientId} is registered`);
      if (!(await platform.platformActive())) throw new NamesRolesError('platform', `the platform ${platformId.issuer} is not activated`);
      const authorization = async (fresh: boolean): Promise<string> => {
        try {
          const token = await abandonOnAbort(
            fresh ? Auth.getAccessToken(NRPS_SCOPE, platform, deps.encryptionKey, deps.provider.Database) : platform.platformAccessToken(NRPS_SCOPE),
            options.signal,
          );
          if (typeof token.access_token !== 'string' || !token.access_token) throw new Error('the token response has no access_token');
          // RFC 6750: the scheme is "Bearer" whatever case the LMS wrote token_type in.
          return `Bearer ${token.access_token}`;
        } catch (error) {
          if (error instanceof NamesRolesError) throw error;
          throw new NamesRolesError('access_token', `no access token for Names and Roles: ${describeTokenError(error)}`, { cause: error });
        }
      };
      return fetchAllMembers({ url: membershipsUrl, authorization, userAgent: deps.userAgent, signal: options.signal, fetch: deps.fetch });
    },
  };
}
