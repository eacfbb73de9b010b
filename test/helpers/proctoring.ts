import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import fc from 'fast-check';
import {
  EXAM_METRICS,
  EXAM_SETTINGS_OFF,
  FRAME_METRICS,
  isAbsoluteHttpUrl,
  POST_MESSAGE_NOTIFICATION,
  RESERVED_EXAM_TAGS,
  type BehaviorSettings,
  type BreakSettings,
  type CandidateLaunchRequest,
  type ExamSettings,
  type LaunchpadRequest,
  type LiveLaunchRequest,
  type ReviewerLaunchRequest,
  type SubscribeRequest,
} from '../../src/proctoring/contract.js';
import { createEmulator, type EmulatorAccount } from '../../src/sandbox/emulator/index.js';
import { createConformanceWatch } from '../contract/conformance.js';
import type { ExamSettingsDocument } from '../../src/exams/settings/document.js';
import { SETTINGS_DOCUMENT_VERSION } from '../../src/exams/settings/versions.js';
import { DEFAULT_INSTITUTION_SETTINGS } from '../../src/institution/settings.js';
import { candidateRequest as candidateMapping } from '../../src/launches/requests.js';

// ---- Valid requests, by hand and generated.

export const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** The members of a candidate request that come from the exam's document (the candidate mapping, with placeholder launch facts). */
export function candidateFieldsOf(document: ExamSettingsDocument): Record<string, unknown> {
  const request = candidateMapping(document, {
    ids: { userId: 'user', examTag: 'tag', sectionId: 'section' },
    institution: DEFAULT_INSTITUTION_SETTINGS,
    attemptId: 'attempt',
    returnLinks: { graceful: 'https://tool.example/g', ungraceful: 'https://tool.example/u' },
    rosterUrl: 'https://tool.example/roster',
  });
  return Object.fromEntries(Object.entries(request).filter(([field]) => field in document));
}

/** A valid exam settings document for a quiz at `launchUrl` (its pages under that address), every setting off. */
export function settingsDocument(launchUrl: string, change: Partial<ExamSettingsDocument> = {}): ExamSettingsDocument {
  const quiz = escapeRegExp(launchUrl);
  return { version: SETTINGS_DOCUMENT_VERSION, launch_url: launchUrl, exam_start: `^${quiz}.*`, exam_take: `^${quiz}/attempt.*`, exam_end: `^${quiz}/review.*`, exam_settings: { ...EXAM_SETTINGS_OFF }, ...change };
}

export const EXAM_SETTINGS: ExamSettings = {
  record_video: true,
  record_audio: true,
  record_screen: true,
  record_web_traffic: false,
  record_desk: 2,
  verify_video: true,
  verify_audio: true,
  verify_desktop: true,
  verify_id: 1,
  verify_signature: true,
  full_screen: 2,
  disable_clipboard: true,
  tabs: 1,
  close_tabs: true,
  one_screen: true,
  disable_printing: true,
  block_downloads: true,
  clear_cache: false,
  disable_right_click: true,
  calculator: 1,
  whiteboard: false,
  disable_extensions: false,
  live_proctor: false,
  mobile: false,
  advanced_program_detection: true,
  advanced_hardware_detection: false,
  advanced_vm_detection: false,
  allowed_macos_apps: ['com.apple.calculator'],
  allowed_windows_apps: [{ binary_name: 'calc.exe', product_name: 'Calculator', company_name: 'Microsoft' }],
  strict_apps_validation: 1,
};

export const QUIZ_URL = 'https://lms.example.edu/mod/quiz/view.php?id=42';

export function candidateRequest(overrides: Partial<CandidateLaunchRequest> = {}): CandidateLaunchRequest {
  return {
    launch_url: QUIZ_URL,
    exam_start: `^${escapeRegExp(QUIZ_URL)}$`,
    exam_take: '^https://lms\\.example\\.edu/mod/quiz/attempt\\.php.*',
    exam_end: '^https://lms\\.example\\.edu/mod/quiz/review\\.php.*',
    exam_settings: EXAM_SETTINGS,
    user_id: '6f1c2f8e-0c1b-5d7e-9a55-3c1f0a8b2d41',
    exam_tag: 'exam-42',
    attempt_id: 'a-1',
    redirect_url: 'https://tool.example.edu/return/a-1/submitted',
    redirect_settings: {
      graceful_submission_url: 'https://tool.example.edu/return/a-1/submitted',
      ungraceful_submission_url: 'https://tool.example.edu/return/a-1/ended',
    },
    break_settings: { number: 2, duration: 10, cumulative: true, on_time_exceeded: 1, desk_scan_after_break: true },
    branding: { primary_color: '1a73e8', secondary_color: 'FFFFFF', logo_url: 'https://tool.example.edu/logo' },
    ...overrides,
  };
}

export const reviewerRequest = (overrides: Partial<ReviewerLaunchRequest> = {}): ReviewerLaunchRequest => ({
  user_id: 'instructor-1',
  exam_settings: EXAM_SETTINGS,
  exam_tag: 'exam-42',
  ...overrides,
});

export const liveRequest = (overrides: Partial<LiveLaunchRequest> = {}): LiveLaunchRequest => ({
  user_id: 'proctor-1',
  exam_name: 'Midterm',
  exam_tag: 'exam-42',
  proctor_settings: { break_allowed: true, kickout_allowed: false },
  ...overrides,
});

export const launchpadRequest = (overrides: Partial<LaunchpadRequest> = {}): LaunchpadRequest => ({
  user_id: 'proctor-1',
  exam_roster: 'https://tool.example.edu/courses/1/exams',
  ...overrides,
});

export const subscribeRequest = (overrides: Partial<SubscribeRequest> = {}): SubscribeRequest => ({
  type: '1',
  version: '3',
  client: { url: 'https://tool.example.edu/webhooks/abc', key: 'receiver-key' },
  ...overrides,
});

const idArb = fc.stringMatching(/^[a-zA-Z0-9-]{1,36}$/);
const examTagArb = fc.stringMatching(/^[\x21-\x7e]{1,100}$/).filter((tag) => !(RESERVED_EXAM_TAGS as readonly string[]).includes(tag));
const shortText = (max: number) => fc.string({ minLength: 1, maxLength: max });
const hexColour = fc.stringMatching(/^[0-9a-fA-F]{6}$/);
export const urlArb = (max = 600) => fc.webUrl({ withQueryParameters: true }).filter((url) => url.length <= max && isAbsoluteHttpUrl(url));
const choice = <T extends number>(...values: T[]) => fc.constantFrom(...values);

/** Any exam settings, then made to respect the prerequisites the way an instructor would fix them. */
export const examSettingsArb: fc.Arbitrary<ExamSettings> = fc
  .record({
    record_video: fc.boolean(),
    record_audio: fc.boolean(),
    record_screen: fc.boolean(),
    record_web_traffic: fc.boolean(),
    record_desk: choice(0, 1, 2),
    verify_video: fc.boolean(),
    verify_audio: fc.boolean(),
    verify_desktop: fc.boolean(),
    verify_id: choice(0, 1, 2),
    verify_signature: fc.boolean(),
    full_screen: choice(0, 1, 2, 3),
    disable_clipboard: fc.boolean(),
    tabs: choice(0, 1, 2),
    close_tabs: fc.boolean(),
    one_screen: fc.boolean(),
    disable_printing: fc.boolean(),
    block_downloads: fc.boolean(),
    clear_cache: fc.boolean(),
    disable_right_click: fc.boolean(),
    calculator: choice(0, 1, 2, 3),
    whiteboard: fc.boolean(),
    disable_extensions: fc.boolean(),
    live_proctor: fc.boolean(),
    mobile: fc.boolean(),
    advanced_program_detection: fc.boolean(),
    advanced_hardware_detection: fc.boolean(),
    advanced_vm_detection: fc.boolean(),
    allowed_macos_apps: fc.array(shortText(100), { maxLength: 10 }),
    allowed_windows_apps: fc.array(fc.record({ binary_name: shortText(50), product_name: shortText(50), company_name: shortText(50) }), { maxLength: 10 }),
    strict_apps_validation: choice(0, 1),
  })
  .map(satisfyPrerequisites);

export function satisfyPrerequisites(input: ExamSettings): ExamSettings {
  const s = { ...input };
  if (s.mobile && s.verify_id === 2) s.mobile = false;
  if (s.record_desk > 0 || s.verify_id === 2 || s.live_proctor) {
    s.record_video = true;
    s.verify_video = true;
  }
  if (s.verify_video) s.record_video = true;
  if (s.verify_audio) s.record_audio = true;
  if (s.verify_desktop) s.record_screen = true;
  if (s.full_screen > 0) {
    s.close_tabs = true;
    s.one_screen = true;
    s.tabs = 1;
  }
  return s;
}

const weightArb = fc.integer({ min: 0, max: 5 });
export const behaviorSettingsArb: fc.Arbitrary<BehaviorSettings> = fc.record(
  {
    frame_metrics: fc.record(Object.fromEntries(FRAME_METRICS.map((m) => [m, weightArb])) as Record<(typeof FRAME_METRICS)[number], fc.Arbitrary<number>>, { requiredKeys: [] }),
    exam_metrics: fc.record(Object.fromEntries(EXAM_METRICS.map((m) => [m, fc.boolean()])) as Record<(typeof EXAM_METRICS)[number], fc.Arbitrary<boolean>>, { requiredKeys: [] }),
  },
  { requiredKeys: [] },
);

export const breakSettingsArb: fc.Arbitrary<BreakSettings> = fc.record(
  {
    number: fc.integer({ min: 1, max: 10 }),
    duration: fc.integer({ min: 1, max: 30 }),
    cumulative: fc.boolean(),
    on_time_exceeded: choice(0, 1),
    desk_scan_after_break: fc.boolean(),
  },
  { requiredKeys: ['number', 'duration'] },
);

const brandingArb = fc.record({ primary_color: hexColour, secondary_color: hexColour, logo_url: urlArb() }, { requiredKeys: [] });
const proctorSettingsArb = fc.record(
  { break_allowed: fc.boolean(), desk_scan_allowed: fc.boolean(), interrupt_allowed: fc.boolean(), kickout_allowed: fc.boolean() },
  { requiredKeys: [] },
);
const domainArb = fc.domain().filter((d) => d.length <= 100);
const pagePatternArb = fc.constantFrom(POST_MESSAGE_NOTIFICATION, '.*', 'attempt', '^https://lms\\.example\\.edu/quiz/\\d+/attempt(\\?.*)?$', '/(review|summary)\\.php');

export const candidateArb: fc.Arbitrary<CandidateLaunchRequest> = fc
  .record(
    {
      launch_url: urlArb(290),
      start: fc.constantFrom('exact', 'any', 'prefix'),
      exam_take: pagePatternArb,
      exam_end: pagePatternArb,
      exam_settings: examSettingsArb,
      user_id: idArb,
      expire: fc.integer({ min: 1, max: 18000 }),
      pre_auth: urlArb(),
      post_auth: urlArb(),
      pre_auth_bypass: fc.boolean(),
      redirect_url: urlArb(),
      redirect_settings: fc.record({ graceful_submission_url: urlArb(), ungraceful_submission_url: urlArb() }, { requiredKeys: [] }),
      attempt_id: idArb,
      display_name: shortText(100),
      extension_allowlist_url: urlArb(),
      break_settings: breakSettingsArb,
      branding: brandingArb,
      domain: domainArb,
      exam_tag: examTagArb,
      section_id: shortText(100),
      roster_url: urlArb(),
    },
    { requiredKeys: ['launch_url', 'start', 'exam_take', 'exam_end', 'exam_settings', 'user_id'] },
  )
  .map(({ start, ...request }) => {
    const exam_start = start === 'exact' ? `^${escapeRegExp(request.launch_url)}$` : start === 'any' ? '.*' : `^${escapeRegExp(request.launch_url.slice(0, 12))}`;
    const out: CandidateLaunchRequest = { ...request, exam_start };
    if (out.exam_settings.mobile || out.post_auth !== undefined) out.pre_auth ??= 'https://lms.example.edu/login';
    if (out.section_id !== undefined) out.roster_url ??= 'https://tool.example.edu/roster';
    return out;
  });

export const reviewerArb: fc.Arbitrary<ReviewerLaunchRequest> = fc
  .record(
    {
      user_id: idArb,
      exam_settings: examSettingsArb,
      expire: fc.integer({ min: 1, max: 3600 }),
      behavior_settings: behaviorSettingsArb,
      domain: domainArb,
      branding: brandingArb,
      exam_tag: examTagArb,
      section_id: shortText(100),
      roster_url: urlArb(),
    },
    { requiredKeys: ['user_id', 'exam_settings'] },
  )
  .map((r) => (r.section_id !== undefined ? { ...r, roster_url: r.roster_url ?? 'https://tool.example.edu/roster' } : r));

export const liveArb: fc.Arbitrary<LiveLaunchRequest> = fc
  .record(
    {
      user_id: idArb,
      expire: fc.integer({ min: 1, max: 3600 }),
      exam_name: shortText(100),
      behavior_settings: behaviorSettingsArb,
      proctor_settings: proctorSettingsArb,
      exam_tag: examTagArb,
      section_id: shortText(100),
      roster_url: urlArb(),
    },
    { requiredKeys: ['user_id'] },
  )
  .map((r) => (r.section_id !== undefined ? { ...r, roster_url: r.roster_url ?? 'https://tool.example.edu/roster' } : r));

export const launchpadArb: fc.Arbitrary<LaunchpadRequest> = fc.record(
  {
    user_id: idArb,
    exam_roster: urlArb(),
    roster_url: urlArb(),
    expire: fc.integer({ min: 1, max: 3600 }),
    behavior_settings: behaviorSettingsArb,
    proctor_settings: proctorSettingsArb,
  },
  { requiredKeys: ['user_id', 'exam_roster'] },
);

export const subscribeArb: fc.Arbitrary<SubscribeRequest> = fc.record(
  {
    type: fc.constant('1' as const),
    version: fc.constantFrom('2' as const, '3' as const),
    behavior_settings: behaviorSettingsArb,
    client: fc.record({ url: urlArb(), key: shortText(50) }, { requiredKeys: ['url'] }),
  },
  { requiredKeys: ['type', 'client'] },
);

// ---- The emulator on a real port.

/** A scripted emulator fault: one 401 answer with the Launch API's error `code`. */
export const unauthorized = (code: number) => ({ kind: 'status' as const, status: 401, body: JSON.stringify({ code, message: 'Unauthorized' }), times: 1 });

export const MAIN = { consumerKey: 'consumer-main', secret: 'main-secret-value', region: 'US', active: true } satisfies EmulatorAccount;
export const ACCOUNTS: EmulatorAccount[] = [
  MAIN,
  { consumerKey: 'consumer-eu', secret: 'eu-secret-value', region: 'EU', active: true },
  { consumerKey: 'consumer-off', secret: 'off-secret-value', region: 'US', active: false },
  { consumerKey: 'consumer-limited', secret: 'limited-secret-value', region: 'US', active: true, endpoints: ['candidate_launch'] },
  { consumerKey: 'consumer-ready', secret: 'ready-secret-value', apiKey: 'ready-made-api-key-0123456789', region: 'US', active: true },
];

export interface EmulatorServer {
  /** The API base URL (where the emulator router is mounted). */
  base: string;
  origin: string;
  emulator: ReturnType<typeof createEmulator>;
  /** Headers of every request that reached the server. */
  headers: IncomingHttpHeaders[];
  server: Server;
  /** Checks every body the tool's client sends against the hand-written reading of the Launch API document. */
  conformance: ReturnType<typeof createConformanceWatch>;
  /** Stops the server; fails when the client sent a request the Launch API document forbids. */
  close(): Promise<void>;
}

export async function startEmulator(options: { accounts?: EmulatorAccount[]; region?: string } = {}): Promise<EmulatorServer> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const base = `${origin}/sandbox/proctoring`;
  const emulator = createEmulator({ publicBaseUrl: base, accounts: options.accounts ?? ACCOUNTS, region: options.region ?? 'US' });
  const headers: IncomingHttpHeaders[] = [];
  const conformance = createConformanceWatch();
  const app = express();
  app.use((req, res, next) => {
    headers.push(req.headers);
    conformance.observe(req, res);
    next();
  });
  app.use('/sandbox/proctoring', emulator.router);
  server.on('request', app);
  return {
    base,
    origin,
    emulator,
    headers,
    server,
    conformance,
    async close() {
      await closeServer(server);
      conformance.assertConformed();
    },
  };
}

export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** A plain server on another port (another origin) for rosters, redirects and webhook receivers. */
export async function startSideServer(app: express.Express): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => closeServer(server) };
}
