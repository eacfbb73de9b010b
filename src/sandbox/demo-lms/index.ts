import type { KeyObject } from 'node:crypto';
import type { Router } from 'express';
import { createRemoteJWKSet, type CryptoKey, type JWK, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { classMembers, createDemoCourse, demoUsers, type DemoCourse, type DemoPerson, type DemoUser } from './directory.js';
import { buildLaunchClaims, FLAVORS, NRPS_SCOPE, targetLinkUri, type DemoFlavor, type LaunchClaimsInput, type LaunchPlatform, type Presentation } from './flavors.js';
import { createProctoringAttempts } from './proctoring.js';
import { createMessageHints, type PendingLaunch } from './hints.js';
import { platformKeys, signJwt, type SignOptions } from './keys.js';
import { createOAuthServer, type TokenGrant } from './oauth.js';
import { defaultPaths } from './paths.js';
import { createDemoLmsRouter, STORAGE_FRAME_NAME, type LoginInitiation } from './router.js';

/**
 * A small LTI 1.3 platform for sandbox mode and tests. Routes, relative to where the router is mounted
 * (the issuer URL):
 *   GET  /                      the course page (launch buttons, flavor and presentation choice)
 *   POST /launch, GET /launch   OIDC login initiation: auto-submitting POST form, or a 302 for scripts
 *   GET|POST /auth              OIDC authorization endpoint; refusals are HTML pages (status 400)
 *   GET  /jwks                  the platform's public key set
 *   POST /token                 client-credentials grant with a JWT client assertion
 *   GET  /nrps/:contextId       Names and Roles (bearer token, `limit`/`from` paging, Link rel="next")
 *   POST /deep-linking/return   the tool's deep-linking response (field `JWT`)
 *   GET  /quiz/:linkId[/attempt|/review], POST /quiz/:linkId/attempt   the quiz the exam guards
 */
export type { DemoCourse, DemoLink, DemoPerson, DemoRole, DemoUser, DemoUserKey } from './directory.js';
export { CLAIM, FLAVORS, NRPS_SCOPE, ROLE, type DemoFlavor, type FlavorProfile, type LaunchClaimsInput, type LaunchKind, type Presentation } from './flavors.js';
export { parseAutoSubmitForm, type AutoSubmitForm } from './forms.js';
export type { SignOptions } from './keys.js';
export type { LoginInitiation } from './router.js';

export interface DemoLmsOptions {
  /** Absolute URL where the router is mounted, e.g. http://localhost:3000/sandbox/lms. */
  issuer: string;
  tool: {
    loginUrl: string;
    launchUrl: string;
    jwksUrl: string;
    deepLinkingUrl?: string;
    /** Redirect URIs accepted at /auth besides launchUrl and deepLinkingUrl. */
    redirectUris?: string[];
  };
  clientId?: string;
  /** One deployment serves both flavors, so an exam keyed by deployment is the same exam in either. */
  deploymentId?: string;
  /** The platform's RS256 key (extractable); a fresh 2048-bit pair when absent. */
  privateKey?: CryptoKey | KeyObject | JWK;
  kid?: string;
  /** Preselected on the course page, and the shape of Names and Roles answers. Default moodle. */
  flavor?: DemoFlavor;
  now?: () => number;
  /** Generated learners in the course besides the named users. Default 30. */
  classSize?: number;
  /** Names and Roles page size when the tool gives no `limit`; default: everyone in one page (Moodle). */
  nrpsPageSize?: number;
  /** 'html' labels token responses text/html as Moodle does. Default 'json'. */
  tokenContentType?: 'json' | 'html';
  /** Verifies client assertions and deep-linking responses; default the tool's JWKS URL. */
  toolKeys?: JWTVerifyGetKey;
  viewsDir?: string;
  publicDir?: string;
}

export interface DemoLmsRegistration {
  issuer: string;
  clientId: string;
  deploymentIds: string[];
  authUrl: string;
  tokenUrl: string;
  jwksUrl: string;
  nrpsUrl(contextId: string): string;
}

export interface LoginInput {
  flavor?: DemoFlavor;
  /** Who launches: one of the named demo users… */
  user?: DemoUser['key'];
  /** …or any active class member, by LMS user id (`members()[i].id`): each has their own `sub`. Give one of the two. */
  member?: string;
  kind?: PendingLaunch['kind'];
  linkId?: string;
  presentation?: Presentation;
  /** The user's language in the LMS, sent as launch_presentation.locale (default en). */
  locale?: string;
  /** Offer the LMS's client-side storage (lti_storage_target), as Canvas does. */
  platformStorage?: boolean;
}

export interface DemoLms {
  router: Router;
  registration: DemoLmsRegistration;
  course: DemoCourse;
  users: readonly DemoUser[];
  /** Everyone Names and Roles lists (inactive members included). */
  members(): readonly DemoPerson[];
  /** The platform's public key set, as /jwks serves it. */
  jwks(): { keys: JWK[] };
  /** Signs claims as given (RS256, platform kid unless overridden): tests forge bad tokens with it. */
  signIdToken(claims: JWTPayload, options?: SignOptions): Promise<string>;
  /** The claims /auth would sign for this launch (flavor defaults to the instance's). */
  buildLaunchClaims(input: Omit<LaunchClaimsInput, 'flavor'> & { flavor?: DemoFlavor }): JWTPayload;
  /** Starts a launch without the course page: the login initiation URL and fields, with a fresh message hint. */
  initiateLogin(input: LoginInput): Promise<LoginInitiation>;
  /** An access token as /token would grant it, for tests of Names and Roles. */
  issueAccessToken(scopes?: readonly string[]): TokenGrant;
  /** Changes the class Names and Roles serves: generated learners and the default page size (undefined: one page). */
  setClass(options: { classSize?: number; nrpsPageSize?: number | undefined }): void;
  /** Names and Roles page requests answered so far (any status but 401/403), for tests of caching. */
  nrpsPageRequests(): number;
}

export async function createDemoLms(options: DemoLmsOptions): Promise<DemoLms> {
  const issuer = options.issuer.replace(/\/+$/, '');
  const flavor = options.flavor ?? 'moodle';
  const clientId = options.clientId ?? (flavor === 'canvas' ? '10000000000017' : 'Xz4rKq2mTbN8wLp');
  const deploymentId = options.deploymentId ?? '1';
  const now = options.now ?? Date.now;
  let classSize = options.classSize ?? 30;
  if (!Number.isInteger(classSize) || classSize < 0) throw new Error('classSize must be a non-negative integer');
  let nrpsPageSize = options.nrpsPageSize;
  let nrpsPageRequests = 0;

  const keys = await platformKeys(options.privateKey, options.kid);
  const course = createDemoCourse();
  const users = demoUsers();
  let members: { list: DemoPerson[]; byId: Map<string, DemoPerson> } | undefined;
  const classOf = () => {
    if (members) return members;
    const list = classMembers(users, classSize);
    members = { list, byId: new Map(list.map((person) => [person.id, person])) };
    return members;
  };
  const membersOf = (): DemoPerson[] => classOf().list;

  /** A class member who launches: a named user as themselves, a generated learner as a user of the same role. */
  const classMember = (id: string): { user: DemoUser; member?: DemoUser } => {
    const person = classOf().byId.get(id);
    if (!person) throw new Error(`not a member of the class: ${id}`);
    if (person.status !== 'Active') throw new Error(`not an active member of the class: ${id}`);
    const named = users.find((candidate) => candidate.id === id);
    if (named) return { user: named };
    const user = users.find((candidate) => candidate.role === person.role);
    if (!user) throw new Error(`no demo user has the role ${person.role}`);
    return { user, member: { ...person, key: user.key, label: user.label, roleName: user.roleName, enrolled: true } };
  };

  const urls = {
    auth: `${issuer}/auth`,
    token: `${issuer}/token`,
    jwks: `${issuer}/jwks`,
    deepLinkReturn: `${issuer}/deep-linking/return`,
    startAssessment: `${issuer}/proctoring/start-assessment`,
    nrps: (contextId: string) => `${issuer}/nrps/${encodeURIComponent(contextId)}`,
  };
  const tool = { loginUrl: options.tool.loginUrl, launchUrl: options.tool.launchUrl, jwksUrl: options.tool.jwksUrl, deepLinkingUrl: options.tool.deepLinkingUrl };
  const redirectUris = [...new Set([tool.launchUrl, ...(tool.deepLinkingUrl ? [tool.deepLinkingUrl] : []), ...(options.tool.redirectUris ?? [])])];

  const platform: LaunchPlatform = {
    issuer,
    clientId,
    deploymentId,
    course,
    users,
    tool,
    nrpsUrl: urls.nrps,
    returnUrl: (launchFlavor, presentation) => {
      const url = new URL(`${issuer}/`);
      url.searchParams.set('flavor', launchFlavor);
      url.searchParams.set('presentation', presentation);
      url.searchParams.set('from', 'tool');
      return url.href;
    },
    deepLinkReturnUrl: urls.deepLinkReturn,
    startAssessmentUrl: urls.startAssessment,
  };

  let remoteKeys: JWTVerifyGetKey | undefined;
  const toolKeys = (): JWTVerifyGetKey =>
    options.toolKeys ?? (remoteKeys ??= createRemoteJWKSet(new URL(tool.jwksUrl), { timeoutDuration: 5000, cooldownDuration: 30_000 }));

  const hints = createMessageHints({ issuer, now });
  const proctoring = createProctoringAttempts({ issuer, clientId, deploymentId, toolKeys, now });
  const oauth = createOAuthServer({ clientId, tokenUrl: urls.token, toolKeys, now });
  const jwks = (): { keys: JWK[] } => ({ keys: [{ ...keys.publicJwk }] });

  const build = (input: Omit<LaunchClaimsInput, 'flavor'> & { flavor?: DemoFlavor }): JWTPayload =>
    buildLaunchClaims(platform, { ...input, flavor: input.flavor ?? flavor, now: input.now ?? now() });
  const signIdToken = (claims: JWTPayload, signOptions?: SignOptions): Promise<string> => signJwt(keys, claims, signOptions);

  async function startLogin(launch: PendingLaunch): Promise<LoginInitiation> {
    const hint = await hints.issue(launch);
    const link = launch.kind === 'resource' ? course.links.find((candidate) => candidate.id === launch.linkId) : undefined;
    return {
      url: tool.loginUrl,
      params: {
        iss: issuer,
        target_link_uri: targetLinkUri(platform, launch.kind, link),
        login_hint: launch.userId,
        lti_message_hint: hint,
        client_id: clientId,
        lti_deployment_id: deploymentId,
        ...FLAVORS[launch.flavor].loginExtras,
        ...(launch.platformStorage ? { lti_storage_target: STORAGE_FRAME_NAME } : {}),
      },
    };
  }

  const router = createDemoLmsRouter({
    issuer,
    clientId,
    deploymentId,
    defaultFlavor: flavor,
    course,
    users,
    // Called once per Names and Roles page the router serves.
    members: () => {
      nrpsPageRequests++;
      return membersOf();
    },
    tool,
    redirectUris,
    urls,
    publicJwks: jwks,
    hints,
    oauth,
    toolKeys,
    now,
    tokenContentType: options.tokenContentType ?? 'json',
    get nrpsPageSize() {
      return nrpsPageSize;
    },
    ...(options.viewsDir && options.publicDir ? { viewsDir: options.viewsDir, publicDir: options.publicDir } : defaultPaths()),
    initiateLogin: startLogin,
    proctoring,
    buildLaunchClaims: build,
    signIdToken: (claims) => signIdToken(claims),
  });

  return {
    router,
    registration: { issuer, clientId, deploymentIds: [deploymentId], authUrl: urls.auth, tokenUrl: urls.token, jwksUrl: urls.jwks, nrpsUrl: urls.nrps },
    course,
    users,
    members: membersOf,
    jwks,
    signIdToken,
    buildLaunchClaims: build,
    async initiateLogin(input) {
      if ((input.user === undefined) === (input.member === undefined)) throw new Error('give either a demo user or a class member');
      const { user, member } = input.member === undefined ? { user: users.find((candidate) => candidate.key === input.user) } : classMember(input.member);
      if (!user) throw new Error(`unknown demo user: ${input.user ?? ''}`);
      const kind = input.kind ?? 'resource';
      const linkId = kind === 'resource' ? (input.linkId ?? course.exam.id) : undefined;
      if (linkId !== undefined && !course.links.some((link) => link.id === linkId)) throw new Error(`unknown resource link: ${linkId}`);
      return startLogin({ user: user.key, userId: (member ?? user).id, flavor: input.flavor ?? flavor, kind, linkId, presentation: input.presentation ?? 'iframe', platformStorage: input.platformStorage === true, ...(member ? { member } : {}), ...(input.locale ? { locale: input.locale } : {}) });
    },
    issueAccessToken: (scopes) => oauth.issue(scopes ?? [NRPS_SCOPE]),
    setClass(change) {
      if (change.classSize !== undefined) {
        if (!Number.isInteger(change.classSize) || change.classSize < 0) throw new Error('classSize must be a non-negative integer');
        classSize = change.classSize;
        members = undefined;
      }
      if ('nrpsPageSize' in change) {
        if (change.nrpsPageSize !== undefined && (!Number.isInteger(change.nrpsPageSize) || change.nrpsPageSize < 1)) throw new Error('nrpsPageSize must be a positive integer');
        nrpsPageSize = change.nrpsPageSize;
      }
    },
    nrpsPageRequests: () => nrpsPageRequests,
  };
}
