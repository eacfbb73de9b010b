import { fileURLToPath } from 'node:url';
import express, { type Express, type Application, type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import { createAdminConsole } from './admin/index.js';
import { createAuditLog } from './admin/audit.js';
import type { Database } from './db/types.js';
import { toolUrl, type Config } from './config.js';
import { createAttemptStore } from './exams/attempts.js';
import { createExamStore } from './exams/store.js';
import { resolveExamForLaunch } from './exams/course-copy.js';
import { createSettingsChangeLog } from './exams/settings/changes.js';
import { createDeepLinkingHandler } from './exams/settings/deep-linking.js';
import { createLmsPresetCatalog } from './exams/settings/presets/lms.js';
import { createExamSettingsRoutes } from './exams/settings/routes.js';
import { createExamSettingsService } from './exams/settings/service.js';
import { createCsrf, type Csrf } from './http/csrf.js';
import { errorHandler, notFound } from './http/error-handler.js';
import { createHealthRoutes } from './http/health-routes.js';
import { createRateLimits } from './http/rate-limits.js';
import { metricsRoute } from './http/metrics-route.js';
import { responseMetrics } from './http/response-metrics.js';
import { scheduleRetention, type RetentionSchedule } from './retention/schedule.js';
import { requestIds, requestLogger } from './http/request-id.js';
import { securityHeaders } from './http/security-headers.js';
import { initI18n } from './i18n/index.js';
import { i18nMiddleware, launchLocale, translatorOf, useLocale } from './i18n/middleware.js';
import { createHostedEndpoints, type HostedEndpoints } from './hosted/index.js';
import { createHostedLinks, type HostedLinks } from './hosted/links.js';
import { createRolePolicy } from './institution/role-policy.js';
import { createCourseStaffStore, withStaffChanges } from './institution/course-staff.js';
import { createInstitutionSettingsStore } from './institution/settings.js';
import { createLaunchLog, type LaunchLog } from './launches/log.js';
import { createReturnRoutes } from './launches/return-routes.js';
import { createAssessmentRoutes } from './launches/assessment-routes.js';
import { createAssessmentHandoffStore, type AssessmentHandoffStore } from './launches/assessment-handoffs.js';
import { createLaunchHandler, createLaunchRoutes, createNoticeContinue, LAUNCH_PATHS } from './launches/routes.js';
import { createLaunchService } from './launches/service.js';
import { createPrivacyNoticeStore } from './launches/privacy-notices.js';
import { createConfiguredLtiAdapter } from './lti/configured-adapter.js';
import type { ToolDescription } from './lti/dynamic-registration.js';
import { LTI_ROUTES, type LtiAdapter, type LtiHandlers } from './lti/provider.js';
import { createPlatformActivity, type PlatformActivity } from './lti/platform-activity.js';
import { createRefusedRegistrations } from './lti/refused-registrations.js';
import { refusalAnswer, renderRefusal } from './lti/refusal-page.js';
import { createRegistrationLinks } from './lti/registration-links.js';
import { createLtiRoutes } from './lti/routes.js';
import type { Logger } from './logger.js';
import { watchChanges } from './db/change-notices.js';
import { createSetupChecklistStore } from './admin/setup-checklist.js';
import { deriveExamTag, deriveSectionId, deriveUserId, type PseudonymKeyring, type PseudonymSecret } from './lti/identifiers.js';
import { createAccountClients, type AccountClients } from './proctoring/account-clients.js';
import { createAccountStore, type ProctoringAccountStore } from './proctoring/accounts.js';
import { createAppSecrets } from './db/app-secrets.js';
import { verifyEncryptionKeys } from './lti/encryption-check.js';
import { loadPseudonymKeys } from './lti/pseudonym-keys.js';
import { createSecretBox, type SecretBox } from './secrets/secret-box.js';
import type { Sandbox } from './sandbox/index.js';
import { DEFAULT_ACCOUNT_REF, proctoringAccounts } from './webhooks/accounts.js';
import { createExamResults } from './webhooks/exam-results.js';
import { createCourseNames } from './hosted/course-names.js';
import { createAccommodationStore } from './exams/accommodations/store.js';
import { createAccommodationRoutes } from './launches/accommodation-routes.js';
import { createResumeRoutes } from './launches/resume-routes.js';
import { createProctorRoutes } from './launches/proctor-routes.js';
import { createWebhooks, type Webhooks } from './webhooks/index.js';
import { RECEIVER_PATH } from './webhooks/subscriptions.js';

import { warnWithoutForwardedFor } from './http/forwarded-check.js';
import { USER_AGENT } from './user-agent.js';

export { USER_AGENT };
/**
 * Listen backlog: a class-start burst opens hundreds of connections at once, and Node's default (511)
 * overflowed at 1,000 simultaneous launches (connection resets). The kernel caps it at net.core.somaxconn.
 */
export const LISTEN_BACKLOG = 4096;
/** The shortest deployment id that names one LMS's deployment (Canvas's `123:4f5e…`), not a counter. */
const DISTINCTIVE_DEPLOYMENT_ID = 8;
const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/dist\/$/, '');

export interface AppDeps {
  config: Config;
  db: Database;
  logger: Logger;
  /** The newest key of ENCRYPTION_KEY. */
  encryptionKey: string;
  /** ENCRYPTION_KEY's older keys during a rotation: what they encrypted still decrypts. */
  olderEncryptionKeys?: readonly string[];
  /** The clock exam availability is decided by (tests set it; default: the system clock). */
  now?: () => Date;
  /** Every login and launch through ltijs's own routes (tests compare them with the tool's). */
  launchesThroughLtijs?: boolean;
}

export interface App {
  app: Express;
  lti: LtiAdapter;
  sandbox?: Sandbox;
  /** Proctoring accounts of platforms that do not use the environment's, and their clients. */
  accounts: ProctoringAccountStore;
  accountClients: AccountClients;
  secretBox: SecretBox;
  webhooks: Webhooks;
  /** Work that needs the server listening: in sandbox mode, subscribing the tool's receiver at the emulator. */
  afterListen(): Promise<void>;
  /** The scheduled retention prune (docs/retention.md). */
  retention: RetentionSchedule;
  /** Resolves once the launch records of the launches answered so far are written (they follow the answer). */
  launchesRecorded(): Promise<void>;
  /**
   * The shutdown deadline cut the connections of the requests still in flight: launches still running stop
   * without answering, recording or logging. Resolves once the launches answered before are recorded.
   */
  abandonInFlight(): Promise<void>;
  close(): Promise<void>;
}

export function toolDescription(config: Config): ToolDescription {
  return {
    name: 'Proctored exams',
    description: 'Online proctoring for quizzes and exams in your course.',
    publicUrl: config.publicUrl,
    loginUrl: toolUrl(config, LTI_ROUTES.login),
    launchUrl: toolUrl(config, LTI_ROUTES.launch),
    jwksUrl: toolUrl(config, LTI_ROUTES.keys),
  };
}

/**
 * The composition root: every store and service is built once, here, and handed to what uses it; the
 * sandbox (demo LMS and Launch API emulator) is loaded only in sandbox mode.
 */
export async function createApp(deps: AppDeps): Promise<App> {
  const { config, db, logger } = deps;
  // Every language's messages, read once: a broken catalog stops the start-up rather than a page.
  initI18n();
  const encryptionKeys = [deps.encryptionKey, ...(deps.olderEncryptionKeys ?? [])];
  const baseUrl = toolUrl(config, '');
  // A replica whose ENCRYPTION_KEY does not open this database's data stops here, before it serves anything.
  await verifyEncryptionKeys(db, encryptionKeys);
  const secretBox = createSecretBox(encryptionKeys);
  const appSecrets = createAppSecrets(db, secretBox);
  const secret = await loadPseudonymKeys(db, appSecrets, logger);
  // Changes other processes make to platforms, accounts and settings reach this process's caches at once.
  const stopWatchingChanges = watchChanges(db, logger);
  const handleError = errorHandler(logger, [refusalAnswer(logger)]);
  const lti = await createConfiguredLtiAdapter({ config, db, logger, encryptionKeys, launchesThroughLtijs: deps.launchesThroughLtijs, fail: (error, req, res) => handleError(error, req, res, () => undefined) });
  const exams = createExamStore(db);
  const institutions = createInstitutionSettingsStore(db);
  const sandbox = config.sandbox ? await (await import('./sandbox/index.js')).createSandbox({ baseUrl, lti, exams, institutions, logger }) : undefined;
  const proctoring = await createProctoring({ config, db, logger, baseUrl, secret, secretBox, sandbox });
  const csrf = createCsrf({ secret: encryptionKeys, secure: config.publicUrl.protocol === 'https:', sessionIdOf: (req) => lti.sessionIdOf(req) });
  const hostedLinks = createHostedLinks({ baseUrl, keys: (fresh) => appSecrets.versions('hosted-links', fresh) });
  const hosted = createHostedEndpoints({ db, config, lti, exams, institutions, links: hostedLinks, pseudonymSecret: secret, logger });
  const features = { exams, institutions, hosted, hostedLinks, csrf, lmsPresets: createLmsPresetCatalog(sandbox?.lmsPresets) };
  const launchLog = createLaunchLog(db);
  let abandoned = false;
  const retention = scheduleRetention({ db, settings: config.retention, audit: createAuditLog(db), logger });
  const handoffs = createAssessmentHandoffStore(db);
  const handleLaunch = mountSessionRoutes({ config, db, logger, lti, secret, proctoring, launchLog, abandoned: () => abandoned, now: deps.now, handoffs, ...features });

  // Launches refused for an unknown client id or deployment of a registered issuer, and each platform's
  // last launch and roles seen: for the admin console.
  const refusedRegistrations = createRefusedRegistrations(db, async ({ issuer, clientId, deploymentId }) => {
    const platforms = await lti.platforms.list();
    if (platforms.some((p) => p.issuer === issuer)) return { known: true };
    // An LMS at a new address keeps its tool registration: the same client id (or deployment id) under a new
    // issuer. A short deployment id says nothing: Moodle numbers its deployments 1, 2, … on every site.
    const distinctive = deploymentId !== undefined && deploymentId.length >= DISTINCTIVE_DEPLOYMENT_ID ? deploymentId : undefined;
    const like = platforms.find((p) => p.clientId === clientId) ?? (distinctive === undefined ? undefined : platforms.find((p) => p.deploymentIds.includes(distinctive)));
    return { known: false, looksLike: like && { issuer: like.issuer, clientId: like.clientId } };
  });
  const platformActivity = createPlatformActivity(db);
  const refuse = renderRefusal(logger, { onRefusedRegistration: (registration, code, incidentId) => refusedRegistrations.record(registration, code, incidentId) });
  lti.handle({ refuse, launch: dispatchLaunches({ platformActivity, hosted, handleLaunch, pseudonyms: secret, logger }) });

  const app = express();
  configureExpress(app, config, logger);
  // Sandbox pages (demo LMS, emulator) and the webhook receiver come before the tool's security headers:
  // the sandbox's pages stand in for other sites and use their own inline scripts.
  if (sandbox) app.use('/sandbox', sandbox.router);
  const limits = createRateLimits(config);
  app.use(RECEIVER_PATH, limits.webhooks);
  app.use(proctoring.webhooks.router);
  // The tool's pages in the user's language (the sandbox's stay English, above).
  app.use(i18nMiddleware());
  app.use(securityHeaders(config));
  app.use('/static', express.static(`${ROOT}public`, { maxAge: '1h', index: false }));
  // Browsers ask for /favicon.ico whatever the page names; answer with the same icon.
  app.get('/favicon.ico', (_req, res) => {
    res.type('image/svg+xml').sendFile(`${ROOT}public/favicon.svg`, { maxAge: '1d' });
  });
  mountRateLimits(app, limits);
  // The LTI routes first: logins and launches, the busiest requests, pass no other route on the way.
  const setupChecklists = createSetupChecklistStore(db);
  app.use(
    createLtiRoutes({
      adapter: lti,
      registrationLinks: createRegistrationLinks(db),
      tool: toolDescription(config),
      userAgent: USER_AGENT,
      allowLoopbackRegistration: config.env !== 'production',
      logger,
      refuse,
      registered: (platform, productFamily) => setupChecklists.noteRegistered(platform.issuer, platform.clientId, productFamily),
    }),
  );
  // Back and reload of a staff page load its address by GET: answered before the session check (no token in a URL).
  app.use(createResumeRoutes());
  lti.mount(app);
  // Hosted endpoints: roster, exam roster, logo and extension allowlist, fetched cross-origin (CORS, no
  // cookies) by the proctoring service's pages. Helmet's Cross-Origin-Resource-Policy is cross-origin.
  app.use(hosted.router);
  app.get('/metrics', metricsRoute(config.metricsToken));
  // The admin console (its own headers: never framed, SameSite=Strict cookies).
  app.use('/admin', createAdminConsole({ config, db, lti, logger, secret: encryptionKeys, refusedRegistrations, platformActivity, institutions, contexts: hosted.contexts, accounts: proctoring.accounts, accountClients: proctoring.accountClients, webhooks: proctoring.webhooks.subscriptions, pseudonyms: secret }).router);
  app.use(createHealthRoutes(db));
  app.get('/', (req, res) => {
    res.render('home', { title: translatorOf(req, res).t('common:home.title'), sandbox: Boolean(sandbox), canvasConfigUrl: toolUrl(config, LTI_ROUTES.canvasConfig) });
  });
  app.use(createReturnRoutes({ attempts: proctoring.attempts, exams, secret }));
  app.use(createAssessmentRoutes({ handoffs, sign: (platform, claims) => lti.signToolMessage(platform, claims), logger }));
  app.use(notFound);
  app.use(handleError satisfies ErrorRequestHandler);

  return {
    app,
    lti,
    sandbox,
    accounts: proctoring.accounts,
    accountClients: proctoring.accountClients,
    secretBox: proctoring.secretBox,
    webhooks: proctoring.webhooks,
    afterListen: () => (sandbox ? subscribeAtEmulator(proctoring.webhooks, logger) : Promise.resolve()),
    retention,
    launchesRecorded: () => launchLog.settled(),
    abandonInFlight() {
      abandoned = true;
      return launchLog.settled();
    },
    async close() {
      await retention.stop();
      await launchLog.settled();
      await stopWatchingChanges();
      await proctoring.accountClients.close();
      await lti.close();
    },
  };
}

function configureExpress(app: Application, config: Config, logger: Logger): void {
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxyHops);
  app.set('views', `${ROOT}views`);
  app.set('view engine', 'ejs');
  app.use(requestIds({ trustForwardedId: config.trustProxyHops > 0 }));
  app.use(responseMetrics);
  if (config.trustProxyHops > 0) app.use(warnWithoutForwardedFor({ trustProxyHops: config.trustProxyHops, logger }));
}

/** Per-client limits on what anyone may call without a session (src/http/rate-limits.ts). */
function mountRateLimits(app: Application, limits: ReturnType<typeof createRateLimits>): void {
  app.use(LTI_ROUTES.login, limits.login);
  app.use(LTI_ROUTES.launch, limits.launch);
  app.use(LTI_ROUTES.register, limits.register);
  app.use('/hosted', limits.hosted);
}

interface ProctoringDeps {
  config: Config;
  db: Database;
  logger: Logger;
  baseUrl: string;
  secret: PseudonymSecret;
  secretBox: SecretBox;
  sandbox: Sandbox | undefined;
}

/** The proctoring service: its accounts and their clients, the attempts launched, and the webhooks it sends. */
async function createProctoring({ config, db, logger, baseUrl, secret, secretBox, sandbox }: ProctoringDeps) {
  const target = sandbox
    ? { baseUrl: sandbox.proctoringBaseUrl, region: sandbox.region, credentials: sandbox.credentials }
    : { baseUrl: config.proctoring.baseUrl, region: config.proctoring.region, credentials: config.proctoring.credentials };
  if (!target.baseUrl || !target.credentials) {
    throw new Error('proctoring service settings missing (PROCTORING_BASE_URL and credentials)');
  }
  const accounts = createAccountStore(db, secretBox);
  const accountClients = createAccountClients({
    accounts,
    defaultTarget: { baseUrl: target.baseUrl, region: target.region, credentials: target.credentials },
    timeoutMs: config.proctoring.timeoutMs,
    userAgent: USER_AGENT,
  });
  // Webhooks: subscriptions of the tool's receiver and the suspicion results it stores.
  const webhooks = createWebhooks({
    db,
    accounts: proctoringAccounts({
      store: accounts,
      clients: accountClients,
      defaultAccount: { label: sandbox ? 'Sandbox account (emulator)' : 'Default account (PROCTORING_* settings)', credentials: target.credentials },
    }),
    baseUrl,
    examTagOf: (issuer, deploymentId, resourceLinkId) => deriveExamTag(secret, issuer, deploymentId, resourceLinkId),
    logger,
  });
  const defaultClient = await accountClients.forAccount('default');
  return { accounts, accountClients, defaultClient, secretBox, webhooks, attempts: createAttemptStore(db) };
}

type Proctoring = Awaited<ReturnType<typeof createProctoring>>;

interface SessionRoutesDeps {
  /** LTI Proctoring Services' hand-offs (the launch stores them, the hand-off page uses them). */
  handoffs: AssessmentHandoffStore;
  config: Config;
  db: Database;
  logger: Logger;
  lti: LtiAdapter;
  secret: PseudonymSecret;
  proctoring: Proctoring;
  exams: ReturnType<typeof createExamStore>;
  institutions: ReturnType<typeof createInstitutionSettingsStore>;
  hosted: HostedEndpoints;
  hostedLinks: HostedLinks;
  csrf: Csrf;
  lmsPresets: ReturnType<typeof createLmsPresetCatalog>;
  launchLog: LaunchLog;
  abandoned: () => boolean;
  now?: () => Date;
}

/**
 * The pages and APIs behind an LTI session (launch hub, exam settings, deep linking), mounted on the
 * adapter's session router; returns what answers a launch.
 */
function mountSessionRoutes(deps: SessionRoutesDeps) {
  const { config, db, logger, lti, secret, proctoring, exams, hosted, csrf, lmsPresets, launchLog } = deps;
  const changes = createSettingsChangeLog(db);
  const names = createCourseNames({ roster: hosted.roster, sectionIdOf: (exam) => deriveSectionId(secret, exam.issuer, exam.deploymentId, exam.contextId), logger });
  // A change of a course's staff list makes its cached roster stale: staff are never in it.
  const courseStaff = withStaffChanges(createCourseStaffStore(db), (course) => hosted.roster.forget(deriveSectionId(secret, course.issuer, course.deploymentId, course.contextId)));
  const rolePolicy = createRolePolicy({
    institutions: deps.institutions,
    courseStaff,
    userIdOf: (launch) => deriveUserId(secret, launch.issuer, launch.userSub),
    // How the course's (cached) Names and Roles roster lists the person; no roster: undefined.
    listing: async (launch) => {
      if (!launch.context) return undefined;
      const course = await names({ id: '', issuer: launch.issuer, deploymentId: launch.deploymentId, contextId: launch.context.id }, logger);
      const userId = deriveUserId(secret, launch.issuer, launch.userSub);
      if (course.staff?.has(userId)) return 'staff';
      return course.names?.has(userId) || course.candidates?.has(userId) ? 'learner' : undefined;
    },
  });
  const examResults = createExamResults({ attempts: proctoring.attempts, store: proctoring.webhooks.store, names });
  const accommodations = createAccommodationStore(db);
  const service = createLaunchService({
    exams,
    attempts: proctoring.attempts,
    log: launchLog,
    abandoned: deps.abandoned,
    proctoring: proctoring.defaultClient,
    proctoringFor: (platform) => proctoring.accountClients.forPlatform(platform),
    proctoringAccountFor: async (platform) => {
      const { accountId } = await proctoring.accounts.accountOf(platform);
      return { accountRef: accountId, client: await proctoring.accountClients.forAccount(accountId) };
    },
    institutions: deps.institutions,
    rolePolicy,
    courseStaff,
    hostedLinks: deps.hostedLinks,
    hasLogo: async (key) => (await hosted.logos.findByKey(key)) !== undefined,
    // Results of the webhook deliveries, with names from the same cached roster as the hosted endpoint.
    examResults,
    accommodations,
    names,
    // Exam settings: a deep-linked link takes its exam over; a copied course gets a copy of the settings.
    resolveExam: (key, title, customExamId) => resolveExamForLaunch(exams, key, title, customExamId, { changes, accommodations }),
    pseudonymSecret: secret,
    baseUrl: toolUrl(config, ''),
    now: deps.now,
    logger,
    handoffs: deps.handoffs,
    privacyNotices: createPrivacyNoticeStore(db),
  });
  const launchRouteDeps = { service, lti, csrf, logger, secureCookies: config.publicUrl.protocol === 'https:' };
  const deepLinking = createDeepLinkingHandler({ lti, db, decide: rolePolicy, csrf, pseudonymSecret: secret, lmsPresets, launchUrl: toolUrl(config, LTI_ROUTES.launch) });
  // Every page of a session derives its ids as the database says now (a platform moved by another replica).
  const confirmPseudonyms: RequestHandler = async (_req, res, next) => {
    // A session that cannot be read is refused by its route, as before.
    const launch = typeof res.locals.ltik === 'string' && typeof secret !== 'string' ? await lti.launchOf(res).catch(() => undefined) : undefined;
    if (launch && typeof secret !== 'string') await secret.confirm(launch.issuer);
    next();
  };
  // Every page of a session speaks the language the LMS launched it in.
  const sessionLocale = launchLocale(async (res) => (typeof res.locals.ltik === 'string' ? (await lti.launchOf(res)).locale : undefined));
  lti.sessionRouter.use(confirmPseudonyms, sessionLocale);
  lti.postWithLaunchToken(LAUNCH_PATHS.noticeContinue, confirmPseudonyms, sessionLocale, createNoticeContinue(launchRouteDeps));
  lti.sessionRouter.use(createLaunchRoutes(launchRouteDeps));
  lti.sessionRouter.use(createAccommodationRoutes(launchRouteDeps));
  lti.sessionRouter.use(createProctorRoutes({ ...launchRouteDeps, courseStaff }));
  lti.sessionRouter.use(createExamSettingsRoutes({ lti, decide: rolePolicy, service: createExamSettingsService({ db, exams, changes }), csrf, pseudonymSecret: secret, lmsPresets, names, accommodations, logger }));
  lti.sessionRouter.use(deepLinking.router);
  return { resourceLink: createLaunchHandler(launchRouteDeps), deepLinking: deepLinking.handle };
}

/** Every verified launch: noted for the admin console and the roster, then answered by its kind of message. */
function dispatchLaunches(deps: {
  platformActivity: PlatformActivity;
  hosted: HostedEndpoints;
  handleLaunch: ReturnType<typeof mountSessionRoutes>;
  pseudonyms: Pick<PseudonymKeyring, 'confirm'>;
  logger: Logger;
}): LtiHandlers['launch'] {
  const { platformActivity, hosted, handleLaunch, pseudonyms, logger } = deps;
  return async (launch, req: Request, res: Response) => {
    // A platform another replica moved a moment ago: its ids are derived as the old issuer's from now on.
    await pseudonyms.confirm(launch.issuer);
    useLocale(req, res, [launch.locale]);
    const log = requestLogger(logger, req);
    await platformActivity.remember(launch.issuer, launch.clientId, launch.roles).catch((error: unknown) => log.warn({ err: error }, 'could not record the platform activity of this launch'));
    if (launch.messageType === 'LtiDeepLinkingRequest') {
      await handleLaunch.deepLinking(launch, req, res);
      return;
    }
    await hosted.contexts.remember(launch).catch((error: unknown) => log.warn({ err: error }, 'could not record the course of this launch for its roster'));
    await handleLaunch.resourceLink(launch, req, res);
  };
}

/** Sandbox mode: the tool's webhook receiver subscribes at the emulator once the server listens. */
async function subscribeAtEmulator(webhooks: Webhooks, logger: Logger): Promise<void> {
  try {
    const subscription = await webhooks.subscriptions.ensureSubscribed(DEFAULT_ACCOUNT_REF);
    logger.info({ subscription: subscription.id, version: subscription.version }, 'sandbox: webhook receiver subscribed at the emulator');
  } catch (error) {
    logger.warn({ err: error }, 'sandbox: could not subscribe the webhook receiver at the emulator');
  }
}
