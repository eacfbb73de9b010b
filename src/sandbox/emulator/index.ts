import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import ejs from 'ejs';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import {
  LIMITS,
  validateCandidateLaunch,
  validateLaunchpad,
  validateLiveLaunch,
  validateReviewerLaunch,
  validateSubscribe,
  validateUnsubscribe,
  type ValidationResult,
  type Violation,
} from '../../proctoring/contract.js';
import type { ProctoringOperation } from '../../proctoring/errors.js';
import { createAuthenticator, type EmulatorAccount } from './accounts.js';
import { controlsPage } from './controls-page.js';
import { BODY_SHAPES, createFaultControls, faultSchema, type BodyShape, type FaultControls } from './faults.js';
import { candidateView, launchpadView, scriptJson, staffView } from './pages.js';
import { createSessionStore, type Session, type SessionLaunch } from './sessions.js';
import { deliveryBody, post, publicSubscription, sampleData, subscriptionFrom, type BodyOptions, type DeliveryResult, type StoredSubscription } from './webhooks.js';
import { bodyFields } from '../../http/request-input.js';
import { propertyOf } from '../../values.js';

export type { EmulatorAccount } from './accounts.js';
export { BODY_SHAPES, type BodyShape, type Fault, type FaultControls } from './faults.js';
export type { DeliveryResult, StoredSubscription } from './webhooks.js';

/**
 * Emulator of the proctoring service's Launch API (the Launch API specification) for sandbox mode and tests.
 * It answers the seven endpoints under `/v2/…` with the contract's own validators, keeps the sessions
 * behind the URLs it generates and shows them as pages, keeps webhook subscriptions and delivers
 * signed sample notifications, and lets tests inject faults. Mount its router at `publicBaseUrl`.
 */
export interface EmulatorOptions {
  /** Absolute URL at which the router is mounted, e.g. `http://localhost:3000/sandbox/proctoring`. */
  publicBaseUrl: string;
  accounts: EmulatorAccount[];
  /** The region this emulated deployment serves; keys of other regions get 401 2155. Any when omitted. */
  region?: string;
}

export interface ReceivedRequest {
  /** The path, e.g. `/v2/candidate/launch`. */
  endpoint: string;
  operation?: ProctoringOperation;
  method: string;
  body: unknown;
  /** Whether the api_key header was accepted (known key, right region, active account, endpoint enabled). */
  apiKeyValid: boolean;
  /** Consumer key of the account the key belongs to, when known. */
  account?: string;
  /** HTTP status answered; 0 when the connection was dropped on purpose. */
  status?: number;
  at: Date;
}

const ROOT = fileURLToPath(new URL('../../../', import.meta.url)).replace(/dist\/$/, '');
const VIEWS = join(ROOT, 'views', 'emulator');
const ASSETS = join(ROOT, 'public', 'emulator');
const MAX_RECEIVED = 10_000;
const JSON_LIMIT = '100kb';

/** A launch endpoint of the API: its request parsed into the launch a session opens with. */
interface LaunchEndpoint {
  path: string;
  operation: ProctoringOperation;
  defaultExpire: number;
  parse(body: unknown): ValidationResult<SessionLaunch>;
}

function launchOf<Body>(result: ValidationResult<Body>, launch: (body: Body) => SessionLaunch): ValidationResult<SessionLaunch> {
  return result.ok ? { ok: true, value: launch(result.value) } : result;
}

const LAUNCHES: readonly LaunchEndpoint[] = [
  {
    path: '/v2/candidate/launch',
    operation: 'candidate_launch',
    defaultExpire: LIMITS.candidateExpire.default,
    parse: (body) => launchOf(validateCandidateLaunch(body), (request) => ({ kind: 'candidate', body: request })),
  },
  {
    path: '/v2/reviewer/launch',
    operation: 'reviewer_launch',
    defaultExpire: LIMITS.staffExpire.default,
    parse: (body) => launchOf(validateReviewerLaunch(body), (request) => ({ kind: 'reviewer', body: request })),
  },
  {
    path: '/v2/live/launch',
    operation: 'live_launch',
    defaultExpire: LIMITS.staffExpire.default,
    parse: (body) => launchOf(validateLiveLaunch(body), (request) => ({ kind: 'live', body: request })),
  },
  {
    path: '/v2/live/launchpad',
    operation: 'launchpad',
    defaultExpire: LIMITS.staffExpire.default,
    parse: (body) => launchOf(validateLaunchpad(body), (request) => ({ kind: 'launchpad', body: request })),
  },
];

/** Faults a delivery can carry on demand. */
export const DELIVERY_FAULTS = ['duplicate', 'out_of_order', 'bad_signature', 'signature_only', 'wrong_key'] as const;
export type DeliveryFault = (typeof DELIVERY_FAULTS)[number];

const deliverSchema = z.strictObject({
  /** null sends no attempt_id at all, as a service that does not know one might. */
  attempt_id: z.string().min(1).max(100).nullable().optional(),
  user_id: z.string().min(1).max(100).optional(),
  /** The data shape to send, whatever version the subscription asked for. */
  version: z.enum(['2', '3']).optional(),
  suspicion: z.number().min(0).max(100).optional(),
  flags: z.record(z.string().max(100), z.number()).optional(),
  code: z.number().int().optional(),
  fault: z.enum(DELIVERY_FAULTS).optional(),
});
export type DeliverRequest = z.infer<typeof deliverSchema>;

const FAULT_BODIES: Partial<Record<DeliveryFault, BodyOptions>> = {
  bad_signature: { omitApiKey: true, badSignature: true },
  signature_only: { omitApiKey: true },
  wrong_key: { apiKey: 'not-the-subscription-key', badSignature: true },
};

interface Reply {
  status: number;
  type: 'application/json' | 'text/plain';
  body: string;
}
const json = (status: number, value: unknown): Reply => ({ status, type: 'application/json', body: JSON.stringify(value) });
const text = (status: number, body: string): Reply => ({ status, type: 'text/plain', body });
const badRequest = (violations: Violation[]): Reply => json(400, { code: 400, message: 'Bad request', violations });

/** What the emulator's parts share: its accounts, the requests it received, faults, sessions and subscriptions. */
interface EmulatorState {
  options: EmulatorOptions;
  base: string;
  received: ReceivedRequest[];
  faults: FaultControls;
  sessions: ReturnType<typeof createSessionStore>;
  subscriptions: StoredSubscription[];
  record(req: Request, operation: ProctoringOperation | undefined): ReceivedRequest;
  send(res: Response, entry: ReceivedRequest, reply: Reply): void;
}

type DeliverWebhooks = (request?: DeliverRequest, account?: string) => Promise<DeliveryResult[]>;

export function createEmulator(options: EmulatorOptions) {
  const received: ReceivedRequest[] = [];
  function record(req: Request, operation: ProctoringOperation | undefined): ReceivedRequest {
    const entry: ReceivedRequest = { endpoint: req.path, operation, method: req.method, body: req.body, apiKeyValid: false, at: new Date() };
    received.push(entry);
    // Trimmed a thousand at a time: shifting ten thousand entries per request would cost a busy emulator more than the request.
    if (received.length > MAX_RECEIVED + 1000) received.splice(0, received.length - MAX_RECEIVED);
    return entry;
  }

  function send(res: Response, entry: ReceivedRequest, reply: Reply): void {
    entry.status = reply.status;
    res.status(reply.status).type(reply.type).send(reply.body);
  }

  const state: EmulatorState = {
    options,
    base: options.publicBaseUrl.replace(/\/+$/, ''),
    received,
    faults: createFaultControls(),
    sessions: createSessionStore(),
    subscriptions: [],
    record,
    send,
  };
  const { faults, sessions, subscriptions } = state;
  const deliverWebhooks = createWebhookDelivery(state);

  const router = express.Router();
  router.use('/assets', express.static(ASSETS, { index: false, maxAge: 0 }));
  apiRoutes(router, state);
  sessionPages(router, state, deliverWebhooks);
  controlRoutes(router, state, deliverWebhooks);
  controlsPage(router, faults, renderView);

  return {
    router,
    received,
    faults,
    sessions,
    /** The kept subscriptions (with the account they belong to). */
    subscriptions: () => subscriptions.map((s) => ({ ...s })),
    deliverWebhooks,
    /** Forgets requests, sessions, subscriptions and faults. */
    reset() {
      received.length = 0;
      sessions.clear();
      subscriptions.length = 0;
      faults.clear();
    },
  };
}

/** The Launch API and the webhooks API, as the service answers them (with injected faults). */
function apiRoutes(router: Router, state: EmulatorState): void {
  const { options, base, faults, sessions, subscriptions, record, send } = state;
  const authenticate = createAuthenticator(options.accounts, options.region);

  /** One API endpoint: record, faults, authentication, then the handler. */
  function endpoint(method: 'get' | 'post', path: string, operation: ProctoringOperation, handle: (req: Request, account: EmulatorAccount) => Reply) {
    router[method](path, express.json({ limit: JSON_LIMIT }), async (req: Request, res: Response) => {
      const entry = record(req, operation);
      const plan = faults.takeForRequest();
      if (plan.latencyMs) await sleep(plan.latencyMs);
      if (res.destroyed || req.socket.destroyed) return;
      if (plan.drop) {
        entry.status = 0;
        req.socket.destroy();
        return;
      }
      if (plan.status) {
        const { status, body } = plan.status;
        send(res, entry, body === undefined ? json(status, { code: status, message: 'Emulated failure' }) : text(status, body));
        return;
      }
      const auth = authenticate(req.get('api_key'), operation);
      entry.account = auth.account?.consumerKey;
      entry.apiKeyValid = auth.ok;
      if (!auth.ok) {
        send(res, entry, json(401, auth.error));
        return;
      }
      send(res, entry, handle(req, auth.account));
    });
  }

  for (const launch of LAUNCHES) {
    endpoint('post', launch.path, launch.operation, (req, account) => {
      const result = launch.parse(req.body);
      if (!result.ok) return badRequest(result.violations);
      const { body } = result.value;
      const session = sessions.create({ ...result.value, account: account.consumerKey, expireSeconds: body.expire ?? launch.defaultExpire });
      const tag = 'exam_tag' in body && body.exam_tag ? `#${body.exam_tag}` : '';
      return launchAnswer(`${base}/session/${session.token}${tag}`, faults.takeBodyShape() ?? 'text');
    });
  }

  endpoint('get', '/v2/whks/list', 'webhooks_list', (_req, account) => {
    const mine = subscriptions.filter((s) => s.account === account.consumerKey).map(publicSubscription);
    // Public integrations of this API: an empty body means none.
    return mine.length === 0 ? text(200, '') : json(200, mine);
  });

  endpoint('post', '/v2/whks/subscribe/:type', 'webhooks_subscribe', (req, account) => {
    const result = validateSubscribe(req.body);
    if (!result.ok) return badRequest(result.violations);
    if (result.value.type !== req.params.type) {
      return badRequest([{ path: 'type', rule: 'type_mismatch', message: "'Webhook type' in the body must be the type in the path." }]);
    }
    const subscription = subscriptionFrom(account.consumerKey, result.value);
    subscriptions.push(subscription);
    return json(200, publicSubscription(subscription));
  });

  endpoint('post', '/v2/whks/unsubscribe', 'webhooks_unsubscribe', (req, account) => {
    const result = validateUnsubscribe(req.body);
    if (!result.ok) return badRequest(result.violations);
    const index = subscriptions.findIndex((s) => s.account === account.consumerKey && s.id === String(result.value.id));
    if (index < 0) return json(400, { code: 400, message: 'Bad request: no subscription with this id' });
    subscriptions.splice(index, 1);
    return text(200, 'Unsubscribed');
  });

  router.all('/v2/*path', (req, res) => {
    const entry = record(req, undefined);
    send(res, entry, json(404, { code: 404, message: 'Not found' }));
  });

  // Malformed or oversized JSON on the API.
  router.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    const type = propertyOf(error, 'type');
    if (!req.path.startsWith('/v2/') || (type !== 'entity.parse.failed' && type !== 'entity.too.large')) {
      next(error);
      return;
    }
    const entry = record(req, undefined);
    if (type === 'entity.too.large') send(res, entry, json(413, { code: 413, message: `Request body larger than ${JSON_LIMIT}` }));
    else send(res, entry, badRequest([{ path: '', rule: 'invalid_json', message: 'The request body is not valid JSON.' }]));
  });
}

/** Renders one of the emulator's pages (English, never cached). */
async function renderView(req: Request, res: Response, view: string, data: Record<string, unknown>, status = 200): Promise<void> {
  const html = await ejs.renderFile(join(VIEWS, `${view}.ejs`), { assets: `${req.baseUrl}/assets`, scriptJson, ...data });
  res.status(status).type('html').set('Cache-Control', 'no-store').send(html);
}

/** The pages behind the URLs the launches return: candidate, staff and launchpad views. */
function sessionPages(router: Router, state: EmulatorState, deliverWebhooks: DeliverWebhooks): void {
  const { sessions } = state;
  const render = renderView;

  router.get('/session/:token', async (req, res) => {
    const session = sessions.get(req.params.token);
    if (!session) {
      await render(req, res, 'message', { title: 'This link is not valid', heading: 'This link is not valid', text: 'The proctoring service does not know this link. Go back to your course and open the exam again.' }, 404);
      return;
    }
    if (session.expiresAt < Date.now()) {
      const seconds = Math.round((session.expiresAt - session.createdAt) / 1000);
      await render(req, res, 'message', {
        title: 'Link expired',
        heading: 'This link has expired',
        text: `Links from the proctoring service work for a limited time; this one was valid for ${seconds} seconds. Go back to your course and open the exam again to get a new link.`,
      }, 410);
      return;
    }
    const token = session.token;
    const endUrl = `${req.baseUrl}/session/${encodeURIComponent(token)}/end`;
    switch (session.kind) {
      case 'candidate':
        await render(req, res, 'candidate', { session, view: candidateView(session), endUrl, data: { kind: 'candidate', userId: session.body.user_id, rosterUrl: session.body.roster_url ?? null } });
        return;
      case 'reviewer':
      case 'live': {
        const attempts = sessions
          .list()
          .filter((s) => s.kind === 'candidate' && s.account === session.account && s.body.exam_tag === session.body.exam_tag && s.body.section_id === session.body.section_id)
          .map((s) => ({ userId: s.body.user_id, attemptId: 'attempt_id' in s.body ? (s.body.attempt_id ?? null) : null, startedAt: new Date(s.createdAt).toISOString(), outcome: s.ended?.outcome ?? 'in progress' }));
        await render(req, res, 'staff', { session, view: staffView(session), data: { kind: session.kind, rosterUrl: session.body.roster_url ?? null, attempts } });
        return;
      }
      case 'launchpad':
        await render(req, res, 'launchpad', { session, view: launchpadView(session), data: { kind: 'launchpad', examRosterUrl: session.body.exam_roster, rosterUrl: session.body.roster_url ?? null } });
        return;
    }
  });

  router.post('/session/:token/end', express.urlencoded({ extended: false, limit: '2kb' }), async (req, res) => {
    const session = sessions.get(req.params.token);
    const { outcome } = bodyFields(req);
    if (!session || session.kind !== 'candidate' || (outcome !== 'submitted' && outcome !== 'left')) {
      await render(req, res, 'message', { title: 'Not found', heading: 'This session does not exist', text: 'Go back to your course and open the exam again.' }, 404);
      return;
    }
    session.ended = { outcome, at: Date.now() };
    // The service calculates suspicion once the attempt ends and notifies subscribers: here at once.
    const attemptId = session.body.attempt_id;
    if (attemptId) void deliverWebhooks({ attempt_id: attemptId, user_id: session.body.user_id, code: outcome === 'submitted' ? 1 : 5 }, session.account);
    const { submit, leave } = candidateView(session);
    const target = outcome === 'submitted' ? submit.url : leave.url;
    if (target) {
      res.redirect(303, target);
      return;
    }
    await render(req, res, 'message', {
      title: 'Exam ended',
      heading: outcome === 'submitted' ? 'Exam submitted' : 'You left the exam',
      text: 'The request carried no redirect_url or redirect_settings, so the proctoring service has nowhere to send the candidate back to.',
    });
  });
}

/** Controls for tests and the sandbox: received requests, faults, webhook deliveries. */
function controlRoutes(router: Router, state: EmulatorState, deliverWebhooks: DeliverWebhooks): void {
  const { received, faults, subscriptions } = state;
  router.get('/_emulator/received', (_req, res) => {
    res.json(received);
  });
  router.delete('/_emulator/received', (_req, res) => {
    received.length = 0;
    res.status(204).end();
  });
  router.get('/_emulator/faults', (_req, res) => {
    res.json(faults.list());
  });
  router.post('/_emulator/faults', express.json({ limit: '16kb' }), (req, res) => {
    const parsed = z.union([faultSchema, z.array(faultSchema)]).safeParse(req.body);
    if (!parsed.success) {
      res.status(400).json({ message: `A fault is one of ${['latency {ms}', 'status {status, body?}', 'drop', `body {shape: ${BODY_SHAPES.join('|')}}`].join(', ')}, each with an optional times`, issues: parsed.error.issues });
      return;
    }
    for (const fault of Array.isArray(parsed.data) ? parsed.data : [parsed.data]) faults.inject(fault);
    res.json(faults.list());
  });
  router.delete('/_emulator/faults', (_req, res) => {
    faults.clear();
    res.status(204).end();
  });
  router.get('/_emulator/webhooks', (_req, res) => {
    res.json(subscriptions.map(publicSubscription));
  });
  router.post('/_emulator/webhooks/deliver', express.json({ limit: '16kb' }), async (req, res) => {
    const parsed = deliverSchema.safeParse(req.body ?? {});
    if (!parsed.success) {
      res.status(400).json({ message: `Send {attempt_id?, user_id?, version?, suspicion?, flags?, code?, fault?: ${DELIVERY_FAULTS.join('|')}}`, issues: parsed.error.issues });
      return;
    }
    res.json({ delivered: await deliverWebhooks(parsed.data) });
  });
}

/** Sample suspicion-calculation notifications to the subscribers, with the faults tests ask for. */
function createWebhookDelivery(state: EmulatorState): DeliverWebhooks {
  const { options, sessions, subscriptions } = state;
  const secretOf = (consumerKey: string) => options.accounts.find((a) => a.consumerKey === consumerKey)?.secret;

  function lastCandidate(account: string) {
    const candidates = sessions.list().filter((s): s is Extract<Session, { kind: 'candidate' }> => s.kind === 'candidate' && s.account === account);
    return candidates.at(-1);
  }

  /** One subscription's delivery of a sample result, with the fault asked for. */
  async function deliverTo(subscription: StoredSubscription, request: DeliverRequest): Promise<DeliveryResult[]> {
    const latest = lastCandidate(subscription.account)?.body;
    const ids = { attemptId: request.attempt_id === null ? undefined : (request.attempt_id ?? latest?.attempt_id ?? randomUUID()), userId: request.user_id ?? latest?.user_id ?? 'sample-user' };
    const version = request.version ?? subscription.version;
    const secret = secretOf(subscription.account) ?? '';
    const result = { suspicion: request.suspicion, flags: request.flags, code: request.code };
    const send = async (body: string): Promise<DeliveryResult> => ({ subscriptionId: subscription.id, url: subscription.url, version, ...(await post(subscription.url, body)) });
    switch (request.fault) {
      case 'duplicate': {
        const body = deliveryBody(subscription, secret, sampleData(version, ids, result));
        return Promise.all([send(body), send(body)]);
      }
      case 'out_of_order': {
        // The later calculation arrives first; the earlier one after it.
        const now = Math.floor(Date.now() / 1000);
        const later = deliveryBody(subscription, secret, sampleData(version, ids, { ...result, date: now }));
        const earlier = deliveryBody(subscription, secret, sampleData(version, ids, { ...result, suspicion: result.suspicion === undefined ? undefined : Math.max(0, result.suspicion - 10), date: now - 600 }));
        return [await send(later), await send(earlier)];
      }
      default:
        return [await send(deliveryBody(subscription, secret, sampleData(version, ids, result), request.fault ? FAULT_BODIES[request.fault] : {}))];
    }
  }

  /** Sends a sample suspicion-calculation notification to every subscriber (of one account, when named). */
  async function deliverWebhooks(request: DeliverRequest = {}, account?: string): Promise<DeliveryResult[]> {
    const targets = subscriptions.filter((s) => account === undefined || s.account === account);
    return (await Promise.all(targets.map((subscription) => deliverTo(subscription, request)))).flat();
  }

  return deliverWebhooks;
}

export type Emulator = ReturnType<typeof createEmulator>;

/** A launch's success body in the chosen shape (the real one is not documented). */
function launchAnswer(url: string, shape: BodyShape): Reply {
  switch (shape) {
    case 'text':
      return text(200, url);
    case 'json-string':
      return json(200, url);
    case 'array':
      return json(200, [url]);
    case 'object':
      return json(200, { url });
    case 'percent-encoded':
      return text(200, encodeURIComponent(url));
    case 'number':
      return json(200, 2003);
    case 'garbage':
      return text(200, '<html><body>Service temporarily unavailable</body></html>');
  }
}
