import assert from 'node:assert/strict';
import { decodeJwt, type JWTPayload } from 'jose';
import supertest from 'supertest';
import { parseAutoSubmitForm, type LoginInput } from '../../src/sandbox/demo-lms/index.js';
import type { TestApp } from './app.js';
import { pathOf } from './urls.js';

export type Agent = ReturnType<typeof supertest.agent>;

export interface Authorized {
  agent: Agent;
  state: string;
  idToken: string;
  claims: JWTPayload;
  redirectUri: string;
}

/**
 * The OIDC part of a launch, as a browser does it: the demo LMS's login initiation is posted to the tool,
 * the tool redirects to the LMS's authorization endpoint, which answers with the signed id_token form.
 */
export async function authorize(
  app: TestApp,
  input: LoginInput,
  agent: Agent = supertest.agent(app.baseUrl),
  /** Edits the login initiation's parameters before they are posted (tests of bad logins). */
  editLogin?: (params: Record<string, string>) => void,
): Promise<Authorized> {
  const demoLms = app.tool.sandbox?.demoLms;
  assert.ok(demoLms, 'sandbox demo LMS missing');
  const login = await demoLms.initiateLogin(input);
  editLogin?.(login.params);
  const toLogin = await agent.post(pathOf(login.url)).type('form').send(login.params);
  assert.equal(toLogin.status, 302, `login should redirect to the LMS, got ${toLogin.status}: ${toLogin.text.slice(0, 300)}`);
  const authResponse = await agent.get(pathOf(toLogin.headers.location as string));
  assert.equal(authResponse.status, 200, `authorization failed: ${authResponse.text.slice(0, 300)}`);
  const form = parseAutoSubmitForm(authResponse.text);
  assert.ok(form?.fields.id_token && form.fields.state, 'the LMS answered without an id_token form');
  return { agent, state: form.fields.state, idToken: form.fields.id_token, claims: decodeJwt(form.fields.id_token), redirectUri: form.action };
}

/** Posts an id_token to the tool's launch endpoint (the platform's form_post). */
export function postIdToken(auth: Pick<Authorized, 'agent' | 'redirectUri' | 'state'>, idToken: string) {
  return auth.agent.post(pathOf(auth.redirectUri)).type('form').send({ id_token: idToken, state: auth.state });
}

/**
 * A whole launch: OIDC flow and the id_token post, answered with the tool's final response (no redirect with a session
 * token). A student's first launch of an exam in a window shows the privacy notice: its button is pressed (`notice`
 * keeps the notice page), unless `stopAtNotice`.
 */
export async function launch(app: TestApp, input: LoginInput & { stopAtNotice?: boolean }, agent?: Agent) {
  const auth = await authorize(app, input, agent);
  const posted = await postIdToken(auth, auth.idToken);
  assertNoSessionInLocation(posted);
  const answered = await followSessionContinue(auth.agent, posted);
  const notice = noticeFormOf(answered);
  const response = notice && !input.stopAtNotice ? await continueFromNotice(auth.agent, answered) : answered;
  return { auth, response, notice: notice ? answered : undefined, ltik: app.sessionToken(auth.state) };
}

/** The privacy notice's form (a student's first launch of an exam in a window): its action and hidden fields. */
export function noticeFormOf(response: Pick<supertest.Response, 'status' | 'text'>): { action: string; fields: Record<string, string> } | undefined {
  const form = /<form method="post" action="([^"]+)" class="start-action" data-notice-continue>([\s\S]*?)<\/form>/.exec(response.text);
  if (response.status !== 200 || !form) return undefined;
  const fields: Record<string, string> = {};
  for (const m of form[2]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[m[1]!] = m[2]!;
  return { action: form[1]!, fields };
}

/** Presses the privacy notice's button as the browser does: its hidden fields posted to its action. */
export async function continueFromNotice(agent: Agent, notice: supertest.Response): Promise<supertest.Response> {
  const form = noticeFormOf(notice);
  assert.ok(form, `expected the privacy notice, got HTTP ${notice.status}: ${notice.text.slice(0, 300)}`);
  return agent.post(form.action).type('form').send(form.fields);
}

/** Staff launches answer with a page that posts the session token on to their page (its script does it in a browser). */
export async function followSessionContinue(agent: Agent, response: supertest.Response): Promise<supertest.Response> {
  const form = /<form method="post" action="([^"]+)" data-session-continue>\s*<input type="hidden" name="ltik" value="([^"]+)">/.exec(response.text);
  if (response.status !== 200 || !form) return response;
  return agent.post(form[1]!).type('form').send({ ltik: form[2] });
}

/** A launch's answer never sends the browser to a URL with the session token (ltijs's `?ltik=` redirect). */
export function assertNoSessionInLocation(response: supertest.Response): void {
  const location = response.headers.location as string | undefined;
  if (location === undefined) return;
  assert.doesNotMatch(location, /ltik=/, `redirected with the session token in the URL: ${location}`);
  assert.doesNotMatch(location, /^\/lti\/launch/, 'the launch is answered in the id_token POST itself');
}
