import { z } from 'zod';
import { DEFAULT_LOCALE, translator, wording, type MessageValues, type Wording } from '../i18n/index.js';
import { OutboundError, type GuardedHttp } from '../net/guarded-http.js';
import { hasControlCharacters } from '../text/control-characters.js';
import { propertyOf } from '../values.js';
import type { PlatformInput } from './provider.js';

/**
 * LTI Dynamic Registration (1EdTech LTI-DR 1.0), tool side. ltijs's own flow fetches any URL for
 * anyone and ignores the deployment id the LMS returns; this one is gated by an admin-issued link
 * (checked by the caller), refuses a configuration whose issuer lives on another host than the URL it
 * came from, and records the deployment id.
 */

export const openIdConfigurationSchema = z.object({
  issuer: z.string().url(),
  authorization_endpoint: z.string().url(),
  token_endpoint: z.string().url(),
  jwks_uri: z.string().url(),
  registration_endpoint: z.string().url(),
  authorization_server: z.string().optional(),
  claims_supported: z.array(z.string()).optional(),
  'https://purl.imsglobal.org/spec/lti-platform-configuration': z
    .object({
      product_family_code: z.string().optional(),
      version: z.string().optional(),
      messages_supported: z.array(z.object({ type: z.string(), placements: z.array(z.string()).optional() })).optional(),
    })
    .optional(),
});
export type OpenIdConfiguration = z.infer<typeof openIdConfigurationSchema>;

const registrationResponseSchema = z.object({
  client_id: z.string().min(1),
  'https://purl.imsglobal.org/spec/lti-tool-configuration': z
    .object({ deployment_id: z.string().min(1).optional() })
    .passthrough()
    .optional(),
});

/** `message` may be shown to the person registering; `detail` is for the log only. */
export class RegistrationError extends Error {
  readonly detail: string;
  /** The cause in the reader's language (`causes:registration.<key>`); `message` is its English. */
  readonly words: Wording;
  constructor(key: string, values?: MessageValues, detail?: string) {
    const words = wording(`causes:registration.${key}`, values);
    const message = words(translator(DEFAULT_LOCALE));
    super(message);
    this.name = 'RegistrationError';
    this.words = words;
    this.detail = detail ?? message;
  }
}

/** Largest answer read from an LMS during registration. */
export const MAX_REGISTRATION_ANSWER_BYTES = 1_000_000;
/** One deadline for the whole registration: both requests, connections and bodies included. */
export const REGISTRATION_DEADLINE_MS = 10_000;

export interface ToolDescription {
  name: string;
  description: string;
  publicUrl: URL;
  loginUrl: string;
  launchUrl: string;
  jwksUrl: string;
  logoUrl?: string;
}

/** The issuer must be on the host the configuration was fetched from, or anyone could impersonate an LMS. */
export function checkIssuerHost(openIdConfigurationUrl: string, configuration: OpenIdConfiguration): void {
  const fetchedFrom = new URL(openIdConfigurationUrl);
  const issuer = new URL(configuration.issuer);
  if (issuer.host !== fetchedFrom.host) {
    throw new RegistrationError('issuerElsewhere', { issuer: issuer.host, fetchedFrom: fetchedFrom.host });
  }
  if (fetchedFrom.protocol !== 'https:' && !['localhost', '127.0.0.1', '[::1]'].includes(fetchedFrom.hostname)) {
    throw new RegistrationError('notHttps');
  }
  // The registration request carries the LMS's bearer token: it goes nowhere but the issuer's own host.
  const registrationEndpoint = new URL(configuration.registration_endpoint);
  if (registrationEndpoint.host !== issuer.host) {
    throw new RegistrationError('endpointElsewhere', { endpoint: registrationEndpoint.host, issuer: issuer.host });
  }
}

/** Substitutions the tool asks Canvas for in every launch (Canvas's variable substitutions). */
export const CANVAS_CUSTOM_PARAMETERS: Readonly<Record<string, string>> = {
  canvas_user_is_test: '$Canvas.user.isFakeStudent',
  canvas_course_id: '$Canvas.course.id',
};

export function buildRegistrationRequest(tool: ToolDescription, configuration: OpenIdConfiguration): Record<string, unknown> {
  const family = configuration['https://purl.imsglobal.org/spec/lti-platform-configuration']?.product_family_code;
  const supported = configuration['https://purl.imsglobal.org/spec/lti-platform-configuration']?.messages_supported ?? [];
  const supportsDeepLinking = supported.length === 0 || supported.some((m) => m.type === 'LtiDeepLinkingRequest');
  const canvas = family === 'canvas';

  const resourceLinkMessage: Record<string, unknown> = { type: 'LtiResourceLinkRequest', target_link_uri: tool.launchUrl, label: tool.name };
  if (canvas) {
    // Canvas: a course-navigation entry opens the proctor launchpad, always in a new window.
    resourceLinkMessage.placements = ['course_navigation'];
    resourceLinkMessage.custom_parameters = { placement: 'launchpad' };
    resourceLinkMessage['https://canvas.instructure.com/lti/display_type'] = 'new_window';
    resourceLinkMessage['https://canvas.instructure.com/lti/course_navigation/default_enabled'] = false;
  }
  const messages: Record<string, unknown>[] = [resourceLinkMessage];
  if (supportsDeepLinking) {
    const deepLinking: Record<string, unknown> = { type: 'LtiDeepLinkingRequest', target_link_uri: tool.launchUrl, label: tool.name };
    if (canvas) {
      deepLinking.placements = ['assignment_selection', 'link_selection'];
      deepLinking['https://canvas.instructure.com/lti/display_type'] = 'new_window';
    }
    messages.push(deepLinking);
  }
  // LTI Proctoring Services 1.0: a platform that offers the proctoring messages (Learn, Open edX) reads them here.
  for (const type of ['LtiStartProctoring', 'LtiEndAssessment'] as const) {
    if (supported.some((m) => m.type === type)) messages.push({ type, target_link_uri: tool.launchUrl, label: tool.name });
  }

  const toolConfiguration: Record<string, unknown> = {
    domain: tool.publicUrl.host,
    description: tool.description,
    target_link_uri: tool.launchUrl,
    claims: ['iss', 'sub', 'name', 'given_name', 'family_name'],
    messages,
  };
  // Ask for names so the roster can show them; the proctoring service itself never receives them.
  if (canvas) toolConfiguration['https://canvas.instructure.com/lti/privacy_level'] = 'name_only';
  // Canvas's own course id (its LTI context id is opaque): a course copy's page then links the copy's quizzes;
  // and Canvas's Student View user, marked as a test.
  if (canvas) toolConfiguration.custom_parameters = CANVAS_CUSTOM_PARAMETERS;

  return {
    application_type: 'web',
    response_types: ['id_token'],
    grant_types: ['implicit', 'client_credentials'],
    initiate_login_uri: tool.loginUrl,
    redirect_uris: [tool.launchUrl],
    client_name: tool.name,
    jwks_uri: tool.jwksUrl,
    ...(tool.logoUrl ? { logo_uri: tool.logoUrl } : {}),
    token_endpoint_auth_method: 'private_key_jwt',
    scope: 'https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly',
    'https://purl.imsglobal.org/spec/lti-tool-configuration': toolConfiguration,
  };
}

const UNREADABLE = { configuration: 'configurationUnreadable', registration: 'registrationRefused' } as const;

async function requestJson(
  http: GuardedHttp,
  url: string,
  init: { method?: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
  what: keyof typeof UNREADABLE,
  signal: AbortSignal,
): Promise<unknown> {
  // Whatever went wrong (refused address, connection, status, size, format), the page says the same:
  // a different text per case would let anyone holding a link map hosts and ports through the tool.
  const unreadable = (detail: string) => new RegistrationError(UNREADABLE[what], undefined, `${what} request to ${url}: ${detail}`);
  let response;
  try {
    response = await http.request(url, { ...init, signal });
  } catch (error) {
    throw unreadable(error instanceof OutboundError ? error.message : String(error));
  }
  if (response.status < 200 || response.status > 299) throw unreadable(`status ${response.status}: ${response.text.slice(0, 300)}`);
  try {
    // Moodle answers JSON with Content-Type text/html: parse whatever the type says.
    return JSON.parse(response.text);
  } catch {
    throw unreadable('the answer is not JSON');
  }
}

const stringOrUndefined = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** What an LMS sends is shown later in pages, logs and terminals: control characters are refused outright. */
function refuseControlCharacters(fields: Record<string, string | undefined>): void {
  const bad = Object.entries(fields).filter(([, value]) => value !== undefined && hasControlCharacters(value)).map(([name]) => name);
  if (bad.length > 0) throw new RegistrationError('controlCharacters', { fields: bad.join(', ') });
}

/** Runs the registration against the LMS and returns what to store (the caller registers it). */
export async function registerWithPlatform(input: {
  openIdConfigurationUrl: string;
  registrationToken?: string;
  tool: ToolDescription;
  userAgent: string;
  http: GuardedHttp;
  deadlineMs?: number;
}): Promise<{ platform: PlatformInput; productFamily?: string }> {
  const signal = AbortSignal.timeout(input.deadlineMs ?? REGISTRATION_DEADLINE_MS);
  let configUrl: URL;
  try {
    configUrl = new URL(input.openIdConfigurationUrl);
  } catch {
    throw new RegistrationError('configurationNotUrl');
  }
  const raw = await requestJson(input.http, configUrl.href, { headers: { Accept: 'application/json', 'User-Agent': input.userAgent } }, 'configuration', signal);
  const parsed = openIdConfigurationSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RegistrationError(
      'configurationIncomplete',
      undefined,
      `configuration from ${configUrl.href}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim(),
    );
  }
  const configuration = parsed.data;
  // Before anything is sent to the LMS: a configuration with control characters is not registered with at all.
  // The values as sent are checked (URL parsing silently drops tabs and line breaks).
  const sent = (key: string) => stringOrUndefined(propertyOf(raw, key));
  const sentPlatform = propertyOf(raw, 'https://purl.imsglobal.org/spec/lti-platform-configuration');
  refuseControlCharacters({
    issuer: sent('issuer'),
    authorization_endpoint: sent('authorization_endpoint'),
    token_endpoint: sent('token_endpoint'),
    jwks_uri: sent('jwks_uri'),
    registration_endpoint: sent('registration_endpoint'),
    authorization_server: sent('authorization_server'),
    product_family_code: stringOrUndefined(propertyOf(sentPlatform, 'product_family_code')),
    version: stringOrUndefined(propertyOf(sentPlatform, 'version')),
  });
  checkIssuerHost(configUrl.href, configuration);
  // The tool fetches the key set and tokens from these later: the same rules as for this exchange.
  for (const field of ['authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const) {
    const refused = input.http.refusal(configuration[field]);
    if (refused) throw new RegistrationError('addressRefused', { field }, `${field}: ${refused}`);
  }

  const response = await requestJson(
    input.http,
    configuration.registration_endpoint,
    {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json',
        'User-Agent': input.userAgent,
        ...(input.registrationToken ? { Authorization: `Bearer ${input.registrationToken}` } : {}),
      },
      body: JSON.stringify(buildRegistrationRequest(input.tool, configuration)),
    },
    'registration',
    signal,
  );
  const registered = registrationResponseSchema.safeParse(response);
  if (!registered.success) throw new RegistrationError('noClientId');
  refuseControlCharacters({
    client_id: registered.data.client_id,
    deployment_id: registered.data['https://purl.imsglobal.org/spec/lti-tool-configuration']?.deployment_id,
  });
  const deploymentId = registered.data['https://purl.imsglobal.org/spec/lti-tool-configuration']?.deployment_id;
  const productFamily = configuration['https://purl.imsglobal.org/spec/lti-platform-configuration']?.product_family_code;
  return {
    productFamily,
    platform: {
      issuer: configuration.issuer,
      clientId: registered.data.client_id,
      name: `${productFamily ?? 'LMS'} ${new URL(configuration.issuer).host}`,
      authUrl: configuration.authorization_endpoint,
      tokenUrl: configuration.token_endpoint,
      authorizationServer: configuration.authorization_server,
      key: { jwksUrl: configuration.jwks_uri },
      deploymentIds: deploymentId ? [deploymentId] : [],
    },
  };
}
