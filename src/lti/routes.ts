import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import type { Logger } from '../logger.js';
import { RegistrationError, registerWithPlatform, type ToolDescription } from './dynamic-registration.js';
import { LtiRefusal } from './errors.js';
import type { LtiAdapter } from './provider.js';
import type { RegistrationLinks } from './registration-links.js';

export interface LtiRoutesOptions {
  adapter: LtiAdapter;
  registrationLinks: RegistrationLinks;
  tool: ToolDescription;
  userAgent: string;
  logger: Logger;
  refuse(req: Request, res: Response, refusal: LtiRefusal, status: number): void;
}

/** Our routes in front of ltijs: Canvas JSON config, gated dynamic registration, the login pre-checks. */
export function createLtiRoutes(options: LtiRoutesOptions): Router {
  const router = express.Router();
  const { tool } = options;
  const urlencoded = express.urlencoded({ extended: false, limit: '64kb' });
  // ltijs's own body-parser 1.x reads the body again unless it sees this flag (body-parser 2 no longer sets it).
  const form: RequestHandler[] = [
    urlencoded,
    (req: Request, _res: Response, next: () => void) => {
      (req as Request & { _body?: boolean })._body = true;
      next();
    },
  ];

  router.get('/lti/canvas.json', (_req, res) => {
    res.json(canvasConfiguration(tool));
  });

  router.all('/lti/register', ...form, async (req, res) => {
    const params = { ...req.query, ...(req.body as Record<string, unknown> | undefined) };
    const link = typeof params.link === 'string' ? params.link : '';
    const openIdConfiguration = typeof params.openid_configuration === 'string' ? params.openid_configuration : '';
    const registrationToken = typeof params.registration_token === 'string' ? params.registration_token : undefined;
    const fail = (status: number, message: string) =>
      res.status(status).render('lti/registration', { ok: false, message, title: 'Registration refused' });

    const linkState = link ? await options.registrationLinks.check(link) : 'unknown';
    if (linkState !== 'ok') {
      const why = {
        unknown: 'This registration link is not valid. Ask the proctoring tool administrator for a new one (npm run cli -- platform register-link).',
        expired: 'This registration link has expired. Ask the proctoring tool administrator for a new one.',
        used: 'This registration link was already used. Ask the proctoring tool administrator for a new one.',
      }[linkState];
      fail(403, why);
      return;
    }
    if (!openIdConfiguration) {
      fail(400, 'Paste this link into your LMS as the tool registration URL; the LMS adds the openid_configuration parameter itself.');
      return;
    }
    try {
      const { platform, productFamily } = await registerWithPlatform({
        openIdConfigurationUrl: openIdConfiguration,
        registrationToken,
        tool,
        userAgent: options.userAgent,
      });
      if (!(await options.registrationLinks.consume(link, { issuer: platform.issuer, clientId: platform.clientId }))) {
        fail(403, 'This registration link was used meanwhile. Ask the proctoring tool administrator for a new one.');
        return;
      }
      await options.adapter.platforms.register(platform);
      options.logger.info(
        { issuer: platform.issuer, clientId: platform.clientId, deploymentIds: platform.deploymentIds, productFamily },
        'platform registered through dynamic registration',
      );
      res.render('lti/registration', {
        ok: true,
        title: 'Registration complete',
        message:
          productFamily === 'moodle'
            ? 'The proctoring tool is registered. In Moodle, an administrator must now activate the tool (Site administration → Plugins → Manage tools).'
            : 'The proctoring tool is registered. You can close this window.',
        deploymentIds: platform.deploymentIds,
      });
    } catch (error) {
      if (error instanceof RegistrationError) {
        options.logger.warn({ err: error.message }, 'dynamic registration refused');
        fail(400, error.message);
        return;
      }
      throw error;
    }
  });

  router.all('/lti/login', ...form, (req, res, next) => {
    const params = { ...req.query, ...(req.body as Record<string, unknown> | undefined) } as Record<string, unknown>;
    const text = (name: string) => (typeof params[name] === 'string' ? (params[name] as string) : undefined);
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
    // Framed by the LMS: make sure this browser keeps our cookies here, or continue in a new window
    // (re-running this login at the top level) — never by switching off state validation.
    if (req.get('sec-fetch-dest') === 'iframe' && text('lti_storage_check') !== 'done') {
      const fields = Object.entries(params).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
      res.status(200).render('lti/cookie-check', { title: 'Opening the proctoring tool', action: req.baseUrl + req.path, fields });
      return;
    }
    next();
  });

  return router;
}

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
    custom_fields: { canvas_user_is_test: '$Canvas.user.isFakeStudent' },
  };
}
