/**
 * The endpoints a static registration of Blackboard Learn or Open edX takes, which follow from what the
 * administrator has at hand: Learn's are those of Anthology's developer portal, the same for every school
 * (https://docs.blackboard.com/lti/lti-registration-and-deployment), with a key set per application (client id);
 * Open edX's are under the LMS's own address, per LTI configuration of xblock-lti-consumer
 * (https://github.com/openedx/xblock-lti-consumer, `lti_consumer/plugin/urls.py`, mounted under `/api/`).
 */
export const STATIC_PRESETS = ['learn', 'openedx'] as const;
export type StaticPreset = (typeof STATIC_PRESETS)[number];

export interface PresetEndpoints {
  issuer?: string;
  authUrl?: string;
  tokenUrl?: string;
  jwksUrl?: string;
}

export function isStaticPreset(value: unknown): value is StaticPreset {
  return value === 'learn' || value === 'openedx';
}

/**
 * The endpoints of `preset` that can be known from the client id (Learn) or the LMS address and LTI configuration
 * id (Open edX); a value that cannot be known yet is left out (the form or the command then asks for it).
 */
export function presetEndpoints(preset: StaticPreset, known: { clientId?: string; lmsUrl?: string; configId?: string }): PresetEndpoints {
  if (preset === 'learn') {
    const endpoints: PresetEndpoints = {
      issuer: 'https://blackboard.com',
      authUrl: 'https://developer.blackboard.com/api/v1/gateway/oidcauth',
      tokenUrl: 'https://developer.blackboard.com/api/v1/gateway/oauth2/jwttoken',
    };
    if (known.clientId) endpoints.jwksUrl = `https://developer.blackboard.com/api/v1/management/applications/${encodeURIComponent(known.clientId)}/jwks.json`;
    return endpoints;
  }
  const root = known.lmsUrl?.replace(/\/+$/, '');
  if (!root) return {};
  const endpoints: PresetEndpoints = { issuer: root, authUrl: `${root}/api/lti_consumer/v1/launch/` };
  if (known.configId) {
    const id = encodeURIComponent(known.configId);
    endpoints.tokenUrl = `${root}/api/lti_consumer/v1/token/${id}`;
    endpoints.jwksUrl = `${root}/api/lti_consumer/v1/public_keysets/${id}`;
  }
  return endpoints;
}
