import { fileURLToPath } from 'node:url';
import express, { type Application } from 'express';
import helmet from 'helmet';
import { installationSecret } from './db/app-secrets.js';
import type { Database } from './db/types.js';
import { toolUrl, type Config } from './config.js';
import { createAttemptStore } from './exams/attempts.js';
import { createExamStore } from './exams/store.js';
import { errorHandler, notFound, renderRefusal } from './http/error-handler.js';
import { createLaunchLog } from './launches/log.js';
import { createReturnRoutes } from './launches/return-routes.js';
import { createLaunchService, type ProctoringLaunches } from './launches/service.js';
import type { ToolDescription } from './lti/dynamic-registration.js';
import { createLtiAdapter, LTI_ROUTES, type LtiAdapter } from './lti/provider.js';
import { createRegistrationLinks } from './lti/registration-links.js';
import { createLtiRoutes } from './lti/routes.js';
import type { Logger } from './logger.js';
import { createProctoringClient } from './proctoring/client.js';
import { createSandbox, type Sandbox } from './sandbox/index.js';

export const USER_AGENT = 'proctor-lti/0.1 (+https://github.com/proctor-lti/proctor-lti)';
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

  // The launch service needs the proctoring client, which needs the sandbox, which needs the LTI adapter.
  const launches: { service?: ReturnType<typeof createLaunchService> } = {};
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
      if (!launches.service) throw new Error('launch service not ready');
      await launches.service.handle(launch, req, res);
    },
  });

  // Sandbox pages (demo LMS, emulator) are mounted before the tool's security headers: they stand in
  // for other sites and use their own inline scripts.
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
    proctoring: proctoring as unknown as ProctoringLaunches,
    pseudonymSecret: secret,
    baseUrl,
    logger,
  });

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
  app.use(createReturnRoutes({ attempts, secret }));

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
