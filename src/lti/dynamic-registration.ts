import { z } from 'zod';
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

export class RegistrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegistrationError';
  }
}

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
    throw new RegistrationError(
      `The LMS configuration names issuer ${issuer.host}, but it was fetched from ${fetchedFrom.host}: registration refused.`,
    );
  }
  if (fetchedFrom.protocol !== 'https:' && !['localhost', '127.0.0.1', '[::1]'].includes(fetchedFrom.hostname)) {
    throw new RegistrationError('The LMS configuration must be fetched over https.');
  }
}

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

  const toolConfiguration: Record<string, unknown> = {
    domain: tool.publicUrl.host,
    description: tool.description,
    target_link_uri: tool.launchUrl,
    claims: ['iss', 'sub', 'name', 'given_name', 'family_name'],
    messages,
  };
  // Ask for names so the roster can show them; the proctoring service itself never receives them.
  if (canvas) toolConfiguration['https://canvas.instructure.com/lti/privacy_level'] = 'name_only';

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

type Fetch = typeof fetch;

async function fetchJson(fetchImpl: Fetch, url: string, init: RequestInit, what: string): Promise<unknown> {
  let response: Response;
  try {
    response = await fetchImpl(url, { ...init, signal: AbortSignal.timeout(10_000), redirect: 'error' });
  } catch (error) {
    throw new RegistrationError(`Could not reach the LMS (${what}): ${error instanceof Error ? error.message : String(error)}`);
  }
  const text = await response.text();
  if (!response.ok) {
    throw new RegistrationError(`The LMS answered ${response.status} to the ${what}: ${text.slice(0, 300)}`);
  }
  if (text.length > 1_000_000) throw new RegistrationError(`The LMS's ${what} answer is too large.`);
  try {
    // Moodle answers JSON with Content-Type text/html: parse whatever the type says.
    return JSON.parse(text);
  } catch {
    throw new RegistrationError(`The LMS's ${what} answer is not JSON.`);
  }
}

/** Runs the registration against the LMS and returns what to store (the caller registers it). */
export async function registerWithPlatform(input: {
  openIdConfigurationUrl: string;
  registrationToken?: string;
  tool: ToolDescription;
  userAgent: string;
  fetchImpl?: Fetch;
}): Promise<{ platform: PlatformInput; productFamily?: string }> {
  const fetchImpl = input.fetchImpl ?? fetch;
  let configUrl: URL;
  try {
    configUrl = new URL(input.openIdConfigurationUrl);
  } catch {
    throw new RegistrationError('openid_configuration is not a URL.');
  }
  const raw = await fetchJson(fetchImpl, configUrl.href, { headers: { Accept: 'application/json', 'User-Agent': input.userAgent } }, 'openid-configuration request');
  const parsed = openIdConfigurationSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RegistrationError(`The LMS configuration is incomplete: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim());
  }
  const configuration = parsed.data;
  checkIssuerHost(configUrl.href, configuration);

  const response = await fetchJson(
    fetchImpl,
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
    'registration request',
  );
  const registered = registrationResponseSchema.safeParse(response);
  if (!registered.success) throw new RegistrationError('The LMS accepted the registration but returned no client_id.');
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
