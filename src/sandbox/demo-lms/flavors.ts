import { createHash, randomBytes } from 'node:crypto';
import type { JWTPayload } from 'jose';
import type { DemoCourse, DemoLink, DemoPerson, DemoRole, DemoUser, DemoUserKey } from './directory.js';
import { CLAIM } from '../../lti/claims.js';
import { AP_CLAIM } from '../../lti/proctoring-claims.js';
import type { ProctoringMessage } from './proctoring.js';

/**
 * What differs between a Moodle-like and a Canvas-like launch, in one table, and the one function that
 * builds id_token claims from it. Sources: launches of a Moodle 5.1 site acting as LTI 1.3 platform,
 * Canvas's documentation (https://canvas.instructure.com/doc/api/file.lti_dev_key_config.html) and
 * published Canvas id_tokens.
 */

/** ultra: a Learn Ultra-like platform whose learners start the exam through LTI Proctoring Services. */
export const FLAVOR_NAMES = ['moodle', 'canvas', 'ultra'] as const;
/** resource: the exam link; course: course navigation (launchpad); deep-linking: the content picker. */
export const LAUNCH_KINDS = ['resource', 'course', 'deep-linking'] as const;
export const PRESENTATIONS = ['iframe', 'window'] as const;

export type DemoFlavor = (typeof FLAVOR_NAMES)[number];
export type LaunchKind = (typeof LAUNCH_KINDS)[number];
export type Presentation = (typeof PRESENTATIONS)[number];

export { CLAIM };

export const NRPS_SCOPE = 'https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly';

const LIS = 'http://purl.imsglobal.org/vocab/lis/v2';
export const ROLE = {
  learner: `${LIS}/membership#Learner`,
  instructor: `${LIS}/membership#Instructor`,
  teachingAssistant: `${LIS}/membership/Instructor#TeachingAssistant`,
  contentDeveloper: `${LIS}/membership#ContentDeveloper`,
  institutionStudent: `${LIS}/institution/person#Student`,
  institutionInstructor: `${LIS}/institution/person#Instructor`,
  institutionAdministrator: `${LIS}/institution/person#Administrator`,
  systemUser: `${LIS}/system/person#User`,
  systemAdministrator: `${LIS}/system/person#Administrator`,
  systemSysAdmin: `${LIS}/system/person#SysAdmin`,
  testUser: 'http://purl.imsglobal.org/vocab/lti/system/person#TestUser',
} as const;

export interface FlavorProfile {
  flavor: DemoFlavor;
  label: string;
  productFamilyCode: string;
  platformName: string;
  platformVersion: string;
  idTokenLifetimeSeconds: number;
  /** Canvas sends `azp` beside a string `aud`; Moodle sends neither an array nor `azp`. */
  azp: boolean;
  contextType: string[];
  /** Roles in launches. */
  launchRoles: Record<DemoRole, readonly string[]>;
  /**
   * Whose identity the test student launches with: Moodle has no test user; a teacher's "Switch role to… Student"
   * sends the teacher's own user id with the role Learner only (mod/lti's role mapping follows the switched role).
   */
  testStudentIs?: DemoUserKey;
  /** Roles in Names and Roles; null: not listed there. */
  membershipRoles: Record<DemoRole, readonly string[] | null>;
  /** Extra fields of the login initiation. */
  loginExtras: Record<string, string>;
  /** Moodle copies the Names and Roles URL into the custom claim. */
  membershipsUrlInCustom: boolean;
  /** Moodle's deep-linking request carries only the locale in launch_presentation. */
  deepLinkingPresentationLocaleOnly: boolean;
  messageHintFormat: 'json' | 'jwt';
  deepLinking: { acceptPresentationDocumentTargets: string[]; acceptMultiple: boolean; autoCreate: boolean };
}

export const FLAVORS: Record<DemoFlavor, FlavorProfile> = {
  moodle: {
    flavor: 'moodle',
    label: 'Moodle-like',
    productFamilyCode: 'moodle',
    platformName: 'Demo LMS (Moodle-like)',
    platformVersion: '2025100600.02',
    idTokenLifetimeSeconds: 60,
    azp: false,
    contextType: ['CourseSection'],
    launchRoles: {
      learner: [ROLE.learner],
      // Editing and non-editing teachers alike; the proctor is a custom role on the non-editing archetype.
      instructor: [ROLE.instructor],
      'teaching-assistant': [ROLE.instructor],
      proctor: [ROLE.instructor],
      // Moodle has no student view: a teacher switched to the Student role launches as a plain learner.
      'test-student': [ROLE.learner],
      administrator: [ROLE.institutionAdministrator, ROLE.instructor, ROLE.systemAdministrator],
    },
    membershipRoles: {
      learner: ['Learner'],
      instructor: ['Instructor'],
      // Launch and Names and Roles use different Moodle capabilities: non-editing teachers are Learners here.
      'teaching-assistant': ['Learner'],
      proctor: ['Learner'],
      'test-student': null,
      administrator: null,
    },
    testStudentIs: 'instructor',
    loginExtras: {},
    membershipsUrlInCustom: true,
    deepLinkingPresentationLocaleOnly: true,
    messageHintFormat: 'json',
    deepLinking: { acceptPresentationDocumentTargets: ['frame', 'iframe', 'window'], acceptMultiple: true, autoCreate: false },
  },
  canvas: {
    flavor: 'canvas',
    label: 'Canvas-like',
    productFamilyCode: 'canvas',
    platformName: 'Demo LMS (Canvas-like)',
    platformVersion: 'cloud',
    idTokenLifetimeSeconds: 3600,
    azp: true,
    contextType: ['http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering'],
    launchRoles: {
      learner: [ROLE.institutionStudent, ROLE.learner, ROLE.systemUser],
      instructor: [ROLE.institutionInstructor, ROLE.instructor, ROLE.systemUser],
      'teaching-assistant': [ROLE.institutionInstructor, ROLE.instructor, ROLE.teachingAssistant, ROLE.systemUser],
      // A custom course role "Proctor" based on Canvas's Designer enrollment.
      proctor: [ROLE.contentDeveloper, ROLE.systemUser],
      'test-student': [ROLE.learner, ROLE.testUser, ROLE.systemUser],
      administrator: [ROLE.institutionAdministrator, ROLE.systemSysAdmin, ROLE.systemUser],
    },
    membershipRoles: {
      learner: [ROLE.learner],
      instructor: [ROLE.instructor],
      'teaching-assistant': [ROLE.instructor, ROLE.teachingAssistant],
      proctor: [ROLE.contentDeveloper],
      'test-student': null,
      administrator: null,
    },
    loginExtras: { canvas_environment: 'prod', canvas_region: 'not_configured' },
    membershipsUrlInCustom: false,
    deepLinkingPresentationLocaleOnly: false,
    messageHintFormat: 'jwt',
    deepLinking: { acceptPresentationDocumentTargets: ['iframe', 'window'], acceptMultiple: false, autoCreate: false },
  },
  ultra: {
    flavor: 'ultra',
    label: 'Proctoring Services (Learn Ultra-like)',
    productFamilyCode: 'BlackboardLearn',
    platformName: 'Demo LMS (Learn Ultra-like)',
    platformVersion: '3900.120.0',
    idTokenLifetimeSeconds: 300,
    azp: false,
    contextType: ['http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering'],
    launchRoles: {
      learner: [ROLE.learner, ROLE.institutionStudent],
      instructor: [ROLE.instructor, ROLE.institutionInstructor],
      'teaching-assistant': [ROLE.teachingAssistant, ROLE.institutionInstructor],
      proctor: [ROLE.contentDeveloper],
      'test-student': [ROLE.learner, ROLE.testUser],
      administrator: [ROLE.institutionAdministrator, ROLE.systemAdministrator],
    },
    membershipRoles: {
      learner: [ROLE.learner],
      instructor: [ROLE.instructor],
      'teaching-assistant': [ROLE.teachingAssistant],
      proctor: [ROLE.contentDeveloper],
      'test-student': null,
      administrator: null,
    },
    loginExtras: {},
    membershipsUrlInCustom: false,
    deepLinkingPresentationLocaleOnly: false,
    messageHintFormat: 'json',
    deepLinking: { acceptPresentationDocumentTargets: ['iframe', 'window'], acceptMultiple: true, autoCreate: false },
  },
};

/** What buildLaunchClaims needs to know about the platform and the tool. */
export interface LaunchPlatform {
  issuer: string;
  clientId: string;
  deploymentId: string;
  course: DemoCourse;
  users: readonly DemoUser[];
  tool: { launchUrl: string; deepLinkingUrl?: string };
  nrpsUrl(contextId: string): string;
  returnUrl(flavor: DemoFlavor, presentation: Presentation): string;
  deepLinkReturnUrl: string;
  /** LTI Proctoring Services: where the tool posts its LtiStartAssessment. */
  startAssessmentUrl: string;
}

export interface LaunchClaimsInput {
  flavor: DemoFlavor;
  user: DemoUser | DemoUserKey;
  kind?: LaunchKind;
  /** Resource link id; default the course's exam. Ignored for course and deep-linking launches. */
  linkId?: string;
  presentation?: Presentation;
  nonce?: string;
  locale?: string;
  /** Milliseconds since the epoch. */
  now?: number;
  /** An LTI Proctoring Services start or end of the link's assessment instead of a resource-link launch. */
  proctoring?: ProctoringMessage;
}

export function resolveUser(users: readonly DemoUser[], user: DemoUser | DemoUserKey): DemoUser {
  if (typeof user !== 'string') return user;
  const found = users.find((candidate) => candidate.key === user);
  if (!found) throw new Error(`unknown demo user: ${user}`);
  return found;
}

export function findLink(course: DemoCourse, linkId: string | undefined): DemoLink | undefined {
  if (linkId === undefined) return course.exam;
  return course.links.find((link) => link.id === linkId);
}

/** Where a launch lands in the tool: the link's own URL, else the tool's launch (or deep-linking) URL. */
export function targetLinkUri(platform: LaunchPlatform, kind: LaunchKind, link: DemoLink | undefined): string {
  if (kind === 'deep-linking') return platform.tool.deepLinkingUrl ?? platform.tool.launchUrl;
  if (kind === 'resource' && link?.url) return link.url;
  return platform.tool.launchUrl;
}

function legacyUserId(issuer: string, userId: string): string {
  return createHash('sha1').update(`${issuer}|${userId}`).digest('hex');
}

function toolPlatform(profile: FlavorProfile, issuer: string): Record<string, string> {
  if (profile.flavor === 'moodle') {
    return {
      product_family_code: profile.productFamilyCode,
      version: profile.platformVersion,
      guid: new URL(issuer).host,
      name: profile.platformName,
      description: 'Demo LMS of proctor-lti sandbox mode',
    };
  }
  const guid = createHash('sha256').update(issuer).digest('base64url').slice(0, 40);
  return { guid: `${guid}:canvas-lms`, name: profile.platformName, version: profile.platformVersion, product_family_code: profile.productFamilyCode };
}

/**
 * The id_token claims a Moodle-like or Canvas-like platform sends for this user and launch, without
 * signing. Tests may change any claim before signing with signIdToken.
 */
export function buildLaunchClaims(platform: LaunchPlatform, input: LaunchClaimsInput): JWTPayload {
  const profile = FLAVORS[input.flavor];
  const user = resolveUser(platform.users, input.user);
  const person = user.role === 'test-student' && profile.testStudentIs ? resolveUser(platform.users, profile.testStudentIs) : user;
  const kind = input.kind ?? 'resource';
  const presentation = input.presentation ?? 'iframe';
  const locale = input.locale ?? 'en';
  const course = platform.course;
  const link = kind === 'resource' ? findLink(course, input.linkId) : undefined;
  if (kind === 'resource' && !link) throw new Error(`unknown resource link: ${input.linkId ?? ''}`);
  const iat = Math.floor((input.now ?? Date.now()) / 1000);
  const nrpsUrl = platform.nrpsUrl(course.id);

  const claims: JWTPayload = {
    iss: platform.issuer,
    aud: platform.clientId,
    ...(profile.azp ? { azp: platform.clientId } : {}),
    sub: person.id,
    iat,
    exp: iat + profile.idTokenLifetimeSeconds,
    nonce: input.nonce ?? randomBytes(16).toString('base64url'),
    name: person.name,
    given_name: person.given_name,
    family_name: person.family_name,
    ...(person.email ? { email: person.email } : {}),
    [CLAIM.messageType]: kind === 'deep-linking' ? 'LtiDeepLinkingRequest' : 'LtiResourceLinkRequest',
    [CLAIM.version]: '1.3.0',
    [CLAIM.deploymentId]: platform.deploymentId,
    [CLAIM.targetLinkUri]: targetLinkUri(platform, kind, link),
    [CLAIM.context]: { id: course.id, label: course.label, title: course.title, type: profile.contextType },
    [CLAIM.roles]: [...profile.launchRoles[user.role]],
    [CLAIM.toolPlatform]: toolPlatform(profile, platform.issuer),
    [CLAIM.nrps]: { context_memberships_url: nrpsUrl, service_versions: ['2.0'] },
  };

  if (input.proctoring && link) {
    // LTI Proctoring Services 1.0: the platform starts (or ends) the assessment through the tool.
    claims[CLAIM.messageType] = input.proctoring.message === 'start' ? 'LtiStartProctoring' : 'LtiEndAssessment';
    claims[AP_CLAIM.attemptNumber] = input.proctoring.attemptNumber;
    if (input.proctoring.message === 'start') {
      claims[AP_CLAIM.startAssessmentUrl] = platform.startAssessmentUrl;
      claims[AP_CLAIM.sessionData] = input.proctoring.sessionData;
    }
  }

  if (link) {
    claims[CLAIM.resourceLink] = { id: link.id, title: link.title, ...(link.text ? { description: link.text } : {}) };
  } else if (kind === 'course') {
    // LTI 1.3 requires resource_link in every LtiResourceLinkRequest (ltijs refuses a launch without one);
    // Canvas sends the course's context id as the link id for course-level launches.
    claims[CLAIM.resourceLink] = { id: course.id, title: course.title };
  }

  const returnUrl = platform.returnUrl(input.flavor, presentation);
  claims[CLAIM.launchPresentation] =
    kind === 'deep-linking' && profile.deepLinkingPresentationLocaleOnly
      ? { locale }
      : { document_target: presentation, return_url: returnUrl, locale };

  // The tool registers course navigation with custom placement=launchpad (Canvas custom_fields, dynamic
  // registration custom_parameters); the platform echoes it in course-level launches.
  const custom: Record<string, string> = { ...(link?.custom ?? {}), ...(kind === 'course' ? { placement: 'launchpad' } : {}) };
  if (profile.membershipsUrlInCustom) custom.context_memberships_url = nrpsUrl;
  if (profile.flavor === 'moodle' || Object.keys(custom).length > 0) claims[CLAIM.custom] = custom;

  if (kind === 'deep-linking') {
    claims[CLAIM.deepLinkingSettings] = {
      deep_link_return_url: platform.deepLinkReturnUrl,
      accept_types: ['ltiResourceLink'],
      accept_presentation_document_targets: profile.deepLinking.acceptPresentationDocumentTargets,
      accept_multiple: profile.deepLinking.acceptMultiple,
      auto_create: profile.deepLinking.autoCreate,
    };
  }

  if (profile.flavor === 'moodle') {
    claims[CLAIM.lis] = { person_sourcedid: '', course_section_sourcedid: '' };
    claims[CLAIM.ext] = { user_username: person.username, lms: 'moodle-2' };
  } else {
    claims.locale = locale;
    claims.picture = 'https://canvas.instructure.com/images/messages/avatar-50.png';
    // Canvas sends unresolved substitution variables literally when it has no value.
    claims[CLAIM.lis] = { person_sourcedid: `sis-${user.username}`, course_offering_sourcedid: '$CourseSection.sourcedId' };
    const legacy = legacyUserId(platform.issuer, user.id);
    claims[CLAIM.lti11LegacyUserId] = legacy;
    claims[CLAIM.lti1p1] = { user_id: legacy };
    claims[CLAIM.canvasPlacement] = kind === 'course' ? 'course_navigation' : kind === 'deep-linking' ? 'link_selection' : null;
  }
  return claims;
}

/** One member as the flavour's membership service lists it; its roles are always there. */
export type MembershipMember = Record<string, unknown> & { roles: string[] };

/** One Names and Roles member as the flavor lists it. */
export function membershipMember(flavor: DemoFlavor, issuer: string, person: DemoPerson): MembershipMember | null {
  const roles = FLAVORS[flavor].membershipRoles[person.role];
  if (!roles) return null;
  const member: MembershipMember = {
    status: person.status,
    user_id: person.id,
    name: person.name,
    given_name: person.given_name,
    family_name: person.family_name,
    ...(person.email ? { email: person.email } : {}),
    roles: [...roles],
  };
  if (flavor === 'moodle') {
    member.lis_person_sourcedid = '';
    member.ext_user_username = person.username;
  } else {
    member.lis_person_sourcedid = `sis-${person.username}`;
    member.lti11_legacy_user_id = legacyUserId(issuer, person.id);
  }
  return member;
}
