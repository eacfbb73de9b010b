import { createHash } from 'node:crypto';
import cookieParser from 'cookie-parser';
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import helmet from 'helmet';
import { toolUrl } from '../config.js';
import { z } from 'zod';
import { signedCookie } from '../http/cookies.js';
import { createCsrf, type Csrf } from '../http/csrf.js';
import { bodyFields, parseBody, textField } from '../http/request-input.js';
import { requestLogger } from '../http/request-id.js';
import { countRateLimited, registerRateLimiter } from '../metrics.js';
import { createAuditLog, type AuditLog } from './audit.js';
import { textOf, translatorOf, viewHelpers } from './i18n.js';
import { ADMIN_PAGES } from './pages/index.js';
import { HASH_PASSWORD_COMMAND, verifyPassword } from '../secrets/password.js';
import type { AdminContext, AdminPageModule, AdminServices } from './registry.js';
import { adminSessionOf, createAdminSessionStore, DEFAULT_SESSION_LIMITS, setAdminSession, type AdminSessionLimits } from './sessions.js';
import { consoleForms, signInForm } from './bodies.js';
import { createSignInGuard, createSignInLockouts, DEFAULT_SIGN_IN_LIMITS, EVERYONE, type SignInLimits, type SignInLock } from './sign-in-limits.js';
import { clientKeyOf } from '../http/rate-limits.js';
import { dataForPage } from '../text/control-characters.js';

export const ADMIN_BASE = '/admin';
/** The sign-in lock-out as a rate limiter of `proctor_lti_rate_limited_requests_total`. */
const ADMIN_SIGN_IN_LIMITER = 'admin-sign-in';

export interface AdminConsoleDeps extends AdminServices {
  /** Server secret (ENCRYPTION_KEY's keys, newest first): the newest signs the session cookie and CSRF tokens, each verifies them. */
  secret: string | readonly string[];
  pages?: readonly AdminPageModule[];
  sessionLimits?: AdminSessionLimits;
  signInLimits?: SignInLimits;
}

export interface AdminConsole {
  router: Router;
  audit: AuditLog;
}

/** Where a signed-in page may send the administrator back to: only console paths of this site. */
/** The console's notice after a change (`?done=…`); anything but one word shows none. */
const DONE_NOTICE = z.object({ done: z.string().optional().catch(undefined) });
/** Where to go after signing in, and whether the last session had expired. */
const SIGN_IN_QUERY = z.object({ next: z.unknown().optional(), expired: z.unknown().optional() });
const SIGN_IN_FORM = z.object({ password: textField, next: z.unknown().optional() });

function safeNext(value: unknown): string {
  return typeof value === 'string' && /^\/admin(?:\/[\w\-/.%?=&]*)?$/.test(value) && !value.includes('//') ? value : ADMIN_BASE;
}

/** Never framed, scripts and styles from this site only, nothing cached, the console's error detail shown. */
function consoleHeaders(secure: boolean): RequestHandler[] {
  return [
    helmet({
      frameguard: { action: 'deny' },
      contentSecurityPolicy: {
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'"],
          styleSrc: ["'self'"],
          imgSrc: ["'self'", 'data:', 'blob:'],
          formAction: ["'self'"],
          frameAncestors: ["'none'"],
          upgradeInsecureRequests: secure ? [] : null,
        },
      },
      referrerPolicy: { policy: 'no-referrer' },
    }),
    (_req, res, next) => {
      res.set('Cache-Control', 'no-store');
      res.locals.showAdminDetail = true;
      next();
    },
  ];
}

/** What every page gets: the services, rendering inside the console layout, and the audit of its changes. */
function createConsoleContext(deps: AdminConsoleDeps, audit: AuditLog, csrf: Csrf, pages: readonly AdminPageModule[]): AdminContext {
  const signInLockouts = createSignInLockouts(deps.db, deps.signInLimits ?? DEFAULT_SIGN_IN_LIMITS);
  const { config } = deps;
  const navigation = pages
    .filter((page) => page.navOrder !== undefined)
    .sort((a, b) => (a.navOrder ?? 0) - (b.navOrder ?? 0))
    .map((page) => ({ id: page.id, href: `${ADMIN_BASE}${page.path}`.replace(/\/$/, '') || ADMIN_BASE }));

  const context: AdminContext = {
    config,
    db: deps.db,
    lti: deps.lti,
    audit,
    signInLockouts,
    refusedRegistrations: deps.refusedRegistrations,
    platformActivity: deps.platformActivity,
    institutions: deps.institutions,
    contexts: deps.contexts,
    accounts: deps.accounts,
    accountClients: deps.accountClients,
    webhooks: deps.webhooks,
    pseudonyms: deps.pseudonyms,
    loggerOf: (req) => requestLogger(deps.logger, req),
    toolUrl: (path) => toolUrl(config, path),
    render(req, res, view, locals = {}) {
      const path = `${req.baseUrl}${req.path}`.replace(/\/$/, '');
      const i18n = translatorOf(res);
      res.render(view, {
        title: i18n.t('admin:layout.defaultTitle'),
        // The request's language (also in res.locals when the i18n middleware ran; a console built on its own gets English).
        t: i18n.t,
        i18n,
        locale: i18n.locale,
        dir: i18n.dir,
        ...viewHelpers(i18n),
        csrfToken: csrf.tokenFor(req, res),
        signedIn: Boolean(adminSessionOf(res)),
        navigation: navigation.map((item) => ({ ...item, current: item.href === ADMIN_BASE ? path === ADMIN_BASE : path.startsWith(item.href) })),
        done: DONE_NOTICE.parse(req.query).done,
        // Pages show what LMSs sent (course titles, platform names, issuers): no control character reaches the browser raw.
        ...dataForPage(locals),
      });
    },
    actorOf: (req) => ({ actor: 'admin', source: 'console', remoteAddress: req.ip }),
    async recordChange(req, entry) {
      await audit.record({ ...context.actorOf(req), ...entry });
    },
  };
  return context;
}

/**
 * The admin console at /admin: password sign-in (ADMIN_PASSWORD), database-backed sessions in a signed,
 * HttpOnly, SameSite=Strict cookie, CSRF tokens on every form, never framed. Pages are modules
 * (src/admin/pages/) registered in ADMIN_PAGES.
 */
export function createAdminConsole(deps: AdminConsoleDeps): AdminConsole {
  const { config, db, logger } = deps;
  const secure = config.publicUrl.protocol === 'https:';
  const audit = createAuditLog(db);
  const sessions = createAdminSessionStore(db, deps.sessionLimits ?? DEFAULT_SESSION_LIMITS);
  const pages = [...(deps.pages ?? ADMIN_PAGES)];
  const secrets = typeof deps.secret === 'string' ? [deps.secret] : deps.secret;
  // Changing ADMIN_PASSWORD invalidates every signed cookie.
  const cookieSecrets = secrets.map((secret) => createHash('sha256').update(`admin-session\0${secret}\0${config.adminPassword ?? ''}`).digest('base64url'));
  const sessionCookie = `${secure ? '__Host-' : ''}proctor.admin`;
  const cookieOptions = { httpOnly: true, sameSite: 'strict' as const, secure, path: '/', signed: true };
  const csrf = createCsrf({
    secret: secrets.map((secret) => `admin-csrf\0${secret}`),
    secure,
    sessionIdOf: (req) => (req.res ? adminSessionOf(req.res)?.idHash : undefined) ?? '',
    cookie: { name: 'proctor.admin-csrf', sameSite: 'strict' },
  });

  const context = createConsoleContext(deps, audit, csrf, pages);

  const router = express.Router();
  router.use(consoleHeaders(secure));

  router.use(cookieParser(cookieSecrets));
  const adminPassword = config.adminPassword;
  if (!adminPassword) {
    router.use((req, res) => {
      res.status(503);
      context.render(req, res, 'admin/disabled', { title: textOf(res)('admin:disabled.title'), hashCommand: HASH_PASSWORD_COMMAND });
    });
    return { router, audit };
  }

  router.use(async (req: Request, res: Response, next: NextFunction) => {
    try {
      const id = signedCookie(req, sessionCookie);
      if (id) {
        const session = await sessions.touch(id);
        if (session) setAdminSession(res, session);
      }
      next();
    } catch (error) {
      next(error);
    }
  });
  const signInLimits = deps.signInLimits ?? DEFAULT_SIGN_IN_LIMITS;
  registerRateLimiter(ADMIN_SIGN_IN_LIMITER);
  const guard = createSignInGuard(db, signInLimits, (req, res, lock) => {
    requestLogger(logger, req).warn({ remoteAddress: req.ip, scope: lock.scope }, 'admin sign-in locked out after repeated failures');
    void recordLockout(req, lock).catch((error: unknown) => requestLogger(logger, req).warn({ err: error }, 'could not record the sign-in lockout'));
    countRateLimited(ADMIN_SIGN_IN_LIMITER);
    res.status(429).set('Retry-After', String(lock.retryAfterSeconds));
    context.render(req, res, 'admin/sign-in', { title: textOf(res)('admin:signIn.title'), lockedOut: lock.scope, next: safeNext(bodyFields(req).next) });
  });
  // One audit entry when a lockout starts (the attempt just past the limit), not one per refused attempt.
  const lockoutsRecorded = new Set<string>();
  async function recordLockout(req: Request, lock: SignInLock): Promise<void> {
    const client = lock.scope === 'everyone' ? EVERYONE : clientKeyOf(req.ip);
    const key = `${client}\0${Math.floor(Date.now() / 1000 / signInLimits.windowSeconds)}`;
    if (lockoutsRecorded.has(key)) return;
    lockoutsRecorded.add(key);
    if (lockoutsRecorded.size > 1000) lockoutsRecorded.clear();
    await audit.record({ ...context.actorOf(req), actor: 'anonymous', action: 'admin.sign_in_lockout', target: lock.scope === 'everyone' ? 'everyone' : client });
  }

  router.get('/sign-in', (req, res) => {
    const query = SIGN_IN_QUERY.parse(req.query);
    if (adminSessionOf(res)) {
      res.redirect(303, safeNext(query.next));
      return;
    }
    context.render(req, res, 'admin/sign-in', { title: textOf(res)('admin:signIn.title'), next: safeNext(query.next), expired: query.expired === '1' });
  });

  router.post('/sign-in', ...signInForm, csrf.protect, guard.limit, async (req, res, next) => {
    try {
      await guard.slowDown(req);
      const body = parseBody(SIGN_IN_FORM, req);
      const password = body.password;
      if (!password || !(await verifyPassword(password, adminPassword))) {
        requestLogger(logger, req).info({ remoteAddress: req.ip }, 'admin sign-in refused: wrong password');
        await audit.record({ ...context.actorOf(req), actor: 'anonymous', action: 'admin.sign_in_failed', target: clientKeyOf(req.ip) });
        res.status(401);
        context.render(req, res, 'admin/sign-in', { title: textOf(res)('admin:signIn.title'), wrongPassword: true, next: safeNext(body.next) });
        return;
      }
      await guard.succeeded(req);
      const previous = signedCookie(req, sessionCookie);
      if (previous !== undefined) await sessions.end(previous);
      const { id, session } = await sessions.create(req.ip);
      res.cookie(sessionCookie, id, cookieOptions);
      setAdminSession(res, session);
      await audit.record({ ...context.actorOf(req), action: 'admin.sign_in' });
      res.redirect(303, safeNext(body.next));
    } catch (error) {
      next(error);
    }
  });

  router.use((req, res, next) => {
    if (adminSessionOf(res)) {
      next();
      return;
    }
    const hadCookie = signedCookie(req, sessionCookie) !== undefined;
    if (req.method !== 'GET') {
      // Refused before its body is read; closing the connection spares reading the rest of it.
      res.status(401).set('Connection', 'close');
      context.render(req, res, 'admin/sign-in', { title: textOf(res)('admin:signIn.title'), expired: hadCookie, next: ADMIN_BASE });
      return;
    }
    const target = `${ADMIN_BASE}/sign-in?next=${encodeURIComponent(safeNext(req.originalUrl))}${hadCookie ? '&expired=1' : ''}`;
    res.redirect(303, target);
  });

  router.use(consoleForms());
  router.use(csrf.protect);

  router.post('/sign-out', async (req, res, next) => {
    try {
      const id = signedCookie(req, sessionCookie);
      if (id !== undefined) await sessions.end(id);
      await audit.record({ ...context.actorOf(req), action: 'admin.sign_out' });
      res.clearCookie(sessionCookie, { ...cookieOptions, signed: false });
      res.redirect(303, `${ADMIN_BASE}/sign-in?done=signed-out`);
    } catch (error) {
      next(error);
    }
  });

  for (const page of pages) router.use(page.path, page.router(context));
  return { router, audit };
}
