import { AsyncLocalStorage } from 'node:async_hooks';
import express, { type Application, type NextFunction, type Request, type Response, type Router } from 'express';
import { decodeJwt } from 'jose';
import ltijs, { type LtijsPlatform, type LtijsProvider } from 'ltijs';
import Auth from 'ltijs/dist/Utils/Auth.js';
import LtijsRequest from 'ltijs/dist/Utils/Request.js';
import type { Database } from '../db/types.js';
import type { Logger } from '../logger.js';
import { launchClaimsSchema, toLaunch, withoutPersonalClaims, type LtiLaunch } from './claims.js';
import type { DeepLinkingResponse, LtiResourceLinkItem } from './deep-linking.js';
import { createDeploymentStore, type DeploymentStore } from './deployments.js';
import { LtiRefusal, refusalFromLtijsMessage, type LtiRefusalCode } from './errors.js';
import { createLoginStateStore, type LoginStateStore } from './login-states.js';
import { createNamesRolesClient, type NamesRolesMember } from './names-roles.js';
import { createPlatformKeys } from './platform-keys.js';
import { LtijsStore } from './store/ltijs-store.js';
import { createTokenValidator, type TokenValidator } from './token-validator.js';

export const LTI_ROUTES = {
  login: '/lti/login',
  launch: '/lti/launch',
  keys: '/lti/keys',
  register: '/lti/register',
  canvasConfig: '/lti/canvas.json',
} as const;

/** How long the LMS may take between our login redirect and its id_token POST. */
const LOGIN_MAX_AGE_SECONDS = 600;
/** How often login states past every session's age, and ltijs documents past their lifetime, are deleted. */
const HOUSEKEEPING_INTERVAL_MS = 15 * 60 * 1000;

export interface LtiAdapterOptions {
  db: Database;
  encryptionKey: string;
  publicUrl: URL;
  sessionMaxAgeSeconds: number;
  clockSkewSeconds: number;
  userAgent: string;
  logger: Logger;
  /** Renders a refused LTI message for a person (status, reason code, detail for the log). */
  refuse(req: Request, res: Response, refusal: LtiRefusal, status: number): void;
  /** A verified resource-link or deep-linking launch (the GET after ltijs's redirect with the ltik). */
  onLaunch(launch: LtiLaunch, req: Request, res: Response): Promise<void>;
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
  deploymentIds: string[];
}

export interface LtiAdapter {
  /**
   * Deletes what no session can use any more: login states (with the launch claims they keep) older than the
   * session age, and ltijs documents past their lifetime. Runs every 15 minutes; returns the counts.
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
  /** The ltik of the current session, to carry in forms and links of session pages. */
  ltikOf(res: Response): string;
  /** The LTI session token a request carries (query, body or Authorization header), '' when none: binds CSRF tokens to the session. */
  sessionIdOf(req: Request): string;
  /** Signs the deep-linking response of the current deep-linking session (LTI Deep Linking 2.0 §4.2). */
  deepLinkingResponse(res: Response, items: LtiResourceLinkItem[], options?: { message?: string }): Promise<DeepLinkingResponse>;
  /** Every member of a context from Names and Roles, all pages; throws NamesRolesError (names-roles.ts). */
  members(platform: { issuer: string; clientId: string }, membershipsUrl: string, options?: { signal?: AbortSignal }): Promise<NamesRolesMember[]>;
  close(): Promise<void>;
}

interface RequestContext {
  state?: string;
  refusal?: LtiRefusal;
}

const requestContext = new AsyncLocalStorage<RequestContext>();
let provider: LtijsProvider | undefined;
let activeValidator: TokenValidator | undefined;
let activeLoginStates: LoginStateStore | undefined;

/**
 * ltijs's token validation and login request builder are replaced once per process by ours: the
 * validator runs the full chain of checks (token-validator.ts) and the login builder records the
 * nonce it generates against the state, which ltijs itself never stores.
 */
function patchLtijsOnce(): void {
  if (provider) return;
  Auth.validateToken = async (idToken, _devMode, validationParameters) => {
    const context = requestContext.getStore();
    if (!activeValidator) throw new Error('LTI validator not initialised');
    try {
      const validated = await activeValidator(idToken, { state: context?.state, cookieIssuer: validationParameters.iss });
      // ltijs stores what this returns (its idtoken and contexttoken documents): nothing that names the person.
      return { ...withoutPersonalClaims(validated.payload), clientId: validated.clientId, platformId: validated.platformId };
    } catch (error) {
      if (context && error instanceof LtiRefusal) context.refusal = error;
      throw error;
    }
  };
  const buildLogin = LtijsRequest.ltiAdvantageLogin.bind(LtijsRequest);
  LtijsRequest.ltiAdvantageLogin = async (request, platform, state) => {
    const query = await buildLogin(request, platform, state);
    if (!activeLoginStates || !query.nonce) throw new Error('LTI login state store not initialised');
    await activeLoginStates.bind({ state, nonce: query.nonce, issuer: String(request.iss), clientId: query.client_id });
    return query;
  };
  provider = ltijs.Provider;
}

export async function createLtiAdapter(options: LtiAdapterOptions): Promise<LtiAdapter> {
  patchLtijsOnce();
  const lti = provider as LtijsProvider;
  const secure = options.publicUrl.protocol === 'https:';
  const loginStates = createLoginStateStore(options.db);
  const deployments = createDeploymentStore(options.db);
  activeLoginStates = loginStates;

  // ltik sessions never expire in ltijs: bound their age before ltijs accepts them.
  const boundSessionAge = (req: Request, res: Response, next: NextFunction) => {
    const ltik = ltikFromRequest(req);
    if (ltik) {
      let issuedAt: number | undefined;
      try {
        issuedAt = decodeJwt(ltik).iat;
      } catch {
        issuedAt = undefined;
      }
      if (issuedAt === undefined || (issuedAt + options.sessionMaxAgeSeconds) * 1000 < Date.now()) {
        options.refuse(req, res, new LtiRefusal('session_expired', 'LTI session older than its maximum age'), 401);
        return;
      }
    }
    next();
  };

  const store = new LtijsStore(options.db);
  lti.setup(
    options.encryptionKey,
    { plugin: store },
    {
      appRoute: '/launch',
      loginRoute: '/login',
      keysetRoute: '/keys',
      dynRegRoute: '/register',
      cors: false,
      tokenMaxAge: false,
      // An LMS frames the tool from another site: cookies must be SameSite=None; Secure over https.
      // Plain http (local sandbox) cannot carry Secure cookies, so Lax there.
      cookies: secure ? { secure: true, sameSite: 'None' } : { secure: false, sameSite: 'Lax' },
      // Runs inside ltijs's app after its body parsing, before its session check.
      serverAddon: (app) => {
        app.use(boundSessionAge);
        app.use((req: Request, _res: Response, next: NextFunction) => {
          const body = req.body as Record<string, unknown> | undefined;
          requestContext.run({ state: typeof body?.state === 'string' ? body.state : undefined }, next);
        });
      },
    },
  );

  async function findLtijsPlatform(issuer: string, clientId: string): Promise<LtijsPlatform | undefined> {
    return (await lti.getPlatform(issuer, clientId)) || undefined;
  }

  activeValidator = createTokenValidator({
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
    keys: createPlatformKeys({ userAgent: options.userAgent }),
    loginStates,
    deployments,
    publicUrl: options.publicUrl,
    clockSkewSeconds: options.clockSkewSeconds,
    loginMaxAgeSeconds: LOGIN_MAX_AGE_SECONDS,
  });

  const refuseFromLtijs = (status: number, fallback: LtiRefusalCode) => (req: Request, res: Response) => {
    const context = requestContext.getStore();
    const details = (res.locals.err as { details?: { message?: string } } | undefined)?.details;
    const refusal =
      context?.refusal ??
      new LtiRefusal(details?.message ? refusalFromLtijsMessage(details.message) : fallback, details?.message ?? fallback);
    options.refuse(req, res, refusal, status);
  };
  lti.onInvalidToken(refuseFromLtijs(401, 'invalid_token'));
  lti.onSessionTimeout(refuseFromLtijs(401, 'session_expired'));
  lti.onUnregisteredPlatform((req, res) =>
    options.refuse(req, res, new LtiRefusal('unregistered_platform', `login from unregistered issuer ${String(req.body?.iss ?? req.query.iss)}`), 400),
  );
  lti.onInactivePlatform((req, res) => options.refuse(req, res, new LtiRefusal('inactive_platform', 'platform not activated'), 401));

  function ltikOf(res: Response): string {
    const ltik: unknown = res.locals.ltik;
    if (typeof ltik !== 'string') throw new LtiRefusal('session_expired', 'no LTI session on this request');
    return ltik;
  }

  async function launchOf(res: Response): Promise<LtiLaunch> {
    const ltik = decodeJwt(ltikOf(res));
    const state = typeof ltik.s === 'string' ? ltik.s : undefined;
    const clientId = typeof ltik.clientId === 'string' ? ltik.clientId : undefined;
    if (!state || !clientId) throw new LtiRefusal('session_expired', 'the session token carries no launch');
    const stored = await loginStates.claims(state, options.sessionMaxAgeSeconds);
    if (!stored) throw new LtiRefusal('session_expired', 'the launch behind this session has expired');
    return toLaunch(launchClaimsSchema.parse(stored), clientId);
  }

  lti.onConnect(async (_token, req, res, next) => {
    try {
      await options.onLaunch(await launchOf(res), req, res);
    } catch (error) {
      next(error);
    }
  });
  lti.onDeepLinking(async (_token, req, res, next) => {
    try {
      await options.onLaunch(await launchOf(res), req, res);
    } catch (error) {
      next(error);
    }
  });

  // Fails here, with a non-zero exit from the caller, rather than inside ltijs's deploy() which exits 0.
  await options.db.ping();
  await lti.deploy({ serverless: true, silent: true });

  const sessionRouter = express.Router();
  lti.app.use(sessionRouter);

  async function housekeeping() {
    const loginStatesDeleted = await loginStates.purge(Math.max(options.sessionMaxAgeSeconds, LOGIN_MAX_AGE_SECONDS) + options.clockSkewSeconds);
    const ltijsDocuments = await store.purgeExpired();
    return { loginStates: loginStatesDeleted, ltijsDocuments };
  }
  const housekeepingTimer = setInterval(() => {
    housekeeping().catch((error: unknown) => options.logger.warn({ err: error }, 'LTI housekeeping failed'));
  }, HOUSEKEEPING_INTERVAL_MS);
  housekeepingTimer.unref();

  return {
    housekeeping,
    mount(app) {
      app.use('/lti', lti.app);
    },
    sessionRouter,
    deployments,
    launchOf,
    ltikOf,
    sessionIdOf: (req) => ltikFromRequest(req) ?? '',
    async deepLinkingResponse(res, items, responseOptions) {
      const token = res.locals.token as
        | { platformContext?: { deepLinkingSettings?: { deep_link_return_url?: unknown; accept_presentation_document_targets?: unknown } } }
        | undefined;
      const settings = token?.platformContext?.deepLinkingSettings;
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
    },
    members: createNamesRolesClient({ provider: lti, encryptionKey: options.encryptionKey, userAgent: options.userAgent }).members,
    platforms: {
      async register(input) {
        const authConfig =
          'jwksUrl' in input.key
            ? { method: 'JWK_SET' as const, key: input.key.jwksUrl }
            : 'jwk' in input.key
              ? { method: 'JWK_KEY' as const, key: input.key.jwk }
              : { method: 'RSA_KEY' as const, key: input.key.publicKeyPem };
        await lti.registerPlatform({
          url: input.issuer,
          clientId: input.clientId,
          name: input.name ?? new URL(input.issuer).host,
          authenticationEndpoint: input.authUrl,
          accesstokenEndpoint: input.tokenUrl,
          authorizationServer: input.authorizationServer,
          authConfig,
        });
        for (const deploymentId of input.deploymentIds) await deployments.add(input.issuer, input.clientId, deploymentId);
      },
      async list() {
        const platforms = await lti.getAllPlatforms();
        return Promise.all(
          platforms.map(async (platform) => {
            const issuer = await platform.platformUrl();
            const clientId = await platform.platformClientId();
            return {
              issuer,
              clientId,
              name: await platform.platformName(),
              active: await platform.platformActive(),
              authUrl: await platform.platformAuthEndpoint(),
              tokenUrl: await platform.platformAccessTokenEndpoint(),
              keyMethod: (await platform.platformAuthConfig()).method,
              deploymentIds: await deployments.list(issuer, clientId),
            };
          }),
        );
      },
      async remove(issuer, clientId) {
        const platform = await findLtijsPlatform(issuer, clientId);
        await deployments.removeAll(issuer, clientId);
        if (!platform) return false;
        await lti.deletePlatform(issuer, clientId);
        return true;
      },
      async setActive(issuer, clientId, active) {
        const platform = await findLtijsPlatform(issuer, clientId);
        if (!platform) throw new Error(`no platform ${issuer} with client id ${clientId}`);
        await platform.platformActive(active);
      },
    },
    async close() {
      // ltijs's close() also closes the store; the caller owns and closes the database.
      clearInterval(housekeepingTimer);
      activeValidator = undefined;
    },
  };
}

function ltikFromRequest(req: Request): string | undefined {
  const query = req.query.ltik;
  if (typeof query === 'string') return query;
  const body = req.body as Record<string, unknown> | undefined;
  if (typeof body?.ltik === 'string') return body.ltik;
  const header = req.get('authorization');
  const match = header?.match(/^(?:Bearer |LTIK-AUTH-V1 Token=)([^,\s]+)/);
  return match?.[1];
}
