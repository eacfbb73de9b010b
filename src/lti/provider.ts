import cookieParser from 'cookie-parser';
import express, { type Application, type CookieOptions, type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import { createPrivateKey } from 'node:crypto';
import { decodeJwt, SignJWT } from 'jose';
import ltijs, { type LtijsPlatform, type LtijsProvider } from 'ltijs';
import { DatabaseUnavailableError, isOutageMessage } from '../db/errors.js';
import type { Database } from '../db/types.js';
import { z } from 'zod';
import { signedCookie } from '../http/cookies.js';
import { bodyFields } from '../http/request-input.js';
import { requestLogger } from '../http/request-id.js';
import { requestSlot } from '../http/request-slots.js';
import type { Logger } from '../logger.js';
import { CLAIM, launchClaimsSchema, toLaunch, withoutPersonalClaims, type LtiLaunch } from './claims.js';
import type { DeepLinkingResponse, LtiResourceLinkItem } from './deep-linking.js';
import { createDeploymentStore, type DeploymentStore } from './deployments.js';
import { LoginCapacityError, LtiRefusal, refusalFromLtijsMessage, type LtiRefusalCode } from './errors.js';
import { acceptOlderSigningKeys, cookieAttributes, forwardRejections, importSecretKeysOnce, ltijsJsonwebtoken, ltijsLoginRequest, ltijsUrlFormat, onStateCookie, replaceLtijsErrorAnswers, replaceTokenValidation, tolerateStateDeleteFailures, wrapLoginRequest } from './ltijs-boundary.js';
import { createLoginStateStore, type LoginStateStore } from './login-states.js';
import { holdOpenedSession, LTIJS_LAUNCH_PATH, ltijsSessionOf, openedSessionOf, type LtijsSession } from './ltijs-session.js';
import { launchTokenSession } from './launch-token-session.js';
import { secureRandomBytes } from './secure-random.js';
import { createNamesRolesClient, type NamesRolesMember } from './names-roles.js';
import { LTI_ROUTES } from './paths.js';
import { isProctoringMessageType } from './proctoring-claims.js';
import { createPlatformKeys, MAX_KEY_SET_BYTES } from './platform-keys.js';
import { createPlatformRegistry } from './platform-registry.js';
import { isStorageTarget, platformOriginOf, storageProofOf, type StorageProof } from './platform-storage.js';
import { createGuardedHttp, guardedFetch } from '../net/guarded-http.js';
import { clientKeyOf } from '../http/rate-limits.js';
import { LtijsStore, type HeldReplace } from './store/ltijs-store.js';
import { sessionChecks, sessionTokenOf } from './session-token.js';
import { createTokenValidator, type TokenValidator } from './token-validator.js';
import { isRecord } from '../values.js';

export { LTI_ROUTES };

/** How long the LMS may take between our login redirect and its id_token POST. */
const LOGIN_MAX_AGE_SECONDS = 600;
/** How often login states never launched (after 20 minutes) or past every session's age, and ltijs documents past their lifetime, are deleted. */
const HOUSEKEEPING_INTERVAL_MS = 5 * 60 * 1000;
const DEFAULT_MAX_PENDING_LOGINS = 50_000;

export interface LtiAdapterOptions {
  db: Database;
  encryptionKey: string;
  /** ENCRYPTION_KEY's older entries during a key rotation: what they encrypted still decrypts. */
  olderEncryptionKeys?: readonly string[];
  publicUrl: URL;
  sessionMaxAgeSeconds: number;
  clockSkewSeconds: number;
  userAgent: string;
  logger: Logger;
  /** Logins waiting for their launch kept at most (MAX_PENDING_LOGINS); default 50,000. */
  maxPendingLogins?: number;
  /** Answers a failure inside ltijs (database outage, internal error) as the tool's error handler does. */
  fail(error: unknown, req: Request, res: Response): void;
  /**
   * Development only: platform key sets, token and Names and Roles endpoints on loopback (a local LMS). In
   * production the platform services the tool calls must be on public addresses, over https.
   */
  allowLoopbackPlatformServices?: boolean;
  /** Every login and launch through ltijs's own routes, none answered by the tool's (tests compare the two). */
  launchesThroughLtijs?: boolean;
}

/** Largest answer read from any platform service (a whole course's membership page); each kind has its own lower cap. */
const MAX_PLATFORM_ANSWER_BYTES = 32 * 1024 * 1024;

/** What the tool does with LTI messages; given to the adapter once the tool's services exist (`handle`). */
export interface LtiHandlers {
  /** A verified resource-link or deep-linking launch: the id_token POST itself, or a POST of its session token (a retry). */
  launch(launch: LtiLaunch, req: Request, res: Response): Promise<void>;
  /** Renders a refused LTI message for a person (status, reason code, detail for the log). */
  refuse(req: Request, res: Response, refusal: LtiRefusal, status: number): void;
}

export interface PlatformInput {
  issuer: string;
  clientId: string;
  name?: string;
  authUrl: string;
  tokenUrl: string;
  authorizationServer?: string;
  key: { jwksUrl: string } | { jwk: string } | { publicKeyPem: string };
  deploymentIds: string[];
}

export interface PlatformSummary {
  issuer: string;
  clientId: string;
  name: string;
  active: boolean;
  authUrl: string;
  tokenUrl: string;
  keyMethod: string;
  /** The platform's key set URL, when its keys are fetched from one (JWK_SET). */
  jwksUrl?: string;
  deploymentIds: string[];
}

export interface LtiAdapter {
  /** Routes launches and refusals to the tool; until then (or in the CLI, which serves no requests) they fail. */
  handle(handlers: LtiHandlers): void;
  /**
   * Deletes what no session can use any more: logins never launched after 20 minutes, used login states (with
   * the launch claims they keep) older than the session age, and ltijs documents past their lifetime. Runs every
   * 5 minutes; returns the counts.
   */
  housekeeping(): Promise<{ loginStates: number; ltijsDocuments: number }>;
  /** Mounts ltijs (an express 4 app) under /lti of our app; app.use restores request prototypes after it. */
  mount(app: Application): void;
  /** Express routes that need a valid LTI session; mounted behind ltijs's session check under /lti. */
  sessionRouter: Router;
  platforms: {
    register(input: PlatformInput): Promise<void>;
    list(): Promise<PlatformSummary[]>;
    remove(issuer: string, clientId: string): Promise<boolean>;
    setActive(issuer: string, clientId: string, active: boolean): Promise<void>;
  };
  deployments: DeploymentStore;
  /** The launch behind the current request's LTI session (after ltijs's session check). */
  launchOf(res: Response): Promise<LtiLaunch>;
  /**
   * Where the login behind `state` kept its state and nonce, when it offered the platform's client-side
   * storage and may still be launched: the storage target and the platform origin to address.
   */
  platformStorageOf(state: string): Promise<{ target: string; platformOrigin: string } | undefined>;
  /**
   * The ltik of the current session, for hidden form fields and page scripts' Authorization headers; never for
   * URLs. In a launch's own answer, only after `keepSession`.
   */
  ltikOf(res: Response): string;
  /**
   * The session token of the current request for a route registered with `postWithLaunchToken`: in a launch's own
   * answer it needs no `keepSession` (such a route never reads the stored session). Never for URLs.
   */
  launchTokenOf(res: Response): string;
  /**
   * A POST route that needs only the launch behind the session token it is posted (launch-token-session.ts), not
   * ltijs's stored session: `path` is the whole path (under /lti), answered before ltijs sees the request.
   */
  postWithLaunchToken(path: string, ...handlers: RequestHandler[]): void;
  /**
   * Stores the session a resource-link launch opened, so that its ltik can be posted back: a launch answered with
   * a page that carries the ltik awaits this first. A launch answered with a redirect to the proctoring service
   * never calls it, and on the tool's own launch route its session documents (ltijs's idtoken and contexttoken)
   * are never written; ltijs's route (a deep-linking request, a POST that also names a session) writes them.
   */
  keepSession(res: Response): Promise<void>;
  /** The LTI session token a request carries (form field or Authorization header), '' when none: binds CSRF tokens to the session. */
  sessionIdOf(req: Request): string;
  /** Signs the deep-linking response of the current deep-linking session (LTI Deep Linking 2.0 §4.2). */
  deepLinkingResponse(res: Response, items: LtiResourceLinkItem[], options?: { message?: string }): Promise<DeepLinkingResponse>;
  /**
   * Signs a message the tool sends a platform (LTI Proctoring Services' `LtiStartAssessment`): RS256 with the tool's
   * key for that platform, its kid in the header (the key set at /lti/keys publishes it).
   */
  signToolMessage(platform: { issuer: string; clientId: string }, claims: Record<string, unknown>): Promise<string>;
  /** Every member of a context from Names and Roles, all pages; throws NamesRolesError (names-roles.ts). */
  members(platform: { issuer: string; clientId: string }, membershipsUrl: string, options?: { signal?: AbortSignal }): Promise<NamesRolesMember[]>;
  close(): Promise<void>;
}

interface RequestContext {
  state?: string;
  refusal?: LtiRefusal;
  /** How the browser loaded this request (Sec-Fetch-Dest): true in a frame, false as a window's document. */
  framed?: boolean;
  /** The platform's client-side storage target named by this request (lti_storage_target), when valid. */
  storageTarget?: string;
  /** A launch's state and nonce as the tool's launch page read them back from the platform's storage. */
  storageProof?: StorageProof;
  /**
   * Why this request cannot be served although ltijs would answer something else (often a 401 or its raw
   * JSON): the database is unavailable, or too many logins are pending. The tool's error handler answers (503).
   */
  failure?: DatabaseUnavailableError | LoginCapacityError;
  /** In a login: whether ltijs stores a `state` document for it (its target link URI has a query string). */
  ltijsState?: boolean;
  /** The client network the request came from, grouped as the rate limiter groups clients. */
  clientNetwork: string;
}

/** An id_token POST's session documents, held until the launch's answer needs them (`keepSession`). */
interface HeldSession {
  replaces: HeldReplace[];
  written?: Promise<void>;
  stored: boolean;
}

/** Each id_token POST's held session documents, by its response (what `ltikOf` and `keepSession` are given). */
const heldSessions = requestSlot<Response, HeldSession>('held session');

function holdSession(res: Response): HeldSession {
  const held: HeldSession = { replaces: [], stored: false };
  heldSessions.set(res, held);
  return held;
}

/** The context of each request served by ltijs's routes, by its response (what ltijs's failure callbacks are given). */
const trackedContexts = requestSlot<Response, RequestContext>('request context');

function framedBy(req: Request): boolean | undefined {
  const destination = req.get('sec-fetch-dest');
  if (destination === 'iframe' || destination === 'frame') return true;
  if (destination === 'document') return false;
  return undefined;
}

function storageTargetOf(req: Request): string | undefined {
  const target = bodyFields(req).lti_storage_target ?? req.query.lti_storage_target;
  return isStorageTarget(target) ? target : undefined;
}

/** A database outage met while serving a request: ltijs's answer to it becomes the tool's 503. */
function noteOutage(context: RequestContext | undefined, error: unknown): void {
  if (context && error instanceof DatabaseUnavailableError) context.failure ??= error;
}

/*
 * The context of each request ltijs's own routes serve, for the functions ltijs calls back without the request:
 * an id_token POST's by its id_token (ltijs's token validation is given the token), a login's by the state ltijs
 * draws for it (its login request builder is given the state, right after ltijs sets the state cookie). The
 * callback takes its entry; an entry never taken goes when the response ends. Request context is passed
 * explicitly rather than through AsyncLocalStorage, which on Node 20 costs every promise of the process an
 * async hook.
 */
const launchContexts = new Map<string, RequestContext[]>();
const loginContexts = new Map<string, RequestContext>();

function awaitLaunch(idToken: string, context: RequestContext, res: Response): void {
  const waiting = launchContexts.get(idToken);
  if (waiting) waiting.push(context);
  else launchContexts.set(idToken, [context]);
  res.once('close', () => takeLaunchContext(idToken, context));
}

/** The context of the oldest request waiting to validate `idToken` (or `context`'s own entry), removed. */
function takeLaunchContext(idToken: string, context?: RequestContext): RequestContext | undefined {
  const waiting = launchContexts.get(idToken);
  if (!waiting) return undefined;
  const index = context ? waiting.indexOf(context) : 0;
  const [taken] = index < 0 ? [] : waiting.splice(index, 1);
  if (waiting.length === 0) launchContexts.delete(idToken);
  return taken;
}

function awaitLogin(state: string, context: RequestContext, res?: Response): void {
  loginContexts.set(state, context);
  res?.once('close', () => {
    if (loginContexts.get(state) === context) loginContexts.delete(state);
  });
}

/** How many requests' contexts wait for an ltijs callback (tests: none is left behind once the answers are sent). */
export function waitingRequestContexts(): { launches: number; logins: number } {
  let launches = 0;
  for (const waiting of launchContexts.values()) launches += waiting.length;
  return { launches, logins: loginContexts.size };
}

function takeLoginContext(state: string): RequestContext | undefined {
  const context = loginContexts.get(state);
  loginContexts.delete(state);
  return context;
}

let ltijsPatched = false;
let activeValidator: TokenValidator | undefined;
let activeLoginStates: { store: LoginStateStore; maxPending: number } | undefined;

/**
 * Verifies a launch's id_token for the session it opens (ltijs's route, or the tool's own for resource links):
 * the verified payload ltijs stores in its idtoken and contexttoken documents, without what names the person.
 * `cookieIssuer` is the issuer the login's signed state cookie names, if it came back.
 */
async function validateForSession(idToken: string, context: RequestContext | undefined, cookieIssuer: string | undefined): Promise<Record<string, unknown>> {
  if (!activeValidator) throw new Error('LTI validator not initialised');
  try {
    const validated = await activeValidator(idToken, { state: context?.state, cookieIssuer, storageProof: context?.storageProof });
    return { ...withoutPersonalClaims(validated.payload), clientId: validated.clientId, platformId: validated.platformId };
  } catch (error) {
    if (context && error instanceof LtiRefusal) context.refusal = error;
    noteOutage(context, error);
    throw error;
  }
}

/**
 * ltijs's token validation and login request builder are replaced once per process by ours: the
 * validator runs the full chain of checks (token-validator.ts) and the login builder records the
 * nonce it generates against the state, which ltijs itself never stores.
 */
function patchLtijsOnce(): void {
  if (ltijsPatched) return;
  ltijsPatched = true;
  importSecretKeysOnce();
  replaceTokenValidation((idToken, _devMode, validationParameters) => validateForSession(idToken, takeLaunchContext(idToken), validationParameters.iss));
  wrapLoginRequest((buildLogin) => async (request, platform, state) => {
    const context = takeLoginContext(state);
    // ltijs draws the nonce from Math.random: replace it with one from the system's secure generator.
    const nonce = secureRandomBytes(24).toString('base64url');
    const query: Record<string, string> = { ...(await buildLogin(request, platform, state)), nonce };
    if (!activeLoginStates) throw new Error('LTI login state store not initialised');
    const { store: loginStates, maxPending } = activeLoginStates;
    const bound = await loginStates.bind({
      state,
      nonce,
      issuer: String(request.iss),
      clientId: query.client_id,
      framed: context?.framed,
      storageTarget: context?.storageTarget,
      ltijsState: context?.ltijsState,
      clientNetwork: context?.clientNetwork,
    }).catch((error: unknown) => {
      noteOutage(context, error);
      throw error;
    });
    if (bound === 'full') {
      const error = new LoginCapacityError(maxPending);
      if (context) context.failure = error;
      throw error;
    }
    return query;
  });
}

/**
 * A provider of this adapter's own: ltijs exports one set-up-once instance, whose class makes more. An adapter
 * closed and another created in the same process (the CLI inside a test, test files sharing a process) each
 * set theirs up. The patches above are per process, and the last adapter created is the one they serve.
 */
function newLtijsProvider(): LtijsProvider {
  return new ltijs.Provider.constructor();
}

export async function createLtiAdapter(options: LtiAdapterOptions): Promise<LtiAdapter> {
  patchLtijsOnce();
  const lti = newLtijsProvider();
  const db = options.db;
  const maxPendingLogins = options.maxPendingLogins ?? DEFAULT_MAX_PENDING_LOGINS;
  const loginStates = createLoginStateStore(db, { maxPending: maxPendingLogins, pendingWindowSeconds: LOGIN_MAX_AGE_SECONDS });
  const deployments = createDeploymentStore(db);
  activeLoginStates = { store: loginStates, maxPending: maxPendingLogins };
  let handlers: LtiHandlers | undefined;
  const notHandled = () => new Error('the LTI adapter was given no handlers');
  const refuse: LtiHandlers['refuse'] = (req, res, refusal, status) => {
    if (handlers) handlers.refuse(req, res, refusal, status);
    else options.fail(notHandled(), req, res);
  };
  const onLaunch: LtiHandlers['launch'] = async (launch, req, res) => {
    if (!handlers) throw notHandled();
    await handlers.launch(launch, req, res);
  };

  const checkSession = sessionChecks({ sessionMaxAgeSeconds: options.sessionMaxAgeSeconds, refuse });
  // The newest key signs cookies and session tokens; every listed key verifies them (a rolling key rotation).
  const signingKeys = [options.encryptionKey, ...(options.olderEncryptionKeys ?? [])];
  acceptOlderSigningKeys(options.encryptionKey, options.olderEncryptionKeys ?? []);
  const parseCookies = cookieParser(signingKeys);

  const store = createStore(db, options, loginStates);
  setUpLtijs(lti, options, store, checkSession);

  // Every URL of a platform service is chosen by whoever registered the platform: one guarded client for all.
  const platformHttp = createGuardedHttp({ policy: { allowLoopback: options.allowLoopbackPlatformServices === true }, maxBytes: MAX_PLATFORM_ANSWER_BYTES });

  activeValidator = createValidator(lti, options, { loginStates, deployments, fetch: guardedFetch(platformHttp, { maxBytes: MAX_KEY_SET_BYTES }) });

  handleLtijsRefusals(lti, refuse);

  function issuedLtik(res: Response): string {
    const ltik: unknown = res.locals.ltik;
    if (typeof ltik !== 'string') throw new LtiRefusal('session_expired', 'no LTI session on this request');
    return ltik;
  }

  function ltikOf(res: Response): string {
    const held = heldSessions.get(res);
    if (held && !held.stored) throw new Error('the launch session is not stored yet: await keepSession(res) before handing out its ltik');
    return issuedLtik(res);
  }

  function keepSession(res: Response): Promise<void> {
    const held = heldSessions.get(res);
    if (!held) return Promise.resolve();
    held.written ??= store.writeHeldReplaces(held.replaces.splice(0)).then(() => {
      held.stored = true;
    });
    return held.written;
  }

  // One read of the launch per response: the page's language and the page itself both ask for it.
  const launches = requestSlot<Response, Promise<LtiLaunch>>('launch');
  function launchOf(res: Response): Promise<LtiLaunch> {
    let launch = launches.get(res);
    if (!launch) {
      launch = readLaunch(res);
      launches.set(res, launch);
    }
    return launch;
  }

  async function readLaunch(res: Response): Promise<LtiLaunch> {
    const ltik: Record<string, unknown> = openedSessionOf(res) ?? decodeJwt(issuedLtik(res));
    const state = typeof ltik.s === 'string' ? ltik.s : undefined;
    const clientId = typeof ltik.clientId === 'string' ? ltik.clientId : undefined;
    if (!state || !clientId) throw new LtiRefusal('session_expired', 'the session token carries no launch');
    const stored = await loginStates.claims(state, options.sessionMaxAgeSeconds);
    if (!stored) throw new LtiRefusal('session_expired', 'the launch behind this session has expired');
    return toLaunch(launchClaimsSchema.parse(stored), clientId, stored);
  }

  const launchTokenRouter = express.Router();
  const launchTokenChecks = launchTokenSession({ encryptionKey: options.encryptionKey, sessionMaxAgeSeconds: options.sessionMaxAgeSeconds, refuse });

  const launched = (keepFirst: boolean) => async (_token: unknown, req: Request, res: Response, next: NextFunction) => {
    try {
      if (keepFirst) await keepSession(res);
      await onLaunch(await launchOf(res), req, res);
    } catch (error) {
      // The error page's "Try again" posts the session token again: the session must exist for it.
      try {
        await keepSession(res);
        res.locals.retryFields = { ltik: ltikOf(res) };
      } catch (keepError) {
        requestLogger(options.logger, req).warn({ err: keepError }, 'could not store the session of a failed launch: its error page offers no retry');
      }
      next(error);
    }
  };
  // A resource-link launch stores its session only if its answer needs it (keepSession); the deep-linking
  // picker is a page that posts the session token back, always.
  lti.onConnect(launched(false));
  lti.onDeepLinking(launched(true));
  const directLaunch = options.launchesThroughLtijs
    ? undefined
    : directLaunchRoute({ encryptionKey: options.encryptionKey, parseCookies, publicUrl: options.publicUrl, store, refuse, launched: launched(false) });
  const directLogin = options.launchesThroughLtijs ? undefined : directLoginRoute(lti, options, parseCookies);

  // Fails here, with a non-zero exit from the caller, rather than inside ltijs's deploy() which exits 0.
  await options.db.ping();
  await lti.deploy({ serverless: true, silent: true });
  forwardRejections(lti.app, (error, req) => requestLogger(options.logger, req).error({ err: error }, 'ltijs failed after answering'));

  const sessionRouter = express.Router();
  // A retryable failure of a session page offers "Try again" posting the session token again (error-handler.ts).
  sessionRouter.use((_req, res, next) => {
    if (typeof res.locals.ltik === 'string') res.locals.retryFields = { ltik: res.locals.ltik };
    next();
  });
  lti.app.use(sessionRouter);

  async function housekeeping() {
    const loginStatesDeleted = await loginStates.purge({
      // Kept a while past the last moment they could be launched, so a late launch is told it was too slow.
      pendingSeconds: 2 * LOGIN_MAX_AGE_SECONDS + options.clockSkewSeconds,
      consumedSeconds: Math.max(options.sessionMaxAgeSeconds, LOGIN_MAX_AGE_SECONDS) + options.clockSkewSeconds,
    });
    const ltijsDocuments = await store.purgeExpired();
    return { loginStates: loginStatesDeleted, ltijsDocuments };
  }
  const housekeepingTimer = setInterval(() => {
    housekeeping().catch((error: unknown) => options.logger.warn({ err: error }, 'LTI housekeeping failed'));
  }, HOUSEKEEPING_INTERVAL_MS);
  housekeepingTimer.unref();

  return {
    handle(given) {
      handlers = given;
    },
    housekeeping,
    mount(app) {
      if (directLogin) app.all(LTI_ROUTES.login, ...directLogin);
      if (directLaunch) app.post(LTI_ROUTES.launch, ...directLaunch);
      app.use(launchTokenRouter);
      // ltijs's own cookie parser knows only its one key; it leaves cookies another parser has read alone.
      app.use('/lti', parseCookies, lti.app);
    },
    sessionRouter,
    deployments,
    launchOf,
    async platformStorageOf(state) {
      const login = await loginStates.describe(state);
      if (!login?.storageTarget || login.consumed || login.ageSeconds > LOGIN_MAX_AGE_SECONDS || !login.clientId) return undefined;
      const platform = await lti.getPlatform(login.issuer, login.clientId);
      const platformOrigin = platform ? platformOriginOf(await platform.platformAuthEndpoint()) : undefined;
      return platformOrigin ? { target: login.storageTarget, platformOrigin } : undefined;
    },
    ltikOf,
    launchTokenOf: issuedLtik,
    postWithLaunchToken(path, ...handlers) {
      launchTokenRouter.post(path, ...launchTokenChecks, ...handlers);
    },
    keepSession,
    // The session ltijs accepted or, in the id_token POST, has just issued; else the token the request names.
    sessionIdOf: (req) => {
      const issued: unknown = req.res?.locals.ltik;
      return typeof issued === 'string' ? issued : (sessionTokenOf(req) ?? '');
    },
    deepLinkingResponse: (res, items, responseOptions) => deepLinkingResponse(lti, res, items, responseOptions),
    async signToolMessage(platform, claims) {
      const registered = await lti.getPlatform(platform.issuer, platform.clientId);
      if (!registered) throw new LtiRefusal('unregistered_platform', `no platform registered for issuer ${platform.issuer} and client id ${platform.clientId}`);
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: await registered.platformKid() })
        .sign(createPrivateKey(await registered.platformPrivateKey()));
    },
    members: createNamesRolesClient({ provider: lti, encryptionKey: options.encryptionKey, userAgent: options.userAgent, http: platformHttp }).members,
    platforms: createPlatformRegistry(lti, deployments),
    async close() {
      // ltijs's close() also closes the store; the caller owns and closes the database.
      clearInterval(housekeepingTimer);
      activeValidator = undefined;
      await platformHttp.close();
    },
  };
}

/**
 * The id_token POST of a resource-link launch, answered by the tool without ltijs's request handling (its
 * express 4 app with its own helmet, body parsers and cookie parser, its copies of the session): the same
 * checks (`validateForSession`), the same clean-up of the login's state cookie and ltijs state document, the
 * same session (ltijs-session.ts) held until the answer needs it (`keepSession`), the same launch handler
 * and failure answers. A deep-linking request, a POST that also carries a session token and an unreadable
 * token go on to ltijs's route.
 */
function directLaunchRoute(deps: {
  encryptionKey: string;
  parseCookies: RequestHandler;
  publicUrl: URL;
  store: ReturnType<typeof createStore>;
  refuse: LtiHandlers['refuse'];
  launched: (token: unknown, req: Request, res: Response, next: NextFunction) => Promise<void>;
}): RequestHandler[] {
  const { encryptionKey, store } = deps;
  const jwt = ltijsJsonwebtoken();
  const secure = deps.publicUrl.protocol === 'https:';
  const clearStateCookie = ltijsCookieOptions(secure);
  const withCookieAttributes = cookieAttributes(secure, LOGIN_MAX_AGE_SECONDS);
  const signSessionToken = (payload: object) => String(jwt.sign(payload, encryptionKey));

  async function openSession(req: Request, res: Response, next: NextFunction, context: RequestContext, held: HeldSession, idToken: string, state: string): Promise<void> {
    // Whether the launch is accepted or refused, the login is over: its state cookie and ltijs state document go.
    const endLogin = async () => {
      const saved = await store.Get(false, 'state', { state });
      res.clearCookie(`state${state}`, clearStateCookie);
      if (saved) void store.Delete('state', { state });
      return saved;
    };
    let session: LtijsSession;
    try {
      const valid = await validateForSession(idToken, context, signedCookie(req, `state${state}`));
      const saved = await endLogin();
      session = ltijsSessionOf(valid, state);
      held.replaces.push(store.heldReplace('idtoken', session.idtoken.query, session.idtoken.doc), store.heldReplace('contexttoken', session.contexttoken.query, session.contexttoken.doc));
      const first: unknown = saved ? saved[0] : undefined;
      res.locals.query = (isRecord(first) && first.query) || {};
    } catch (error) {
      noteOutage(context, error);
      await endLogin();
      answerFailedSession(context, error instanceof Error ? error.message : undefined, 'invalid_token', (refusal) => deps.refuse(req, res, refusal, 401), next);
      return;
    }
    holdOpenedSession(res, session.ltik, signSessionToken);
    res.locals.context = session.contexttoken.doc;
    res.locals.token = { ...session.idtoken.doc, platformContext: session.contexttoken.doc };
    await deps.launched(res.locals.token, req, res, next);
  }

  const answer: RequestHandler = (req, res, next) => {
    const body = bodyFields(req);
    const idToken = body.id_token;
    const state = body.state;
    const carriesSession = body.ltik !== undefined || req.query.ltik !== undefined || req.get('authorization') !== undefined;
    if (typeof idToken !== 'string' || typeof state !== 'string' || carriesSession || !isResourceLinkRequest(idToken)) {
      next();
      return;
    }
    const context = requestContextOf(req, deps.publicUrl.origin);
    const held = holdSession(res);
    withCookieAttributes(req, res, () => {
      openSession(req, res, next, context, held, idToken, state).catch(next);
    });
  };
  return [deps.parseCookies, answer];
}

/**
 * A login initiation (OIDC third-party initiated login), answered by the tool without ltijs's request handling
 * when ltijs would answer it with its redirect to the platform: a registered, active platform named by issuer
 * and client id, and a target link URI without a query string (ltijs keeps that query in a `state` document).
 * The same state, the same signed state cookie (cookieAttributes' lifetime and attribute), the same login
 * request (ltijs's builder, wrapped to bind the nonce) and the same redirect; everything else (an unregistered
 * or inactive platform, a refusal, a session token) goes on to ltijs's route.
 */
function directLoginRoute(lti: LtijsProvider, options: Pick<LtiAdapterOptions, 'publicUrl' | 'fail'>, parseCookies: RequestHandler): RequestHandler[] {
  const formatUrl = ltijsUrlFormat();
  const secure = options.publicUrl.protocol === 'https:';
  const stateCookie: CookieOptions = { ...ltijsCookieOptions(secure), maxAge: LOGIN_MAX_AGE_SECONDS * 1000 };
  const withCookieAttributes = cookieAttributes(secure, LOGIN_MAX_AGE_SECONDS);

  async function redirectToPlatform(res: Response, next: NextFunction, context: RequestContext, params: Record<string, string | undefined>, iss: string, clientId: string): Promise<void> {
    const platform = await lti.getPlatform(iss, clientId);
    if (!platform || !(await platform.platformActive())) {
      next();
      return;
    }
    const state = encodeURIComponent(secureRandomBytes(25).toString('hex'));
    res.cookie(`state${state}`, iss, stateCookie);
    awaitLogin(state, context);
    const query = await ltijsLoginRequest(params, platform, state);
    res.redirect(formatUrl({ pathname: await platform.platformAuthEndpoint(), query }));
  }

  const answer: RequestHandler = (req, res, next) => {
    const params = loginParamsOf(req);
    const text = (name: string) => {
      const value = params[name];
      return typeof value === 'string' && value !== '' ? value : undefined;
    };
    const [iss, clientId, target] = [text('iss'), text('client_id'), text('target_link_uri')];
    const carriesSession = params.ltik !== undefined || req.get('authorization') !== undefined;
    if (!iss || !clientId || !text('login_hint') || !target || target.includes('?') || carriesSession) {
      next();
      return;
    }
    const context = requestContextOf(req, options.publicUrl.origin);
    withCookieAttributes(req, res, () => {
      // ltijs's builder is given what ltijs's route gives it: every parameter of the query and the form.
      redirectToPlatform(res, next, context, textParams(params), iss, clientId).catch((error: unknown) => options.fail(context.failure ?? error, req, res));
    });
  };
  return [parseCookies, answer];
}

/** A resource-link launch, or an LTI Proctoring Services start or end of an assessment (launched the same way). */
function isResourceLinkRequest(idToken: string): boolean {
  try {
    const messageType = decodeJwt(idToken)[CLAIM.messageType];
    return messageType === 'LtiResourceLinkRequest' || isProctoringMessageType(messageType);
  } catch {
    return false;
  }
}

/**
 * The options ltijs sets its cookies with. The tool's own routes set and clear the login's state cookie with
 * them and through `cookieAttributes`, as ltijs's routes do: a browser keeps a partitioned cookie apart from an
 * unpartitioned one of the same name, so both must set exactly the same attributes.
 */
function ltijsCookieOptions(secure: boolean): CookieOptions {
  const cookies = ltijsCookies(secure);
  return { httpOnly: true, signed: true, secure: cookies.secure, sameSite: cookies.sameSite === 'None' ? 'none' : 'lax' };
}

/** ltijs's cookie options (`setup`'s `cookies`); its cookies are also httpOnly and signed. */
function ltijsCookies(secure: boolean): { secure: boolean; sameSite: 'None' | 'Lax' } {
  return secure ? { secure: true, sameSite: 'None' } : { secure: false, sameSite: 'Lax' };
}

/** ltijs's own routes and options: the tool's session check and cookie attributes run inside its app. */
function setUpLtijs(lti: LtijsProvider, options: LtiAdapterOptions, store: ReturnType<typeof createStore>, checkSession: RequestHandler): void {
  const secure = options.publicUrl.protocol === 'https:';
  lti.setup(
    options.encryptionKey,
    { plugin: store },
    {
      appRoute: LTIJS_LAUNCH_PATH,
      loginRoute: '/login',
      keysetRoute: '/keys',
      dynRegRoute: '/register',
      cors: false,
      tokenMaxAge: false,
      // The id_token POST goes straight to onConnect: ltijs's redirect to `/launch?ltik=…` would put the session
      // token into access logs and browser history. The ltik is then the session's only credential (no cookie),
      // carried in request bodies and Authorization headers, never in a URL.
      ltiaas: true,
      // An LMS frames the tool from another site: cookies must be SameSite=None; Secure over https.
      // Plain http (local sandbox) cannot carry Secure cookies, so Lax there.
      cookies: ltijsCookies(secure),
      // Runs inside ltijs's app after its body parsing, before its session check.
      serverAddon: (app) => {
        app.use(checkSession);
        app.use(cookieAttributes(secure, LOGIN_MAX_AGE_SECONDS));
        app.use(trackRequest(options, options.publicUrl.origin));
      },
    },
  );
}

/** What ltijs keeps in `res.locals`: the session's token (`ltik`), its id_token and context documents, its refusal. */
interface LtijsLocals {
  ltik?: unknown;
  token?: unknown;
  err?: unknown;
}

const ltijsLocalsOf = (res: Response): LtijsLocals => res.locals;

/** The deep-linking settings of a session's id_token (LTI Deep Linking 2.0 §4.4.1), where ltijs keeps them. */
const DEEP_LINKING_SESSION = z.object({
  platformContext: z.object({
    deepLinkingSettings: z.object({ deep_link_return_url: z.unknown(), accept_presentation_document_targets: z.unknown() }).partial().optional(),
  }),
});

/** The part of ltijs's refusal (`res.locals.err`) that says why. */
const LTIJS_ERROR = z.object({ details: z.object({ message: z.string().optional().catch(undefined) }).optional().catch(undefined) });

/** Signs the deep-linking response of the current deep-linking session (LTI Deep Linking 2.0 §4.2). */
async function deepLinkingResponse(
  lti: LtijsProvider,
  res: Response,
  items: LtiResourceLinkItem[],
  responseOptions?: { message?: string },
): Promise<DeepLinkingResponse> {
    const token = ltijsLocalsOf(res).token;
    const settings = DEEP_LINKING_SESSION.safeParse(token).data?.platformContext.deepLinkingSettings;
    const returnUrl = settings?.deep_link_return_url;
    if (!token || typeof returnUrl !== 'string') throw new LtiRefusal('unsupported_message', 'this session is not a deep-linking launch');
    // Exams open in a new window where the platform offers that (Canvas, Moodle): cookies then work and
    // nothing of the exam runs inside the LMS's frame.
    const targets = settings?.accept_presentation_document_targets;
    const acceptsWindow = Array.isArray(targets) && targets.includes('window');
    const presented = acceptsWindow ? items.map((item) => (item.window || item.iframe ? item : { ...item, window: { targetName: '_blank' } })) : items;
    // Only `message`: ltijs writes errMessage under a misspelt claim name ('…/errormsg ' with a space).
    const jwt = await lti.DeepLinking.createDeepLinkingMessage(token, presented, responseOptions?.message ? { message: responseOptions.message } : undefined);
    return { returnUrl, jwt };
}

/**
 * How long this process reuses ltijs's reads of platforms and keys (four queries per launch otherwise). Changes
 * made through this process apply at once; another replica's, or the CLI's on PostgreSQL, within this time.
 */
export const PLATFORM_CACHE_SECONDS = 5;

/** Our store for ltijs; a failed delete of a used login's `state` document is only logged. */
function createStore(db: Database, options: Pick<LtiAdapterOptions, 'olderEncryptionKeys' | 'logger'>, loginStates: Pick<LoginStateStore, 'hasNoLtijsState'>): LtijsStore {
  const store = new LtijsStore(db, {
    olderKeys: options.olderEncryptionKeys,
    cacheSeconds: PLATFORM_CACHE_SECONDS,
    // ltijs looks up a `state` document in every launch; most logins never had one (see ltijsStateOf).
    knownAbsent: (collection, query) => collection === 'state' && typeof query?.state === 'string' && loginStates.hasNoLtijsState(query.state),
  });
  return tolerateStateDeleteFailures(store, (error) => options.logger.warn({ err: error }, 'could not delete a used ltijs state document'));
}

/** A login request's parameters as ltijs reads them: the query string's, then the form's over them. */
function loginParamsOf(req: Request): Record<string, unknown> {
  return { ...req.query, ...bodyFields(req) };
}

/** The parameters that are one string each (what a login initiation's are). */
function textParams(params: Readonly<Record<string, unknown>>): Record<string, string> {
  return Object.fromEntries(Object.entries(params).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

/**
 * In a login request (iss, login_hint and target_link_uri present, as ltijs reads them from query and body):
 * whether ltijs will store a `state` document for it, which it does exactly when the target link URI has a query
 * string (to add that query to the launch).
 */
function ltijsStateOf(req: Request): boolean | undefined {
  const params = loginParamsOf(req);
  const target = params.target_link_uri;
  if (!params.iss || !params.login_hint || typeof target !== 'string') return undefined;
  return target.includes('?');
}

/** A request's state, framing and storage target for the patched ltijs functions. */
function requestContextOf(req: Request, toolOrigin: string): RequestContext {
  const body = bodyFields(req);
  const context: RequestContext = {
    state: typeof body.state === 'string' ? body.state : undefined,
    framed: framedBy(req),
    storageTarget: storageTargetOf(req),
    clientNetwork: clientKeyOf(req.ip),
    storageProof: storageProofOf(body, { secFetchSite: req.get('sec-fetch-site'), origin: req.get('origin') }, toolOrigin),
  };
  const ltijsState = ltijsStateOf(req);
  if (ltijsState !== undefined) context.ltijsState = ltijsState;
  return context;
}

/**
 * Notes each request's state, framing and storage target where the patched ltijs functions find them (an
 * id_token POST's by its token, a login's by its state once ltijs sets the state cookie), holds an id_token
 * POST's session, and replaces ltijs's raw error answers.
 */
function trackRequest(options: Pick<LtiAdapterOptions, 'fail'>, toolOrigin: string) {
  return (req: Request, res: Response, next: NextFunction) => {
    const context = requestContextOf(req, toolOrigin);
    trackedContexts.set(res, context);
    const idToken = bodyFields(req).id_token;
    if (typeof idToken === 'string') {
      holdSession(res);
      awaitLaunch(idToken, context, res);
    }
    if (context.ltijsState !== undefined) {
      onStateCookie(res, (state) => awaitLogin(state, context, res));
    }
    // ltijs's raw error answers (they name the database, host and port) become the tool's own error response.
    replaceLtijsErrorAnswers(res, (message) => options.fail(context.failure ?? outageFrom(message) ?? new Error(`ltijs: ${message}`), req, res));
    next();
  };
}

/** ltijs keeps only the message of an error it catches: a database outage is recognised by it. */
function outageFrom(message: string | undefined): DatabaseUnavailableError | undefined {
  return message !== undefined && isOutageMessage(message) ? new DatabaseUnavailableError(message) : undefined;
}

/**
 * A launch or session that could not be opened: the database outage or login capacity noted on the request goes
 * to the error handler (503), else the refusal the validation gave, else one read from ltijs's message.
 */
function answerFailedSession(context: RequestContext | undefined, message: string | undefined, fallback: LtiRefusalCode, refuse: (refusal: LtiRefusal) => void, next: NextFunction): void {
  const failure = context?.failure ?? (message !== undefined && isOutageMessage(message) ? new DatabaseUnavailableError(message) : undefined);
  if (failure) {
    next(failure);
    return;
  }
  refuse(context?.refusal ?? new LtiRefusal(message ? refusalFromLtijsMessage(message) : fallback, message ?? fallback));
}

/** ltijs's refusals become the tool's refusal pages (or its error handler's 503 when the database is down). */
function handleLtijsRefusals(lti: LtijsProvider, refuse: LtiHandlers['refuse']): void {
  const refuseFromLtijs = (status: number, fallback: LtiRefusalCode) => (req: Request, res: Response, next: NextFunction) => {
    const message = LTIJS_ERROR.safeParse(ltijsLocalsOf(res).err).data?.details?.message;
    answerFailedSession(trackedContexts.get(res), message, fallback, (refusal) => refuse(req, res, refusal, status), next);
  };
  lti.onInvalidToken(refuseFromLtijs(401, 'invalid_token'));
  lti.onSessionTimeout(refuseFromLtijs(401, 'session_expired'));
  lti.onUnregisteredPlatform((req, res) => {
    const params = loginParamsOf(req);
    const text = (value: unknown) => (typeof value === 'string' && value.length > 0 && value.length <= 255 ? value : undefined);
    const issuer = text(params.iss);
    const clientId = text(params.client_id);
    const registration = issuer && clientId ? { issuer, clientId, deploymentId: text(params.lti_deployment_id) } : undefined;
    refuse(req, res, new LtiRefusal('unregistered_platform', `login from unregistered issuer ${String(issuer)} (client id ${String(clientId)})`, registration), 400);
  });
  lti.onInactivePlatform((req, res) => refuse(req, res, new LtiRefusal('inactive_platform', 'platform not activated'), 401));
}

/** Our id_token validator (token-validator.ts) over ltijs's registered platforms. */
function createValidator(
  lti: LtijsProvider,
  options: Pick<LtiAdapterOptions, 'userAgent' | 'publicUrl' | 'clockSkewSeconds'>,
  stores: { loginStates: LoginStateStore; deployments: DeploymentStore; fetch: typeof fetch },
): TokenValidator {
  async function findLtijsPlatform(issuer: string, clientId: string): Promise<LtijsPlatform | undefined> {
    return (await lti.getPlatform(issuer, clientId)) || undefined;
  }

  return createTokenValidator({
    findPlatform: async (issuer, clientId) => {
      const platform = await findLtijsPlatform(issuer, clientId);
      if (!platform) return undefined;
      return {
        clientId: await platform.platformClientId(),
        platformId: await platform.platformKid(),
        active: await platform.platformActive(),
        authConfig: await platform.platformAuthConfig(),
      };
    },
    keys: createPlatformKeys({ userAgent: options.userAgent, fetch: stores.fetch }),
    loginStates: stores.loginStates,
    deployments: stores.deployments,
    publicUrl: options.publicUrl,
    clockSkewSeconds: options.clockSkewSeconds,
    loginMaxAgeSeconds: LOGIN_MAX_AGE_SECONDS,
  });
}
