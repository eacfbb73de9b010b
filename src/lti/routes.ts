import { translatorOf } from '../i18n/middleware.js';
import { randomUUID } from 'node:crypto';
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import { z } from 'zod';
import { bodyFields, optionalText, parseQueryOrBody, textField } from '../http/request-input.js';
import { requestLogger } from '../http/request-id.js';
import type { Logger } from '../logger.js';
import { createGuardedHttp } from '../net/guarded-http.js';
import { CANVAS_CUSTOM_PARAMETERS, MAX_REGISTRATION_ANSWER_BYTES, RegistrationError, registerWithPlatform, type ToolDescription } from './dynamic-registration.js';
import { decodeJwt } from 'jose';
import { LtiRefusal } from './errors.js';
import { LTI_ROUTES } from './paths.js';
import { isStorageTarget, platformOriginOf, STORAGE_ANSWER_TIMEOUT_MS, STORAGE_FIELDS, storageKeys } from './platform-storage.js';
import type { LtiAdapter } from './provider.js';
import type { RegistrationLinks } from './registration-links.js';
import { methodOverride } from '../http/request-slots.js';

export interface LtiRoutesOptions {
  adapter: LtiAdapter;
  registrationLinks: RegistrationLinks;
  tool: ToolDescription;
  userAgent: string;
  /** Development only: dynamic registration may reach an LMS on loopback (plain http allowed there). */
  allowLoopbackRegistration: boolean;
  logger: Logger;
  refuse(req: Request, res: Response, refusal: LtiRefusal, status: number): void;
  /** A platform registered itself (dynamic registration), naming its product family when it did: the console's setup checklist. */
  registered?(platform: { issuer: string; clientId: string }, productFamily: string | undefined): Promise<void>;
}

/** Our routes in front of ltijs: Canvas JSON config, gated dynamic registration, the login pre-checks. */
export function createLtiRoutes(options: LtiRoutesOptions): Router {
  const router = express.Router();
  const { tool } = options;
  const urlencoded = express.urlencoded({ extended: false, limit: '64kb' });
  // The id_token POST is read here before ltijs reads it: with ltijs's own limit (body-parser's 100 kB).
  const launchForm = express.urlencoded({ extended: false, limit: '100kb' });
  // ltijs's own body-parser 1.x reads the body again unless it sees this flag (body-parser 2 no longer sets it).
  const form: RequestHandler[] = [
    urlencoded,
    (req: Request, _res: Response, next: () => void) => {
      markBodyRead(req);
      next();
    },
  ];

  router.get('/lti/canvas.json', (_req, res) => {
    res.json(canvasConfiguration(tool));
  });

  router.all('/lti/register', ...form, async (req, res) => {
    const { link, openid_configuration: openIdConfiguration, registration_token: registrationToken } = parseQueryOrBody(REGISTRATION_REQUEST, req);
    const { t } = translatorOf(req, res);
    const fail = (status: number, message: string) =>
      res.status(status).render('lti/registration', { ok: false, message, title: t('registration:title.refused') });

    if (!openIdConfiguration) {
      const linkState = link ? await options.registrationLinks.check(link) : 'unknown';
      fail(linkState === 'ok' ? 400 : 403, linkState === 'ok' ? t('registration:noOpenIdConfiguration') : t(`registration:link.${linkState}`));
      return;
    }
    const attempt = link ? await options.registrationLinks.begin(link) : { state: 'unknown' as const };
    if (attempt.state !== 'ok') {
      fail(403, t(`registration:link.${attempt.state}`));
      return;
    }
    const http = createGuardedHttp({ policy: { allowLoopback: options.allowLoopbackRegistration }, maxBytes: MAX_REGISTRATION_ANSWER_BYTES });
    try {
      const { platform, productFamily } = await registerWithPlatform({
        openIdConfigurationUrl: openIdConfiguration,
        registrationToken,
        tool,
        userAgent: options.userAgent,
        http,
      });
      if (!(await options.registrationLinks.consume(link, { issuer: platform.issuer, clientId: platform.clientId }))) {
        fail(403, t('registration:link.usedMeanwhile'));
        return;
      }
      await options.adapter.platforms.register(platform);
      await options.registered?.(platform, productFamily);
      requestLogger(options.logger, req).info(
        { issuer: platform.issuer, clientId: platform.clientId, deploymentIds: platform.deploymentIds, productFamily },
        'platform registered through dynamic registration',
      );
      res.render('lti/registration', {
        ok: true,
        title: t('registration:title.complete'),
        message: t(productFamily === 'moodle' ? 'registration:done.moodle' : 'registration:done.other'),
        deploymentIds: platform.deploymentIds,
      });
    } catch (error) {
      if (error instanceof RegistrationError) {
        const reference = randomUUID().slice(0, 8);
        const attemptsLeft = attempt.attemptsLeftOnFailure;
        requestLogger(options.logger, req).warn({ reference, detail: error.detail, attemptsLeft }, 'dynamic registration refused');
        fail(400, t('registration:failed', { detail: error.words(translatorOf(req, res)), attemptsLeft: Math.max(attemptsLeft, 0), reference }));
        return;
      }
      throw error;
    } finally {
      await http.close();
    }
  });

  router.all('/lti/login', ...form, (req, res, next) => {
    // Whatever a login initiation lacks is the LTI refusal below, not a malformed request: read leniently.
    const params: Readonly<Record<string, unknown>> = { ...req.query, ...bodyFields(req) };
    const text = (name: string) => {
      const value = params[name];
      return typeof value === 'string' ? value : undefined;
    };
    const target = text('target_link_uri');
    if (!text('iss') || !text('login_hint') || !target) {
      options.refuse(req, res, new LtiRefusal('login_invalid', 'login initiation without iss, login_hint or target_link_uri'), 400);
      return;
    }
    let targetUrl: URL | undefined;
    try {
      targetUrl = new URL(target);
    } catch {
      targetUrl = undefined;
    }
    if (!targetUrl || targetUrl.origin !== tool.publicUrl.origin) {
      options.refuse(req, res, new LtiRefusal('wrong_target', `target_link_uri ${target} is not on this tool`), 400);
      return;
    }
    const framed = req.get('sec-fetch-dest') === 'iframe';
    const fields = Object.entries(params).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
    const storageTarget = text('lti_storage_target');
    // Framed by an LMS offering its client-side storage: the login's state and nonce go there instead of a
    // cookie. ltijs's redirect to the platform's authorization endpoint becomes a page that stores them
    // first; if the platform does not answer, that page falls back to the cookie path below.
    if (framed && isStorageTarget(storageTarget) && text('lti_storage_check') === undefined) {
      storeInPlatform(req, res, storageTarget, fields.filter(([name]) => name !== 'lti_storage_target'));
      next();
      return;
    }
    // Framed by the LMS: make sure this browser keeps our cookies here, or continue in a new window
    // (re-running this login at the top level) — never by switching off state validation.
    if (framed && text('lti_storage_check') !== 'done') {
      res.status(200).render('lti/cookie-check', { title: translatorOf(req, res).t('cookies:title'), action: req.baseUrl + req.path, fields });
      return;
    }
    next();
  });

  // The platform's answer to a login that kept its state in the platform's storage: no state cookie comes
  // back in the frame, so a page reads the state and nonce back (lti.get_data) and posts the id_token again
  // with what it read; the validator then checks them against the login's row (platform-storage.ts).
  router.post(LTI_ROUTES.launch, launchForm, async (req, res, next) => {
    if (req.body !== undefined) markBodyRead(req);
    const body = bodyFields(req);
    const idToken = body.id_token;
    const state = body.state;
    if (typeof idToken !== 'string' || typeof state !== 'string' || body[STORAGE_FIELDS.outcome] !== undefined || hasCookie(req, `state${state}`)) {
      next();
      return;
    }
    try {
      const storage = await options.adapter.platformStorageOf(state);
      const nonce = storage ? nonceOf(idToken) : undefined;
      if (!storage || !nonce) {
        next();
        return;
      }
      const keys = storageKeys(state, nonce);
      res.status(200).set('Cache-Control', 'no-store').render('lti/platform-storage', {
        title: translatorOf(req, res).t('cookies:title'),
        mode: 'get',
        storage: { ...storage, keys, state, nonce, timeoutMs: STORAGE_ANSWER_TIMEOUT_MS },
        action: req.baseUrl + req.path,
        fields: Object.entries(body).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
        fieldNames: STORAGE_FIELDS,
      });
    } catch (error) {
      next(error);
    }
  });

  return router;
}

/** What a dynamic registration starts with: the console's link, and the platform's configuration URL and token. */
const REGISTRATION_REQUEST = z.object({ link: textField, openid_configuration: textField, registration_token: optionalText });

/** Tells ltijs's body-parser 1.x that the form was read already (body-parser 2 no longer sets this flag itself). */
function markBodyRead(req: Request): void {
  Object.assign(req, { _body: true });
}

/** Whether the request carries a cookie of this name (the state cookie ltijs signs; its value is checked there). */
function hasCookie(req: Request, name: string): boolean {
  return (req.get('cookie') ?? '').split(';').some((pair) => pair.trim().startsWith(`${name}=`));
}

/** The nonce of an id_token, read without verifying it (the validator verifies everything after). */
function nonceOf(idToken: string): string | undefined {
  try {
    const nonce = decodeJwt(idToken).nonce;
    return typeof nonce === 'string' && nonce.length <= 256 ? nonce : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Replaces ltijs's redirect to the platform's authorization endpoint by a page that stores the login's state
 * and nonce in the platform (lti.put_data) and then goes on there. `fallback` is the login initiation again,
 * without the storage target, for the cookie path when the platform does not answer.
 */
function storeInPlatform(req: Request, res: Response, target: string, fallback: [string, string][]): void {
  redirectThroughPlatformStorage(res, { req, target, fallback, action: req.baseUrl + req.path });
}

const redirectThroughPlatformStorage = methodOverride<Response, unknown[], void, { req: Request; target: string; fallback: [string, string][]; action: string }>(
  'redirect',
  (res, { req, target, fallback, action }, redirect, args) => {
    const location = args.find((arg): arg is string => typeof arg === 'string');
    const platformOrigin = location ? platformOriginOf(location) : undefined;
    const authUrl = location && platformOrigin ? new URL(location) : undefined;
    const state = authUrl?.searchParams.get('state');
    const nonce = authUrl?.searchParams.get('nonce');
    if (!authUrl || !platformOrigin || !state || !nonce) {
      redirect(...args);
      return;
    }
    res.status(200).set('Cache-Control', 'no-store').render('lti/platform-storage', {
      title: translatorOf(req, res).t('cookies:title'),
      mode: 'put',
      storage: { target, platformOrigin, keys: storageKeys(state, nonce), state, nonce, timeoutMs: STORAGE_ANSWER_TIMEOUT_MS, next: authUrl.href },
      action,
      fields: [...fallback.filter(([name]) => name !== 'lti_storage_check'), ['lti_storage_check', 'cookie']],
      fieldNames: STORAGE_FIELDS,
    });
  },
);

/** The JSON Canvas's "Enter URL" developer-key form reads (LTI 1.3 tool configuration). */
export function canvasConfiguration(tool: ToolDescription): Record<string, unknown> {
  return {
    title: tool.name,
    description: tool.description,
    oidc_initiation_url: tool.loginUrl,
    target_link_uri: tool.launchUrl,
    public_jwk_url: tool.jwksUrl,
    scopes: ['https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly'],
    extensions: [
      {
        domain: tool.publicUrl.host,
        tool_id: 'proctor-lti',
        platform: 'canvas.instructure.com',
        privacy_level: 'name_only',
        settings: {
          text: tool.name,
          placements: [
            { placement: 'link_selection', message_type: 'LtiDeepLinkingRequest', target_link_uri: tool.launchUrl, text: tool.name },
            { placement: 'assignment_selection', message_type: 'LtiDeepLinkingRequest', target_link_uri: tool.launchUrl, text: tool.name },
            {
              placement: 'course_navigation',
              message_type: 'LtiResourceLinkRequest',
              target_link_uri: tool.launchUrl,
              text: 'Proctoring',
              default: 'disabled',
              windowTarget: '_blank',
              custom_fields: { placement: 'launchpad' },
            },
          ],
        },
      },
    ],
    custom_fields: { ...CANVAS_CUSTOM_PARAMETERS },
  };
}
