import { z } from 'zod';
import { isRecord } from '../values.js';
import { AP_CLAIM, isProctoringMessageType, readProctoringClaims, type ProctoringMessage } from './proctoring-claims.js';

/** Claim names of LTI 1.3 / LTI Advantage, in one place. */
export const CLAIM = {
  messageType: 'https://purl.imsglobal.org/spec/lti/claim/message_type',
  version: 'https://purl.imsglobal.org/spec/lti/claim/version',
  deploymentId: 'https://purl.imsglobal.org/spec/lti/claim/deployment_id',
  targetLinkUri: 'https://purl.imsglobal.org/spec/lti/claim/target_link_uri',
  resourceLink: 'https://purl.imsglobal.org/spec/lti/claim/resource_link',
  roles: 'https://purl.imsglobal.org/spec/lti/claim/roles',
  context: 'https://purl.imsglobal.org/spec/lti/claim/context',
  toolPlatform: 'https://purl.imsglobal.org/spec/lti/claim/tool_platform',
  launchPresentation: 'https://purl.imsglobal.org/spec/lti/claim/launch_presentation',
  custom: 'https://purl.imsglobal.org/spec/lti/claim/custom',
  nrps: 'https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice',
  deepLinkingSettings: 'https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings',
  contentItems: 'https://purl.imsglobal.org/spec/lti-dl/claim/content_items',
  canvasPlacement: 'https://www.instructure.com/placement',
  lis: 'https://purl.imsglobal.org/spec/lti/claim/lis',
  ext: 'https://purl.imsglobal.org/spec/lti/claim/ext',
  lti11LegacyUserId: 'https://purl.imsglobal.org/spec/lti/claim/lti11_legacy_user_id',
  lti1p1: 'https://purl.imsglobal.org/spec/lti/claim/lti1p1',
} as const;

/**
 * The messages the tool is launched with: resource links, the deep-linking picker, and LTI Proctoring Services'
 * start and end of a proctored assessment (proctoring-claims.ts).
 */
export const LAUNCH_MESSAGE_TYPES = ['LtiResourceLinkRequest', 'LtiDeepLinkingRequest', 'LtiStartProctoring', 'LtiEndAssessment'] as const;
export type LaunchMessageType = (typeof LAUNCH_MESSAGE_TYPES)[number];

// null (some platforms send it for an empty name) is read as absent, and so is a name of the wrong type.
const optionalText = z
  .string()
  .nullish()
  .catch(undefined)
  .transform((value) => value ?? undefined);

/** The parts of a verified id_token the tool relies on; unknown claims are kept aside as `raw`. */
export const launchClaimsSchema = z.object({
  iss: z.string().min(1),
  sub: z.string().min(1, 'the launch has no user (sub)'),
  aud: z.union([z.string(), z.array(z.string())]),
  name: optionalText,
  given_name: optionalText,
  family_name: optionalText,
  [CLAIM.messageType]: z.enum(LAUNCH_MESSAGE_TYPES),
  [CLAIM.version]: z.literal('1.3.0'),
  [CLAIM.deploymentId]: z.string().min(1).max(255),
  [CLAIM.targetLinkUri]: z.string().optional(),
  [CLAIM.resourceLink]: z.object({ id: z.string().min(1), title: z.string().nullish() }).optional(),
  [CLAIM.roles]: z.array(z.string()).default([]),
  [CLAIM.context]: z
    .object({ id: z.string().min(1), label: z.string().nullish(), title: z.string().nullish(), type: z.array(z.string()).or(z.string()).nullish() })
    .optional(),
  [CLAIM.toolPlatform]: z
    .object({ product_family_code: z.string().nullish(), name: z.string().nullish(), version: z.string().nullish(), guid: z.string().nullish() })
    .optional()
    .catch(undefined),
  [CLAIM.launchPresentation]: z
    .object({ document_target: z.string().nullish(), return_url: z.string().nullish(), locale: z.string().nullish() })
    .optional()
    .catch(undefined),
  [CLAIM.custom]: z.record(z.string(), z.unknown()).optional().catch(undefined),
  [CLAIM.nrps]: z
    .object({ context_memberships_url: z.string().url(), service_versions: z.array(z.string()).optional() })
    .optional()
    .catch(undefined),
  [CLAIM.canvasPlacement]: optionalText,
});

export type LaunchClaims = z.infer<typeof launchClaimsSchema>;

/** The tool's own view of a launch: spec vocabulary, typed, no ltijs. */
export interface LtiLaunch {
  issuer: string;
  clientId: string;
  deploymentId: string;
  userSub: string;
  displayName?: string;
  messageType: LaunchMessageType;
  roles: string[];
  context?: { id: string; label?: string; title?: string };
  resourceLink?: { id: string; title?: string };
  platformFamily?: string;
  documentTarget?: string;
  returnUrl?: string;
  locale?: string;
  custom: Record<string, string>;
  namesRolesUrl?: string;
  placement?: string;
  /** An LTI Proctoring Services message's own claims (start or end of a proctored assessment). */
  proctoring?: ProctoringMessage;
}

/**
 * `payload`: the whole verified payload (the parsed claims keep only those named in the schema), read for the
 * proctoring claims of an LTI Proctoring Services message.
 */
export function toLaunch(claims: LaunchClaims, clientId: string, payload: Readonly<Record<string, unknown>> = {}): LtiLaunch {
  const context = claims[CLAIM.context];
  const link = claims[CLAIM.resourceLink];
  const presentation = claims[CLAIM.launchPresentation];
  const custom: Record<string, string> = {};
  for (const [key, value] of Object.entries(claims[CLAIM.custom] ?? {})) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') custom[key] = String(value);
  }
  const displayName =
    claims.name?.trim() || [claims.given_name, claims.family_name].filter(Boolean).join(' ').trim() || undefined;
  return {
    issuer: claims.iss,
    clientId,
    deploymentId: claims[CLAIM.deploymentId],
    userSub: claims.sub,
    displayName,
    messageType: claims[CLAIM.messageType],
    roles: claims[CLAIM.roles],
    context: context ? { id: context.id, label: context.label ?? undefined, title: context.title ?? undefined } : undefined,
    resourceLink: link ? { id: link.id, title: link.title ?? undefined } : undefined,
    platformFamily: claims[CLAIM.toolPlatform]?.product_family_code ?? undefined,
    documentTarget: presentation?.document_target ?? undefined,
    returnUrl: presentation?.return_url ?? undefined,
    locale: presentation?.locale ?? undefined,
    custom,
    namesRolesUrl: claims[CLAIM.nrps]?.context_memberships_url,
    placement: claims[CLAIM.canvasPlacement] ?? custom.placement,
    proctoring: proctoringOf(claims[CLAIM.messageType], payload),
  };
}

function proctoringOf(messageType: LaunchMessageType, payload: Readonly<Record<string, unknown>>): ProctoringMessage | undefined {
  if (!isProctoringMessageType(messageType)) return undefined;
  const read = readProctoringClaims(messageType, payload);
  // The token validator refused a message whose claims do not read; a stored one that no longer does has none.
  return read.ok ? read.message : undefined;
}

/**
 * OpenID Connect standard claims about the person (https://openid.net/specs/openid-connect-core-1_0.html#StandardClaims)
 * beyond the LTI user id. The tool never needs them, and none is stored.
 */
const PERSONAL_CLAIMS = [
  'name', 'given_name', 'family_name', 'middle_name', 'nickname', 'preferred_username', 'profile', 'picture',
  'website', 'email', 'email_verified', 'gender', 'birthdate', 'zoneinfo', 'phone_number', 'phone_number_verified', 'address',
] as const;

/**
 * A verified id_token's claims without what names the person: the OIDC profile claims, the LIS person
 * sourcedid (the institution's id) and the LMS username Moodle and Canvas put in `ext`. This is what
 * ltijs stores about a launch.
 */
export function withoutPersonalClaims(payload: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const kept: Record<string, unknown> = { ...payload };
  for (const claim of PERSONAL_CLAIMS) delete kept[claim];
  // LTI Proctoring Services: the person's name, picture, e-mail… the platform asks a proctoring tool to verify.
  delete kept[AP_CLAIM.verifiedUser];
  const lis = kept[CLAIM.lis];
  if (isRecord(lis)) {
    const { person_sourcedid: _sourcedid, ...rest } = lis;
    kept[CLAIM.lis] = rest;
  }
  const ext = kept[CLAIM.ext];
  if (isRecord(ext)) {
    const { user_username: _username, ...rest } = ext;
    kept[CLAIM.ext] = rest;
  }
  return kept;
}

// Built once: a zod schema made per call builds a new object parser each time.
const personNameSchema = launchClaimsSchema.pick({ name: true, given_name: true, family_name: true });

/**
 * What the tool keeps of a launch for its LTI session: no personal claims, except the person's name where
 * the platform offers no Names and Roles service — the candidate launch then sends it as display_name
 * (also on "Try again"), and it goes when the session's login state is purged.
 */
export function claimsToKeep(payload: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const kept = withoutPersonalClaims(payload);
  const hasNamesAndRoles = isRecord(payload[CLAIM.nrps]);
  if (!hasNamesAndRoles) {
    const parsed = personNameSchema.safeParse(payload);
    const name = parsed.success ? parsed.data.name?.trim() || [parsed.data.given_name, parsed.data.family_name].filter(Boolean).join(' ').trim() : '';
    if (name) kept.name = name;
  }
  return kept;
}
