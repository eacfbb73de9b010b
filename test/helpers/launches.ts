// Helpers of the launch tests: full OIDC launches through the demo LMS, with optional changes to the
// id_token (re-signed with the demo LMS's own key, as a real platform would send them), hub buttons,
// and the values a request must carry, derived independently of the launch service.
import assert from 'node:assert/strict';
import cookieParser from 'cookie-parser';
import { parse } from 'csv-parse/sync';
import express from 'express';
import type { JWTPayload } from 'jose';
import supertest from 'supertest';
import { createHostedLinks, HOSTED_ROUTES } from '../../src/hosted/links.js';
import { createCsrf } from '../../src/http/csrf.js';
import { createInstitutionSettingsStore, type InstitutionSettingsInput } from '../../src/institution/settings.js';
import { deriveExamTag, deriveSectionId, deriveUserId } from '../../src/lti/identifiers.js';
import { returnLink } from '../../src/launches/return-links.js';
import type { LoginInput } from '../../src/sandbox/demo-lms/index.js';
import type { ReceivedRequest } from '../../src/sandbox/emulator/index.js';
import { TEST_ENCRYPTION_KEY, type TestApp, installationSecret } from './app.js';
import { assertNoSessionInLocation, authorize, continueFromNotice, followSessionContinue, noticeFormOf, postIdToken } from './lti-flow.js';
import { invalidateReadCaches } from '../../src/db/read-cache.js';

export type Agent = ReturnType<typeof supertest.agent>;
export type Flavor = 'canvas' | 'moodle';

export const CLAIMS = {
  roles: 'https://purl.imsglobal.org/spec/lti/claim/roles',
  context: 'https://purl.imsglobal.org/spec/lti/claim/context',
  resourceLink: 'https://purl.imsglobal.org/spec/lti/claim/resource_link',
  deploymentId: 'https://purl.imsglobal.org/spec/lti/claim/deployment_id',
  nrps: 'https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice',
  custom: 'https://purl.imsglobal.org/spec/lti/claim/custom',
  presentation: 'https://purl.imsglobal.org/spec/lti/claim/launch_presentation',
  placement: 'https://www.instructure.com/placement',
} as const;

const M = 'http://purl.imsglobal.org/vocab/lis/v2/membership#';
const SUB = 'http://purl.imsglobal.org/vocab/lis/v2/membership/';
const SYS = 'http://purl.imsglobal.org/vocab/lis/v2/system/person#';
const INST = 'http://purl.imsglobal.org/vocab/lis/v2/institution/person#';
export const ROLES = {
  learner: `${M}Learner`,
  instructor: `${M}Instructor`,
  ta: `${SUB}Instructor#TeachingAssistant`,
  contentDeveloper: `${M}ContentDeveloper`,
  mentor: `${M}Mentor`,
  systemUser: `${SYS}User`,
  institutionInstructor: `${INST}Instructor`,
} as const;

export interface LaunchOptions extends LoginInput {
  /** Changes the id_token's claims before the LMS key signs them again. */
  claims?: (claims: JWTPayload) => void;
  /** Changes the login initiation's fields (e.g. another issuer registered with the same key). */
  login?: (params: Record<string, string>) => void;
  agent?: Agent;
  /** Answers with the privacy notice of a student's first launch in a window instead of pressing its button. */
  stopAtNotice?: boolean;
}

export interface Launched {
  agent: Agent;
  /** The tool's answer; after the privacy notice (a student's first launch of an exam in a window), its button's. */
  response: supertest.Response;
  /** The privacy notice the launch answered with first, when it did. */
  notice?: supertest.Response;
  ltik: string;
  claims: JWTPayload;
  idToken: string;
  state: string;
  redirectUri: string;
}

/**
 * A whole launch through the real OIDC flow; the answer to the id_token POST is the tool's answer. A student's first
 * launch of an exam in a window answers with the privacy notice: its button is pressed (the notice is kept in
 * `notice`), unless `stopAtNotice`.
 */
export async function launchAs(app: TestApp, options: LaunchOptions): Promise<Launched> {
  const demoLms = app.tool.sandbox?.demoLms;
  assert.ok(demoLms, 'sandbox demo LMS missing');
  const auth = await authorize(app, options, options.agent ?? supertest.agent(app.baseUrl), options.login);
  const { agent, claims } = auth;
  let idToken = auth.idToken;
  if (options.claims) {
    options.claims(claims);
    idToken = await demoLms.signIdToken(claims);
  }
  const posted = await postIdToken(auth, idToken);
  assertNoSessionInLocation(posted);
  const answered = await followSessionContinue(agent, posted);
  const notice = noticeFormOf(answered) ? answered : undefined;
  const response = notice && !options.stopAtNotice ? await continueFromNotice(agent, notice) : answered;
  let ltik = '';
  try {
    ltik = app.sessionToken(auth.state);
  } catch {
    ltik = ''; // a refused launch has no session
  }
  return { agent, response, notice, ltik, claims, idToken, state: auth.state, redirectUri: auth.redirectUri };
}

/** The incident id an error page shows. */
export const incidentOf = (html: string) => /incident id: <code>([0-9a-f-]{36})<\/code>/.exec(html)?.[1];

/** The retry form of an error page: a POST whose hidden fields carry the session (never its URL). */
export function retryOf(html: string): { action: string; fields: Record<string, string> } | undefined {
  const form = /<form method="post" action="([^"]+)" data-retry>([\s\S]*?)<\/form>/.exec(html);
  if (!form) return undefined;
  const fields: Record<string, string> = {};
  for (const m of form[2]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[m[1]!] = m[2]!;
  return { action: form[1]!, fields };
}

/** Replaces the launch's roles. */
export const withRoles =
  (...roles: string[]) =>
  (claims: JWTPayload) => {
    claims[CLAIMS.roles] = roles;
  };

export function emulator(app: TestApp) {
  const em = app.tool.sandbox?.emulator;
  assert.ok(em, 'sandbox emulator missing');
  return em;
}

/** The requests the emulator received while `work` ran. */
export async function callsDuring<T>(app: TestApp, work: () => Promise<T>): Promise<{ result: T; calls: ReceivedRequest[] }> {
  const before = emulator(app).received.length;
  const result = await work();
  return { result, calls: emulator(app).received.slice(before) };
}

/** The one request the emulator received while `work` ran. */
export async function oneCall<T>(app: TestApp, endpoint: string, work: () => Promise<T>): Promise<{ result: T; body: Record<string, unknown> }> {
  const { result, calls } = await callsDuring(app, work);
  assert.equal(calls.length, 1, `expected one call to ${endpoint}, got ${calls.map((c) => c.endpoint).join(', ') || 'none'}`);
  const call = calls[0]!;
  assert.equal(call.endpoint, endpoint);
  assert.equal(call.apiKeyValid, true);
  assert.equal(call.status, 200, `the emulator answered ${call.status}: ${JSON.stringify(call.body)}`);
  return { result, body: call.body as Record<string, unknown> };
}

/** The hidden fields and actions of the hub's forms. */
export function hubForms(html: string): { csrf: string; ltik: string; actions: string[] } {
  const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const ltik = /name="ltik" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const actions = [...html.matchAll(/<form method="post" action="([^"]+)"/g)].map((m) => m[1]!);
  return { csrf, ltik, actions };
}

/**
 * Presses a hub button (review or live) as the browser would. Without a hub form on the page (a student,
 * a designer), a CSRF token valid for that very session is minted, so the role check itself is tested.
 */
export async function pressHubButton(
  launched: Pick<Launched, 'agent' | 'response' | 'ltik'>,
  action: 'review' | 'live',
  override: { csrf?: string | null; ltik?: string; examId?: string } = {},
) {
  const forms = hubForms(launched.response.text);
  const examId = override.examId ?? /\/lti\/hub\/([0-9a-f-]{36})\//.exec(launched.response.text)?.[1] ?? '';
  const ltik = override.ltik ?? (forms.ltik || launched.ltik);
  const fields: Record<string, string> = { ltik };
  // The agent attaches its cookies when a request is created: mint first.
  if (override.csrf === undefined && !forms.csrf) {
    const minted = await mintCsrf(ltik);
    fields._csrf = minted.token;
    setAgentCookie(launched.agent, minted.cookie);
  } else if (override.csrf !== null) {
    fields._csrf = override.csrf ?? forms.csrf;
  }
  return launched.agent.post(`/lti/hub/${examId}/${action}`).type('form').send(fields);
}

/** The hub's "Download CSV" as the browser sends it (the filter form's fields), parsed by column name. */
export async function downloadAttemptsCsv(launched: Pick<Launched, 'agent' | 'response' | 'ltik'>, fields: Record<string, string> = {}): Promise<Record<string, string>[]> {
  const examId = /\/lti\/hub\/([0-9a-f-]{36})\//.exec(launched.response.text)?.[1] ?? '';
  const response = await launched.agent.post(`/lti/hub/${examId}/attempts.csv`).type('form').send({ ltik: hubForms(launched.response.text).ltik || launched.ltik, ...fields });
  assert.equal(response.status, 200, response.text.slice(0, 300));
  return parse(response.text, { bom: true, columns: true }) as Record<string, string>[];
}

/** Puts a cookie in the agent's jar (a Cookie header set on an agent's request is replaced by the jar's). */
export function setAgentCookie(agent: Agent, cookie: string): void {
  agent.jar.setCookie(`${cookie}; Path=/`, '127.0.0.1', '/');
}

/** A CSRF token and cookie of the app's own kind (same secret) for the session of this ltik. */
export async function mintCsrf(ltik: string): Promise<{ token: string; cookie: string }> {
  const csrf = createCsrf({ secret: TEST_ENCRYPTION_KEY, secure: false, sessionIdOf: (req) => (typeof req.query.ltik === 'string' ? req.query.ltik : '') });
  const mint = express();
  mint.use(cookieParser());
  mint.get('/', (req, res) => {
    res.json({ token: csrf.tokenFor(req, res) });
  });
  const response = await supertest(mint).get('/').query({ ltik });
  assert.equal(response.status, 200, 'CSRF token minted');
  const cookie = (response.headers['set-cookie'] as unknown as string[] | undefined)?.[0]?.split(';')[0] ?? '';
  return { token: (response.body as { token: string }).token, cookie };
}

export interface Derived {
  secret: string;
  userId(issuer: string, sub: string): string;
  examTag(issuer: string, deploymentId: string, resourceLinkId: string): string;
  sectionId(issuer: string, deploymentId: string, contextId: string): string;
  returnLinks(attemptId: string): { graceful: string; ungraceful: string };
  /** Checks a roster or exam-roster URL: the tool's endpoint, a token for this section valid for about `ttl` seconds (+5 min margin). */
  checkHostedUrl(url: unknown, kind: 'roster' | 'exam-roster', sectionId: string, ttlSeconds: number): Promise<void>;
}

export async function derived(app: TestApp): Promise<Derived> {
  const secret = await installationSecret(app.db, 'pseudonyms');
  const links = createHostedLinks({ baseUrl: app.baseUrl, secret: await installationSecret(app.db, 'hosted-links') });
  return {
    secret,
    userId: (issuer, sub) => deriveUserId(secret, issuer, sub),
    examTag: (issuer, deploymentId, resourceLinkId) => deriveExamTag(secret, issuer, deploymentId, resourceLinkId),
    sectionId: (issuer, deploymentId, contextId) => deriveSectionId(secret, issuer, deploymentId, contextId),
    returnLinks: (attemptId) => ({
      graceful: returnLink(app.baseUrl, secret, attemptId, 'submitted'),
      ungraceful: returnLink(app.baseUrl, secret, attemptId, 'ended'),
    }),
    async checkHostedUrl(url, kind, sectionId, ttlSeconds) {
      assert.equal(typeof url, 'string');
      const parsed = new URL(url as string);
      assert.equal(`${parsed.origin}${parsed.pathname}`, `${app.baseUrl}${kind === 'roster' ? HOSTED_ROUTES.roster : HOSTED_ROUTES.examRoster}`);
      const token = parsed.searchParams.get('t') ?? '';
      const verified = await links.verify(token, kind);
      assert.ok(verified, `${kind} token does not verify`);
      assert.equal(verified.sectionId, sectionId);
      const remaining = (verified.expiresAt.getTime() - Date.now()) / 1000;
      assert.ok(remaining > ttlSeconds + 300 - 60 && remaining <= ttlSeconds + 300 + 1, `${kind} link valid for ${remaining} s, expected about ${ttlSeconds + 300}`);
      assert.equal(await links.verify(token, kind === 'roster' ? 'exam-roster' : 'roster'), undefined, 'a token of one kind is refused as the other');
    },
  };
}

export async function setInstitution(app: TestApp, settings: InstitutionSettingsInput): Promise<void> {
  const demoLms = app.tool.sandbox?.demoLms;
  assert.ok(demoLms);
  await createInstitutionSettingsStore(app.db).save(demoLms.registration.issuer, demoLms.registration.clientId, settings);
}

/** The demo course's exam row. */
export async function demoExam(app: TestApp) {
  const demoLms = app.tool.sandbox?.demoLms;
  assert.ok(demoLms);
  const result = await app.db.query<{ id: string; settings: Record<string, unknown> | null }>(
    'SELECT id, settings FROM exams WHERE issuer = $1 AND resource_link_id = $2 AND context_id = $3',
    [demoLms.registration.issuer, demoLms.course.exam.id, demoLms.course.id],
  );
  const row = result.rows[0];
  assert.ok(row, 'the demo exam is seeded');
  return row;
}

export async function saveExamSettings(app: TestApp, examId: string, settings: Record<string, unknown> | null): Promise<void> {
  await app.db.query('UPDATE exams SET settings = $2::jsonb WHERE id = $1', [examId, settings === null ? null : JSON.stringify(settings)]);
  invalidateReadCaches(); // written with SQL: this process's cached exam reads see it at once
}

export async function attemptOf(app: TestApp, attemptId: string) {
  const result = await app.db.query<{ status: string; is_test: boolean; ended_at: Date | null; return_url: string | null }>('SELECT status, is_test, ended_at, return_url FROM attempts WHERE id = $1', [attemptId]);
  return result.rows[0];
}

/** The launch log's rows, once the records of the launches answered so far are written (they follow the answer). */
export async function launchLog(app: TestApp) {
  await app.tool.launchesRecorded();
  const result = await app.db.query<{ user_id: string; role: string; endpoint: string | null; outcome: string; error_code: string | null; incident_id: string | null; exam_id: string | null; duration_ms: number }>(
    'SELECT user_id, role, endpoint, outcome, error_code, incident_id, exam_id, duration_ms FROM launch_log ORDER BY id',
  );
  return result.rows;
}

/** The exam of the settings page a launch opened (a first launch by an instructor), asserted to be one. */
export function settingsPageExamId(response: supertest.Response): string {
  assert.equal(response.status, 200, response.text.slice(0, 300));
  const examId = /<form id="settings-form"[^>]*data-exam-id="([0-9a-f-]{36})"/.exec(response.text)?.[1];
  assert.ok(examId, 'the answer is an exam settings page');
  return examId;
}
