import assert from 'node:assert/strict';
import { decodeJwt, type JWTPayload } from 'jose';
import supertest from 'supertest';
import { parseAutoSubmitForm, type LoginInput } from '../../src/sandbox/demo-lms/index.js';
import type { TestApp } from './app.js';

export type Agent = ReturnType<typeof supertest.agent>;

const pathOf = (url: string) => {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
};

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

/** A whole launch: OIDC flow, id_token post, and the GET with the session the tool redirects to. */
export async function launch(app: TestApp, input: LoginInput, agent?: Agent) {
  const auth = await authorize(app, input, agent);
  const posted = await postIdToken(auth, auth.idToken);
  assert.equal(posted.status, 302, `launch post refused (${posted.status}): ${posted.text.slice(0, 400)}`);
  const location = posted.headers.location as string;
  assert.match(location, /^\/lti\/launch\?.*ltik=/);
  const final = await auth.agent.get(location);
  return { auth, response: final, ltik: new URL(location, app.baseUrl).searchParams.get('ltik') ?? '' };
}
