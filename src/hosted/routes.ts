import cors from 'cors';
import express, { type Request, type Router } from 'express';
import type { ExamStore } from '../exams/store.js';
import { EXTENSION_ID, type InstitutionSettingsStore } from '../institution/settings.js';
import type { Logger } from '../logger.js';
import type { ContextStore } from './contexts.js';
import { buildExamRoster } from './exam-roster.js';
import { HOSTED_LINK_MARGIN_SECONDS, HOSTED_ROUTES, type HostedLinks, type HostedTokenKind } from './links.js';
import type { LogoStore } from './logos.js';
import type { RosterService } from './roster.js';
import { AppError, markLogged } from '../http/errors.js';
import { requestLogger } from '../http/request-id.js';

export interface HostedRoutesDeps {
  links: HostedLinks;
  roster: RosterService;
  contexts: Pick<ContextStore, 'find'>;
  exams: Pick<ExamStore, 'listByContext'>;
  /** deriveExamTag with the pseudonym secret: the exam_tag launches of that exam send. */
  examTagOf(issuer: string, deploymentId: string, resourceLinkId: string): string;
  logos: Pick<LogoStore, 'findByKey'>;
  institutions: Pick<InstitutionSettingsStore, 'findByKey'>;
  /** config.corsAllowedOrigins: origins, or ['*']. */
  allowedOrigins: readonly string[];
  logger: Logger;
}

/** platformKey() output: 22 base64url characters. Anything else cannot name a platform. */
const PLATFORM_KEY = /^[A-Za-z0-9_-]{22}$/;
const MAX_TOKEN_LENGTH = 1000;

/** Answered as JSON by the tool's error handler, like every hosted failure. */
const failure = (status: number, code: string, message: string) => new AppError(status, code, 'Not available', message);

/**
 * The endpoints the proctoring service's pages fetch from the user's browser, cross-origin and without
 * cookies (Launch API: roster_url, exam_roster, branding.logo_url, extension_allowlist_url). Roster and
 * exam roster are guarded by the signed token in their URL; logo and allowlist are public by design.
 */
export function createHostedRoutes(deps: HostedRoutesDeps): Router {
  const router = express.Router();
  const anyOrigin = deps.allowedOrigins.includes('*');
  // No credentials: the portal's fetch carries no cookie, and `*` is only valid without them.
  router.use(
    '/hosted',
    cors({
      origin: anyOrigin ? '*' : [...deps.allowedOrigins],
      methods: ['GET', 'HEAD'],
      credentials: false,
      maxAge: 600,
      exposedHeaders: ['ETag', 'Last-Modified'],
    }),
  );

  /** The section a request's token names; a missing, forged or expired token is a 401. */
  async function sectionOf(req: Request, kind: HostedTokenKind): Promise<{ sectionId: string; expiresAt: Date }> {
    const token = req.query.t;
    const verified = typeof token === 'string' && token.length <= MAX_TOKEN_LENGTH ? await deps.links.verify(token, kind) : undefined;
    if (!verified) {
      // Expired links are normal (a page left open); many refusals from one address are worth a look.
      requestLogger(deps.logger, req).info({ path: req.path, ip: req.ip, kind }, 'hosted link refused: invalid or expired token');
      throw markLogged(failure(401, 'invalid_token', 'This link is not valid or has expired. Open the page again from the course to get a new one.'));
    }
    return verified;
  }

  router.get(HOSTED_ROUTES.roster, async (req, res) => {
    const section = await sectionOf(req, 'roster');
    const roster = await deps.roster.get(section.sectionId, requestLogger(deps.logger, req));
    // Names of people: no shared cache may keep them.
    res.status(200).set('Cache-Control', 'no-store').type('application/json; charset=utf-8').send(roster.json);
  });

  router.get(HOSTED_ROUTES.examRoster, async (req, res) => {
    const section = await sectionOf(req, 'exam-roster');
    const context = await deps.contexts.find(section.sectionId);
    if (!context) {
      throw failure(404, 'unknown_course', 'This exam roster link names a course the tool has not seen.');
    }
    const exams = await deps.exams.listByContext(context.issuer, context.clientId, context.deploymentId, context.contextId);
    // Each roster_url lives as long as the exam-roster link it came from.
    const remaining = Math.floor((section.expiresAt.getTime() - Date.now()) / 1000) - HOSTED_LINK_MARGIN_SECONDS;
    const rosterUrl = context.membershipsUrl ? await deps.links.rosterUrl(context.sectionId, Math.max(1, remaining)) : undefined;
    const entries = buildExamRoster({
      exams,
      sectionId: context.sectionId,
      examTagOf: (resourceLinkId) => deps.examTagOf(context.issuer, context.deploymentId, resourceLinkId),
      rosterUrl,
    });
    res.status(200).set('Cache-Control', 'no-store').json(entries);
  });

  router.get(`${HOSTED_ROUTES.logo}/:platformKey`, async (req, res) => {
    const key = req.params.platformKey;
    const logo = PLATFORM_KEY.test(key) ? await deps.logos.findByKey(key) : undefined;
    if (!logo) {
      throw failure(404, 'no_logo', 'No logo has been set for this institution.');
    }
    res.set({
      'Content-Type': logo.contentType,
      ETag: logo.etag,
      'Last-Modified': logo.updatedAt.toUTCString(),
      'Cache-Control': 'public, max-age=300, must-revalidate',
      'X-Content-Type-Options': 'nosniff',
    });
    // Opened directly, an SVG is a document of the tool's origin: no scripts, no loads, whatever it holds.
    if (logo.contentType === 'image/svg+xml') res.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox");
    if (req.fresh) {
      res.status(304).end();
      return;
    }
    res.status(200).send(logo.bytes);
  });

  router.get(`${HOSTED_ROUTES.extensionAllowlist}/:platformKey`, async (req, res) => {
    const key = req.params.platformKey;
    if (!PLATFORM_KEY.test(key)) {
      throw failure(404, 'unknown_institution', 'This allowlist link does not name an institution.');
    }
    // A platform that saved no settings has an empty allowlist: the same answer, so keys cannot be probed.
    const institution = await deps.institutions.findByKey(key);
    const ids = (institution?.settings.extensionAllowlist ?? []).filter((id) => EXTENSION_ID.test(id));
    res.status(200).set('Cache-Control', 'public, max-age=300').json(ids);
  });

  return router;
}
