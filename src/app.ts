import { fileURLToPath } from 'node:url';
import express, { type Application } from 'express';
import helmet from 'helmet';
import { installationSecret } from './db/app-secrets.js';
import type { Database } from './db/types.js';
import { toolUrl, type Config } from './config.js';
import { createAttemptStore } from './exams/attempts.js';
import { createExamStore } from './exams/store.js';
import { resolveExamForLaunch } from './exams/course-copy.js';
import { createSettingsChangeLog } from './exams/settings/changes.js';
import { createDeepLinkingHandler } from './exams/settings/deep-linking.js';
import { createExamSettingsRoutes } from './exams/settings/routes.js';
import { createExamSettingsService } from './exams/settings/service.js';
import { createCsrf } from './http/csrf.js';
import { errorHandler, notFound, renderRefusal } from './http/error-handler.js';
import { createHostedEndpoints } from './hosted/index.js';
import { createHostedLinks } from './hosted/links.js';
import { createRolePolicy } from './institution/role-policy.js';
import { createInstitutionSettingsStore } from './institution/settings.js';
import { createLaunchLog } from './launches/log.js';
import { createReturnRoutes } from './launches/return-routes.js';
import { createLaunchHandler, createLaunchRoutes } from './launches/routes.js';
import { createLaunchService, type LaunchService } from './launches/service.js';
import type { ToolDescription } from './lti/dynamic-registration.js';
import { createLtiAdapter, LTI_ROUTES, type LtiAdapter } from './lti/provider.js';
import { createRegistrationLinks } from './lti/registration-links.js';
import { createLtiRoutes } from './lti/routes.js';
import type { Logger } from './logger.js';
import { createProctoringClient } from './proctoring/client.js';
import { createSandbox, type Sandbox } from './sandbox/index.js';

export const USER_AGENT = 'proctor-lti/0.1 (+https://github.com/proctor-lti/proctor-lti)';
/**
 * Listen backlog: a class-start burst opens hundreds of connections at once, and Node's default (511)
 * overflowed at 1,000 simultaneous launches (connection resets). The kernel caps it at net.core.somaxconn.
 */
export const LISTEN_BACKLOG = 4096;
const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/dist\/$/, '');

export interface AppDeps {
  config: Config;
  db: Database;
  logger: Logger;
  encryptionKey: string;
}

export interface App {
  app: Application;
  lti: LtiAdapter;
  sandbox?: Sandbox;
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

export async function createApp({ config, db, logger, encryptionKey }: AppDeps): Promise<App> {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxyHops);
  app.set('views', `${ROOT}views`);
  app.set('view engine', 'ejs');

  const baseUrl = toolUrl(config, '');
  const secret = await installationSecret(db, 'pseudonyms');
  const exams = createExamStore(db);
  const attempts = createAttemptStore(db);
  const refuse = renderRefusal(logger);
  const institutions = createInstitutionSettingsStore(db);
  const rolePolicy = createRolePolicy(institutions);
  const hostedLinks = createHostedLinks({ baseUrl, secret: await installationSecret(db, 'hosted-links') });

  // The launch service needs the proctoring client, which needs the sandbox, which needs the LTI adapter.
  const launches: { service?: LaunchService; handle?: ReturnType<typeof createLaunchHandler> } = {};
  const lti = await createLtiAdapter({
    db,
    encryptionKey,
    publicUrl: config.publicUrl,
    sessionMaxAgeSeconds: config.lti.sessionMaxAgeSeconds,
    clockSkewSeconds: config.lti.clockSkewSeconds,
    userAgent: USER_AGENT,
    logger,
    refuse,
    onLaunch: async (launch, req, res) => {
      if (!launches.handle) throw new Error('launch service not ready');
      if (launch.messageType === 'LtiDeepLinkingRequest') {
        await deepLinking.handle(launch, req, res);
        return;
      }
      await hosted.contexts.remember(launch).catch((error: unknown) => logger.warn({ err: error }, 'could not record the course of this launch for its roster'));
      await launches.handle(launch, req, res);
    },
  });

  // Sandbox pages (demo LMS, emulator) are mounted before the tool's security headers: they stand in
  // for other sites and use their own inline scripts.
  const csrf = createCsrf({ secret: encryptionKey, secure: config.publicUrl.protocol === 'https:', sessionIdOf: (req) => lti.sessionIdOf(req) });

  let sandbox: Sandbox | undefined;
  if (config.sandbox) {
    sandbox = await createSandbox({ baseUrl, lti, exams, logger });
    app.use('/sandbox', sandbox.router);
  }

  const proctoringTarget = sandbox
    ? { baseUrl: sandbox.proctoringBaseUrl, credentials: sandbox.credentials }
    : { baseUrl: config.proctoring.baseUrl, credentials: config.proctoring.credentials };
  if (!proctoringTarget.baseUrl || !proctoringTarget.credentials) {
    throw new Error('proctoring service settings missing (PROCTORING_BASE_URL and credentials)');
  }
  const proctoring = createProctoringClient({
    baseUrl: proctoringTarget.baseUrl,
    credentials: proctoringTarget.credentials,
    timeoutMs: config.proctoring.timeoutMs,
    userAgent: USER_AGENT,
  });
  launches.service = createLaunchService({
    exams,
    attempts,
    log: createLaunchLog(db),
    proctoring,
    institutions,
    hostedLinks,
    // `hosted` is built below; this runs at launch time only.
    hasLogo: async (key) => (await hosted.logos.findByKey(key)) !== undefined,
    // Exam settings: a deep-linked link takes its exam over; a copied course gets a copy of the settings.
    resolveExam: (key, title, customExamId) => resolveExamForLaunch(exams, key, title, customExamId, { changes: createSettingsChangeLog(db) }),
    pseudonymSecret: secret,
    baseUrl,
    logger,
  });
  const launchRouteDeps = { service: launches.service, lti, csrf };
  launches.handle = createLaunchHandler(launchRouteDeps);
  lti.sessionRouter.use(createLaunchRoutes(launchRouteDeps));

  // Exam settings and deep linking (issue 6): the settings view and its JSON API, the content picker.
  const sandboxMode = Boolean(sandbox);
  const deepLinking = createDeepLinkingHandler({ lti, db, decide: rolePolicy, csrf, pseudonymSecret: secret, sandbox: sandboxMode, launchUrl: toolUrl(config, LTI_ROUTES.launch) });
  lti.sessionRouter.use(createExamSettingsRoutes({ lti, decide: rolePolicy, service: createExamSettingsService({ db }), csrf, pseudonymSecret: secret, sandbox: sandboxMode, logger }));
  lti.sessionRouter.use(deepLinking.router);
  // End of exam settings and deep linking.

  app.use(
    helmet({
      // LMSs frame the tool: allow any ancestor; everything else stays locked to our own origin.
      frameguard: false,
      crossOriginResourcePolicy: { policy: 'cross-origin' },
      contentSecurityPolicy: {
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'"],
          styleSrc: ["'self'"],
          imgSrc: ["'self'", 'data:', 'https:'],
          formAction: ["'self'", 'https:', ...(config.publicUrl.protocol === 'http:' ? ['http:'] : [])],
          frameAncestors: ['*'],
          upgradeInsecureRequests: config.publicUrl.protocol === 'https:' ? [] : null,
        },
      },
      referrerPolicy: { policy: 'no-referrer' },
    }),
  );
  app.use('/static', express.static(`${ROOT}public`, { maxAge: '1h', index: false }));

  // Hosted endpoints: roster, exam roster, logo and extension allowlist, fetched cross-origin (CORS, no
  // cookies) by the proctoring service's pages. Helmet's Cross-Origin-Resource-Policy is cross-origin.
  const hosted = createHostedEndpoints({ db, config, lti, exams, institutions, links: hostedLinks, pseudonymSecret: secret, logger });
  app.use(hosted.router);

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    try {
      await db.ping();
      res.json({ status: 'ready', database: db.kind });
    } catch {
      res.status(503).json({ status: 'unavailable', database: db.kind });
    }
  });
  app.get('/', (_req, res) => {
    res.render('home', { title: 'Proctored exams', sandbox: Boolean(sandbox), canvasConfigUrl: toolUrl(config, LTI_ROUTES.canvasConfig) });
  });

  app.use(
    createLtiRoutes({
      adapter: lti,
      registrationLinks: createRegistrationLinks(db),
      tool: toolDescription(config),
      userAgent: USER_AGENT,
      logger,
      refuse,
    }),
  );
  lti.mount(app);
  app.use(createReturnRoutes({ attempts, exams, secret }));

  app.use(notFound);
  app.use(errorHandler(logger));

  return {
    app,
    lti,
    sandbox,
    async close() {
      await proctoring.close();
      await lti.close();
    },
  };
}
