import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import ejs from 'ejs';
import express, { type Request, type Response, type Router } from 'express';
import { jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { z } from 'zod';
import type { DemoCourse, DemoLink, DemoPerson, DemoUser } from './directory.js';
import {
  CLAIM,
  FLAVOR_NAMES,
  FLAVORS,
  LAUNCH_KINDS,
  NRPS_SCOPE,
  PRESENTATIONS,
  type DemoFlavor,
  type LaunchClaimsInput,
} from './flavors.js';
import type { MessageHints, PendingLaunch } from './hints.js';
import type { ProctoringAttempts } from './proctoring.js';
import { MembershipQueryError, membershipPage, NRPS_MEDIA_TYPE } from './nrps.js';
import { OAuthError, type OAuthServer } from './oauth.js';
import { bodyFields } from '../../http/request-input.js';
import { isRecord, messageOf } from '../../values.js';
import { SUPPORTED_LOCALES, type Locale } from '../../i18n/locales.js';

export interface LoginInitiation {
  /** The tool's login initiation URL. */
  url: string;
  /** The fields Moodle posts there (Canvas adds two of its own). */
  params: Record<string, string>;
}

/** What the routes need from createDemoLms. */
export interface DemoLmsContext {
  issuer: string;
  clientId: string;
  deploymentId: string;
  defaultFlavor: DemoFlavor;
  course: DemoCourse;
  users: readonly DemoUser[];
  members: () => readonly DemoPerson[];
  tool: { loginUrl: string; launchUrl: string; jwksUrl: string; deepLinkingUrl?: string };
  redirectUris: readonly string[];
  urls: { auth: string; token: string; jwks: string; deepLinkReturn: string; nrps(contextId: string): string };
  publicJwks: () => { keys: object[] };
  hints: MessageHints;
  oauth: OAuthServer;
  toolKeys: () => JWTVerifyGetKey;
  now: () => number;
  tokenContentType: 'json' | 'html';
  nrpsPageSize?: number;
  viewsDir: string;
  publicDir: string;
  initiateLogin(launch: PendingLaunch): Promise<LoginInitiation>;
  /** LTI Proctoring Services' attempts (the Learn Ultra-like flavour). */
  proctoring: ProctoringAttempts;
  buildLaunchClaims(input: LaunchClaimsInput): JWTPayload;
  signIdToken(claims: JWTPayload): Promise<string>;
}

const launchForm = z.object({
  // The course page's buttons send "kind:user:link" in one field; scripts may send the parts.
  launch: z.string().max(300).optional(),
  user: z.string().max(50).optional(),
  kind: z.enum(LAUNCH_KINDS).optional(),
  link: z.string().max(200).optional(),
  flavor: z.enum(FLAVOR_NAMES).optional(),
  presentation: z.enum(PRESENTATIONS).optional(),
  platform_storage: z.enum(['on', 'off']).optional(),
  // The launching person's language in the LMS, sent as the launch's locale (launch_presentation.locale).
  locale: z.enum(SUPPORTED_LOCALES).optional(),
});

/** The languages the course page offers, each named in itself. */
const LAUNCH_LANGUAGES: ReadonlyArray<{ tag: Locale; name: string }> = [
  { tag: 'en', name: 'English' },
  { tag: 'es', name: 'Español' },
  { tag: 'fr', name: 'Français' },
  { tag: 'de', name: 'Deutsch' },
  { tag: 'pt-BR', name: 'Português (Brasil)' },
  { tag: 'ar', name: 'العربية' },
  { tag: 'zh-Hans', name: '中文（简体）' },
];

/** The frame name Canvas gives its client-side storage frame, sent as lti_storage_target. */
export const STORAGE_FRAME_NAME = 'post_message_forwarding';

type FormSource = Readonly<Record<string, unknown>>;

function text(source: FormSource, name: string): string | undefined {
  const value = source[name];
  return typeof value === 'string' ? value : undefined;
}

function textFields(source: FormSource): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(source)) if (typeof value === 'string') out[key] = value;
  return out;
}

type FormParser = ReturnType<typeof express.urlencoded>;

/** The demo LMS's pages, rendered from its own views with the course and asset paths. */
interface Pages {
  render(res: Response, status: number, view: string, data: Record<string, unknown>): Promise<void>;
  renderError(res: Response, status: number, title: string, message: string): Promise<void>;
}

export function createDemoLmsRouter(ctx: DemoLmsContext): Router {
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: '256kb', parameterLimit: 100 });
  const pages = createPages(ctx);
  router.use('/assets', express.static(ctx.publicDir, { index: false, maxAge: '1h', fallthrough: false }));
  courseRoutes(router, ctx, pages, form);
  storageFrameRoute(router, ctx, pages);
  const authorize = authorization(ctx, pages);
  router.get('/auth', authorize);
  router.post('/auth', form, authorize);
  platformServiceRoutes(router, ctx, form);
  deepLinkingReturnRoute(router, ctx, pages, form);
  quizRoutes(router, ctx, pages, form);
  return router;
}

function createPages(ctx: DemoLmsContext): Pages {
  async function render(res: Response, status: number, view: string, data: Record<string, unknown>): Promise<void> {
    const base = res.req.baseUrl;
    const html = await ejs.renderFile(join(ctx.viewsDir, `${view}.ejs`), {
      base,
      asset: (file: string) => `${base}/assets/${file}`,
      course: ctx.course,
      ...data,
    });
    res.status(status).type('html').send(html);
  }

  function renderError(res: Response, status: number, title: string, message: string): Promise<void> {
    res.set('Cache-Control', 'no-store');
    return render(res, status, 'error', { title, message });
  }

  return { render, renderError };
}

function returnMessages(query: FormSource): string[] {
  const notes: string[] = [];
  if (text(query, 'from') === 'tool') notes.push('You are back from the tool.');
  const added = Number(text(query, 'added') ?? 0);
  if (added > 0) notes.push(`Deep linking added ${added} link${added === 1 ? '' : 's'} to the course.`);
  return notes;
}

/** Turns the course page's launch form into the launch it asks for, or a reason to refuse. */
function pendingLaunch(ctx: DemoLmsContext, source: FormSource): PendingLaunch | string {
  const parsed = launchForm.safeParse(textFields(source));
  if (!parsed.success) return 'The launch form is not valid.';
  let { user: userKey, link } = parsed.data;
  let kind: string | undefined = parsed.data.kind;
  if (parsed.data.launch) {
    const [k, u, ...rest] = parsed.data.launch.split(':');
    kind = k;
    userKey = u;
    link = rest.join(':') || undefined;
  }
  const launchKind = LAUNCH_KINDS.find((name) => name === (kind ?? 'resource'));
  if (!launchKind) return 'Unknown kind of launch.';
  const user = ctx.users.find((candidate) => candidate.key === userKey);
  if (!user) return 'Choose who launches the tool.';
  let linkId: string | undefined;
  if (launchKind === 'resource') {
    const found = ctx.course.links.find((candidate) => candidate.id === (link ?? ctx.course.exam.id));
    if (!found) return 'That link is not in this course.';
    linkId = found.id;
  }
  const flavor = parsed.data.flavor ?? ctx.defaultFlavor;
  // The Learn Ultra-like flavour: a learner's launch of the exam starts it through LTI Proctoring Services.
  const candidate = user.role === 'learner' || user.role === 'test-student';
  const proctoring = flavor === 'ultra' && launchKind === 'resource' && candidate && linkId === ctx.course.exam.id ? ctx.proctoring.start(user.id, linkId) : undefined;
  return {
    user: user.key,
    userId: user.id,
    flavor,
    ...(proctoring ? { proctoring } : {}),
    kind: launchKind,
    linkId,
    presentation: parsed.data.presentation ?? 'iframe',
    platformStorage: parsed.data.platform_storage === 'on',
    ...(parsed.data.locale ? { locale: parsed.data.locale } : {}),
  };
}

/** The course page and its launches (the OIDC login initiation, as Moodle and Canvas start it). */
function courseRoutes(router: Router, ctx: DemoLmsContext, { render, renderError }: Pages, form: FormParser): void {
  router.get('/', async (req, res) => {
    const flavorParam = text(req.query, 'flavor');
    const flavor = FLAVOR_NAMES.find((name) => name === flavorParam) ?? ctx.defaultFlavor;
    const presentation = text(req.query, 'presentation') === 'window' ? 'window' : 'iframe';
    const localeParam = text(req.query, 'locale');
    await render(res, 200, 'course', {
      platformStorage: text(req.query, 'platform_storage') === 'on',
      languages: LAUNCH_LANGUAGES,
      locale: LAUNCH_LANGUAGES.find((language) => language.tag === localeParam)?.tag ?? 'en',
      title: ctx.course.title,
      flavor,
      flavors: FLAVOR_NAMES.map((name) => ({ name, label: FLAVORS[name].label })),
      presentation,
      users: ctx.users,
      notes: returnMessages(req.query),
      ltiMessage: text(req.query, 'lti_msg'),
      ltiError: text(req.query, 'lti_errormsg'),
      registration: {
        issuer: ctx.issuer,
        clientId: ctx.clientId,
        deploymentId: ctx.deploymentId,
        authUrl: ctx.urls.auth,
        tokenUrl: ctx.urls.token,
        jwksUrl: ctx.urls.jwks,
        nrpsUrl: ctx.urls.nrps(ctx.course.id),
      },
      tool: ctx.tool,
    });
  });

  // A GET variant for tests and scripts: the OIDC login initiation as a redirect.
  router.get('/launch', async (req, res) => {
    const launch = pendingLaunch(ctx, req.query);
    if (typeof launch === 'string') return renderError(res, 400, 'Cannot launch', launch);
    const login = await ctx.initiateLogin(launch);
    const url = new URL(login.url);
    for (const [name, value] of Object.entries(login.params)) url.searchParams.set(name, value);
    res.set('Cache-Control', 'no-store').redirect(302, url.href);
  });

  // As Moodle does: an auto-submitting POST form to the tool's login initiation URL.
  router.post('/launch', form, async (req, res) => {
    const launch = pendingLaunch(ctx, bodyFields(req));
    if (typeof launch === 'string') return renderError(res, 400, 'Cannot launch', launch);
    const login = await ctx.initiateLogin(launch);
    res.set('Cache-Control', 'no-store');
    const link = launch.linkId ? ctx.course.links.find((candidate) => candidate.id === launch.linkId) : undefined;
    const post = { action: login.url, method: 'post', fields: login.params };
    if (launch.presentation === 'iframe') {
      await render(res, 200, 'embed', {
        title: link?.title ?? (launch.kind === 'deep-linking' ? 'Add content' : ctx.course.title),
        flavor: launch.flavor,
        presentation: launch.presentation,
        form: { ...post, target: 'demo-lms-tool' },
        // Canvas serves its storage frame from its OIDC authorization endpoint's origin, which is the origin
        // tools address their lti.put_data and lti.get_data messages to.
        storageFrame: launch.platformStorage ? { name: STORAGE_FRAME_NAME, src: new URL('post_message_forwarding', ctx.urls.auth).href } : undefined,
      });
      return;
    }
    await render(res, 200, 'autopost', {
      title: 'Opening the tool…',
      message: `Signing in to the tool as ${ctx.users.find((u) => u.key === launch.user)?.name ?? ''}.`,
      button: 'Continue to the tool',
      form: post,
    });
  });
}

/**
 * The LMS's client-side storage frame (LTI Client Side postMessages), named `post_message_forwarding` in the
 * page that frames the tool: it keeps what the tool stores with lti.put_data in memory (cookies and web
 * storage of this origin may be refused in a cross-site frame) and answers only the tool's origin.
 */
function storageFrameRoute(router: Router, ctx: DemoLmsContext, { render }: Pages): void {
  router.get('/post_message_forwarding', async (_req, res) => {
    res.set('Cache-Control', 'no-store');
    await render(res, 200, 'storage-frame', { title: 'Platform storage', toolOrigin: new URL(ctx.tool.launchUrl).origin });
  });
}

/**
 * The OIDC authorization endpoint (LTI 1.3 core §5.1.1.2). Like Moodle, every refusal is an HTML
 * page (status 400): the platform never redirects to a redirect_uri it has not validated.
 */
function authorization(ctx: DemoLmsContext, { render, renderError }: Pages) {
  return async (req: Request, res: Response): Promise<void> => {
    const source: FormSource = { ...req.query, ...bodyFields(req) };
    const param = (name: string): string | undefined => text(source, name);
    const refuse = (message: string): Promise<void> => renderError(res, 400, 'The tool could not be opened', message);

    if (param('response_type') !== 'id_token') return refuse('response_type must be id_token.');
    if (param('scope') !== 'openid') return refuse('scope must be openid.');
    if (param('response_mode') !== 'form_post') return refuse('response_mode must be form_post.');
    if (param('prompt') !== 'none') return refuse('prompt must be none.');
    if (param('client_id') !== ctx.clientId) return refuse('Unknown client_id.');
    const redirectUri = param('redirect_uri');
    if (!redirectUri || !ctx.redirectUris.includes(redirectUri)) return refuse('redirect_uri is not registered for this tool.');
    const nonce = param('nonce');
    if (!nonce || nonce.length > 512) return refuse('nonce is missing.');
    const loginHint = param('login_hint');
    if (!loginHint) return refuse('login_hint is missing.');

    const hint = await ctx.hints.consume(param('lti_message_hint'));
    if (!hint.ok) {
      const why: Record<typeof hint.reason, string> = {
        missing: 'lti_message_hint is missing.',
        malformed: 'lti_message_hint is not one this platform issued.',
        'unknown-or-used': 'This launch was already used or is unknown: go back to the course and click the link again.',
        expired: 'This launch has expired: go back to the course and click the link again.',
      };
      return refuse(why[hint.reason]);
    }
    const launch = hint.launch;
    if (launch.userId !== loginHint) return refuse('login_hint does not match the user who started the launch.');

    const claims = ctx.buildLaunchClaims({
      flavor: launch.flavor,
      user: launch.member ?? launch.user,
      kind: launch.kind,
      linkId: launch.linkId,
      presentation: launch.presentation,
      locale: launch.locale,
      nonce,
      now: ctx.now(),
      ...(launch.proctoring ? { proctoring: launch.proctoring } : {}),
    });
    const fields: Record<string, string> = { id_token: await ctx.signIdToken(claims) };
    const state = param('state');
    if (state !== undefined) fields.state = state;
    res.set('Cache-Control', 'no-store');
    await render(res, 200, 'autopost', {
      title: 'Opening the tool…',
      message: 'Sending your launch to the tool.',
      button: 'Continue to the tool',
      form: { action: redirectUri, method: 'post', fields },
    });
  };
}

/** What the platform serves the tool: its key set, OAuth 2 tokens and Names and Roles. */
function platformServiceRoutes(router: Router, ctx: DemoLmsContext, form: FormParser): void {
  router.get('/jwks', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').json(ctx.publicJwks());
  });

  router.post('/token', form, async (req, res) => {
    res.set('Cache-Control', 'no-store');
    // Moodle answers JSON labelled text/html; clients must parse the body regardless.
    const contentType = ctx.tokenContentType === 'html' ? 'text/html; charset=utf-8' : 'application/json; charset=utf-8';
    try {
      const grant = await ctx.oauth.grant(textFields(bodyFields(req)));
      res.status(200).type(contentType).send(JSON.stringify(grant));
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      res.status(error.status).type(contentType).send(JSON.stringify({ error: error.error, error_description: error.description }));
    }
  });

  router.get('/nrps/:contextId', (req, res) => {
    const authorization = req.get('authorization') ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    const scopes = match?.[1] ? ctx.oauth.scopesOf(match[1]) : undefined;
    if (!scopes) {
      res.status(401).set('WWW-Authenticate', 'Bearer error="invalid_token"').json({ error: 'invalid_token' });
      return;
    }
    if (!scopes.has(NRPS_SCOPE)) {
      res.status(403).set('WWW-Authenticate', `Bearer error="insufficient_scope", scope="${NRPS_SCOPE}"`).json({ error: 'insufficient_scope' });
      return;
    }
    if (req.params.contextId !== ctx.course.id) {
      res.status(404).json({ error: 'not_found', error_description: 'No such context' });
      return;
    }
    try {
      const page = membershipPage({
        flavor: ctx.defaultFlavor,
        issuer: ctx.issuer,
        course: ctx.course,
        people: ctx.members(),
        pageUrl: (query) => {
          const qs = query.toString();
          return `${ctx.urls.nrps(ctx.course.id)}${qs ? `?${qs}` : ''}`;
        },
        query: { limit: text(req.query, 'limit'), from: text(req.query, 'from'), role: text(req.query, 'role'), rlid: text(req.query, 'rlid') },
        defaultLimit: ctx.nrpsPageSize,
      });
      if (page.next) res.set('Link', `<${page.next}>; rel="next"`);
      res.status(200).type(NRPS_MEDIA_TYPE).send(JSON.stringify(page.body));
    } catch (error) {
      if (!(error instanceof MembershipQueryError)) throw error;
      res.status(400).json({ error: 'invalid_request', error_description: error.message });
    }
  });
}

function deepLinkingReturnRoute(router: Router, ctx: DemoLmsContext, { renderError }: Pages, form: FormParser): void {
  // The deep-linking response (LTI Deep Linking 2.0 §4.2): the tool posts its signed JWT as the field `JWT`.
  router.post('/deep-linking/return', form, async (req, res) => {
    const token = text(bodyFields(req), 'JWT');
    if (!token) return renderError(res, 400, 'Nothing was added', 'The tool sent no JWT.');
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, ctx.toolKeys(), {
        issuer: ctx.clientId,
        audience: ctx.issuer,
        algorithms: ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'PS256'],
        requiredClaims: ['exp', 'iat', 'nonce'],
        currentDate: new Date(ctx.now()),
        clockTolerance: 5,
      }));
    } catch (error) {
      return renderError(res, 400, 'Nothing was added', `The tool's response could not be verified: ${messageOf(error)}`);
    }
    if (payload[CLAIM.messageType] !== 'LtiDeepLinkingResponse') return renderError(res, 400, 'Nothing was added', 'Wrong message type.');
    if (payload[CLAIM.version] !== '1.3.0') return renderError(res, 400, 'Nothing was added', 'Wrong LTI version.');
    if (payload[CLAIM.deploymentId] !== ctx.deploymentId) return renderError(res, 400, 'Nothing was added', 'Unknown deployment_id.');
    if (!ctx.oauth.remember(`dl-nonce:${String(payload.nonce)}`, ((payload.exp ?? 0) + 5) * 1000)) {
      return renderError(res, 400, 'Nothing was added', 'This response was already used.');
    }
    const errorMessage = payload['https://purl.imsglobal.org/spec/lti-dl/claim/errormsg'];
    const contentItems = payload[CLAIM.contentItems];
    const items: unknown[] = Array.isArray(contentItems) ? contentItems : [];
    const added: DemoLink[] = [];
    for (const raw of items) {
      if (!isRecord(raw) || raw.type !== 'ltiResourceLink') continue;
      const custom: Record<string, string> = {};
      if (typeof raw.custom === 'object' && raw.custom !== null) {
        for (const [key, value] of Object.entries(raw.custom)) if (['string', 'number', 'boolean'].includes(typeof value)) custom[key] = String(value);
      }
      added.push({
        id: `link-${randomBytes(6).toString('hex')}`,
        title: typeof raw.title === 'string' && raw.title.trim() ? raw.title.trim().slice(0, 200) : 'Proctored exam',
        text: typeof raw.text === 'string' ? raw.text.slice(0, 1000) : undefined,
        url: typeof raw.url === 'string' && /^https?:\/\//.test(raw.url) ? raw.url : undefined,
        custom,
      });
    }
    ctx.course.links.push(...added);
    const back = new URL(`${ctx.issuer}/`);
    back.searchParams.set('added', String(added.length));
    if (typeof errorMessage === 'string') back.searchParams.set('lti_errormsg', errorMessage.slice(0, 300));
    res.redirect(303, back.href);
  });
}

function quizRoutes(router: Router, ctx: DemoLmsContext, { render, renderError }: Pages, form: FormParser): void {
  // A small quiz standing in for the LMS quiz the exam guards: start page, attempt, review. The sandbox
  // configures the exam's launch_url and exam_start/take/end patterns on these URLs.
  // LTI Proctoring Services: the tool's LtiStartAssessment, checked strictly, opens the quiz of its attempt.
  router.post('/proctoring/start-assessment', form, async (req, res) => {
    const verified = await ctx.proctoring.verifyStart(text(bodyFields(req), 'JWT'));
    if (!verified.ok) return renderError(res, 400, 'The assessment cannot start', `The proctoring tool's LtiStartAssessment was refused: ${verified.reason}.`);
    const { attempt } = verified;
    res.redirect(303, `${res.req.baseUrl}/quiz/${encodeURIComponent(attempt.linkId)}/attempt?attempt=${encodeURIComponent(attempt.id)}`);
  });
  router.get('/quiz/:linkId', async (req, res) => {
    const link = ctx.course.links.find((candidate) => candidate.id === req.params.linkId);
    if (!link) return renderError(res, 404, 'Not found', 'There is no such quiz in this course.');
    await render(res, 200, 'quiz', { title: link.title, link, stage: 'start' });
  });
  router.get('/quiz/:linkId/attempt', async (req, res) => {
    const link = ctx.course.links.find((candidate) => candidate.id === req.params.linkId);
    if (!link) return renderError(res, 404, 'Not found', 'There is no such quiz in this course.');
    await render(res, 200, 'quiz', { title: link.title, link, stage: 'attempt', questions: QUIZ, attempt: text(req.query, 'attempt') });
  });
  router.post('/quiz/:linkId/attempt', form, async (req, res) => {
    const link = ctx.course.links.find((candidate) => candidate.id === req.params.linkId);
    if (!link) return renderError(res, 404, 'Not found', 'There is no such quiz in this course.');
    const answers = bodyFields(req);
    const score = QUIZ.filter((question, index) => text(answers, `q${index}`) === question.answer).length;
    // A proctored attempt (LTI Proctoring Services): its end goes to the tool when the tool asked for it.
    const attemptId = text(answers, 'attempt');
    const attempt = attemptId ? ctx.proctoring.byId(attemptId) : undefined;
    const end = attemptId ? ctx.proctoring.end(attemptId) : undefined;
    const user = attempt ? ctx.users.find((candidate) => candidate.id === attempt.userId) : undefined;
    if (end && user) {
      const login = await ctx.initiateLogin({ user: user.key, userId: user.id, flavor: 'ultra', kind: 'resource', linkId: link.id, presentation: 'window', proctoring: end });
      res.set('Cache-Control', 'no-store');
      await render(res, 200, 'autopost', { title: 'Ending proctoring…', message: `Score: ${score} / ${QUIZ.length}. Telling the proctoring tool that the attempt has ended.`, button: 'Continue to the tool', form: { action: login.url, method: 'post', fields: login.params } });
      return;
    }
    res.redirect(303, `${res.req.baseUrl}/quiz/${encodeURIComponent(link.id)}/review?score=${score}`);
  });
  router.get('/quiz/:linkId/review', async (req, res) => {
    const link = ctx.course.links.find((candidate) => candidate.id === req.params.linkId);
    if (!link) return renderError(res, 404, 'Not found', 'There is no such quiz in this course.');
    const score = Math.min(Number(text(req.query, 'score') ?? 0) || 0, QUIZ.length);
    await render(res, 200, 'quiz', { title: link.title, link, stage: 'review', score, total: QUIZ.length });
  });
}

const QUIZ: ReadonlyArray<{ question: string; options: string[]; answer: string }> = [
  { question: 'The median of 2, 3, 7, 8, 10 is…', options: ['3', '7', '6'], answer: '7' },
  { question: 'A p-value of 0.03 at α = 0.05 means…', options: ['reject H₀', 'accept H₀', 'nothing'], answer: 'reject H₀' },
  { question: 'The standard deviation is the square root of…', options: ['the mean', 'the variance', 'the range'], answer: 'the variance' },
];
