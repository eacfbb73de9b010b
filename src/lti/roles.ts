// Role mapping: from the LTI roles claim of one launch to what the user may do with proctored exams.
// Pure and table-driven. Vocabularies: https://www.imsglobal.org/spec/lti/v1p3#role-vocabularies
// What Canvas sends: https://github.com/instructure/canvas-lms/blob/master/doc/api/canvas_roles.md
// What Moodle sends: mod/lti/locallib.php (lti_get_ims_role, and lti_sign_jwt's urn → URI conversion).

export type RoleScope = 'membership' | 'institution' | 'system' | 'unknown';

export interface ParsedRole {
  scope: RoleScope;
  principal: string;
  subRole?: string;
}

export type RoleKind = 'candidate' | 'instructor' | 'proctor' | 'none';

export interface RoleDecision {
  kind: RoleKind;
  canEditSettings: boolean;
  canReview: boolean;
  canProctor: boolean;
  /** An LMS test user (Canvas Student View): a candidate whose attempts are marked as tests. */
  isTestUser: boolean;
  /** An LMS system administrator (not an institution or course administrator). */
  isAdmin: boolean;
  /** The role strings, as received, that decided. */
  matched: string[];
  /** One sentence for the "roles received" troubleshooting panel. */
  reason: string;
  /** The same reason as data, for sentences in the reader's language. */
  why: RoleReason;
}

/** Why a launch's roles decide what they decide; `roles` are the matched roles' short names (e.g. `Instructor`). */
export type RoleReason =
  | { kind: 'testUser' }
  | { kind: 'staff'; staff: StaffRole[]; roles: string[]; settingsReadOnly: boolean; noReviewOrLive: boolean }
  | { kind: 'proctor' | 'namedProctor' | 'observer' | 'learner' | 'institutionOnly' | 'noCourseRole'; roles: string[] }
  | { kind: 'noRoles' };

export interface MapRolesInput {
  roles: readonly string[];
  /** Role strings the platform's settings name as proctor roles. */
  proctorRoles?: readonly string[];
  /** Whether the institution lets teaching assistants change exam settings. */
  teachingAssistantsMayEdit?: boolean;
}

export type LaunchTarget =
  | 'candidate-launch'
  | 'instructor-hub'
  | 'live-launch'
  | 'launchpad'
  | 'student-exam-list'
  | 'forbidden';

// ---------------------------------------------------------------------------------------------
// Parsing

type KnownScope = Exclude<RoleScope, 'unknown'>;

interface Vocabulary {
  prefix: string;
  scope: RoleScope;
  /** How a sub-role is written after the prefix: `Instructor#TeachingAssistant` or `Learner/NonCreditLearner`. */
  subRoleSeparator?: '#' | '/';
}

// Compared case-insensitively: Canvas once sent `membership/instructor#TeachingAssistant`
// (see the typo note in canvas-lms lib/lti/substitutions_helper.rb).
const VOCABULARIES: readonly Vocabulary[] = [
  { prefix: 'http://purl.imsglobal.org/vocab/lis/v2/membership#', scope: 'membership', subRoleSeparator: '/' },
  { prefix: 'http://purl.imsglobal.org/vocab/lis/v2/membership/', scope: 'membership', subRoleSeparator: '#' },
  { prefix: 'http://purl.imsglobal.org/vocab/lis/v2/institution/person#', scope: 'institution' },
  { prefix: 'http://purl.imsglobal.org/vocab/lis/v2/system/person#', scope: 'system' },
  { prefix: 'http://purl.imsglobal.org/vocab/lti/system/person#', scope: 'system' },
  // Deprecated form that does not say whether it is an institution or a system role: never grants.
  { prefix: 'http://purl.imsglobal.org/vocab/lis/v2/person#', scope: 'unknown' },
  // LTI 1.1 (LIS 1.1) forms; sub-roles are written `Learner/NonCreditLearner`.
  { prefix: 'urn:lti:role:ims/lis/', scope: 'membership', subRoleSeparator: '/' },
  { prefix: 'urn:lti:instrole:ims/lis/', scope: 'institution' },
  { prefix: 'urn:lti:sysrole:ims/lis/', scope: 'system' },
];

/** Canonical spellings of the names the tool acts on (other names keep the spelling received). */
const KNOWN_NAMES: Readonly<Record<KnownScope, readonly string[]>> = {
  membership: [
    'Administrator', 'ContentDeveloper', 'Instructor', 'Learner', 'Mentor', 'Manager', 'Member', 'Officer',
    'TeachingAssistant', 'TeachingAssistantGroup', 'TeachingAssistantOffering', 'TeachingAssistantSection',
    'TeachingAssistantSectionAssociation', 'TeachingAssistantTemplate', 'Grader', 'Observer', 'ExternalObserver',
  ],
  institution: ['Administrator', 'Faculty', 'Instructor', 'Learner', 'Staff', 'Student'],
  system: ['Administrator', 'SysAdmin', 'TestUser', 'User', 'None'],
};

const NAME = /^[A-Za-z][A-Za-z0-9-]*$/;
const SHORT_SUB_ROLE = /^[A-Za-z][A-Za-z0-9-]*#[A-Za-z][A-Za-z0-9-]*$/;

function canonicalName(scope: RoleScope, name: string): string {
  if (scope === 'unknown') return name;
  const lower = name.toLowerCase();
  return KNOWN_NAMES[scope].find((known) => known.toLowerCase() === lower) ?? name;
}

function unknownRole(role: string): ParsedRole {
  return { scope: 'unknown', principal: role };
}

/** Splits one role string into scope, principal role and sub-role. Never throws. */
export function parseRole(role: string): ParsedRole {
  if (typeof role !== 'string') return unknownRole('');
  // Some platforms write the vocabulary URIs with https; the vocabularies are identifiers, not links.
  const trimmed = role.trim();
  const normalized = trimmed.replace(/^https:\/\/purl\./i, 'http://purl.');
  const vocabulary = VOCABULARIES.find((v) => normalized.toLowerCase().startsWith(v.prefix));
  let scope: RoleScope;
  let rest: string;
  let separator: Vocabulary['subRoleSeparator'];
  if (vocabulary) {
    scope = vocabulary.scope;
    rest = normalized.slice(vocabulary.prefix.length);
    separator = vocabulary.subRoleSeparator;
  } else if (NAME.test(trimmed)) {
    // Simple names are context roles: https://www.imsglobal.org/spec/lti/v1p3#context-roles-0
    scope = 'membership';
    rest = trimmed;
  } else if (SHORT_SUB_ROLE.test(trimmed)) {
    // A context sub-role written short, as admins type proctor roles (`Instructor#TeachingAssistant`):
    // the same role as `…/membership/Instructor#TeachingAssistant`.
    scope = 'membership';
    rest = trimmed;
    separator = '#';
  } else {
    return unknownRole(trimmed);
  }
  const parts = separator ? rest.split(separator) : [rest];
  const [principal, subRole, ...extra] = parts;
  if (principal === undefined || !NAME.test(principal) || extra.length > 0) return unknownRole(trimmed);
  if (subRole !== undefined && !NAME.test(subRole)) return unknownRole(trimmed);
  const parsed: ParsedRole = { scope, principal: canonicalName(scope, principal) };
  if (subRole !== undefined) parsed.subRole = canonicalName(scope, subRole);
  return parsed;
}

/** A comparable key: the same role written as a URI, a short name or an LTI 1.1 urn gives one key. */
export function roleKey(role: string): string {
  const parsed = parseRole(role);
  if (parsed.scope === 'unknown') return `unknown:${typeof role === 'string' ? role.trim() : ''}`;
  return `${parsed.scope}:${parsed.principal}${parsed.subRole ? `#${parsed.subRole}` : ''}`;
}

/** Short label for explanations, e.g. `Instructor#TeachingAssistant` or `institution Faculty`. */
export function roleLabel(parsed: ParsedRole): string {
  const name = parsed.subRole ? `${parsed.principal}#${parsed.subRole}` : parsed.principal;
  return parsed.scope === 'membership' ? name : `${parsed.scope} ${name || '(empty)'}`;
}

// ---------------------------------------------------------------------------------------------
// Proctor roles

/**
 * Why a role can never be a proctor role (undefined: it can). Proctor roles are course (context) roles:
 * - `learner`: a Learner role or sub-role, and the institution role Student — students would proctor exams;
 * - `notCourse`: every institution role (`institution/person#…`, `urn:lti:instrole:…`) and system role
 *   (`system/person#…`, `lti/system/person#…`, `urn:lti:sysrole:…`, among them TestUser, Canvas's Student
 *   View), and the deprecated `lis/v2/person#…` form that says neither. LTI 1.3 §A.2.1–A.2.2: these describe
 *   the person at the institution or in the LMS, not in the course the launch comes from, so they never grant
 *   rights in a course (mapRoles ignores them as proctor roles too).
 * Other strings (an LMS's own role names) are the administrator's choice.
 */
export type ProctorRoleRefusal = 'learner' | 'notCourse';

const DEPRECATED_PERSON_ROLE = /^https?:\/\/purl\.imsglobal\.org\/vocab\/lis\/v2\/person#/i;

export function proctorRoleRefusal(role: string): ProctorRoleRefusal | undefined {
  const parsed = parseRole(role);
  const names = [parsed.principal, parsed.subRole].filter((name): name is string => Boolean(name)).map((name) => name.toLowerCase());
  if (names.includes('learner') || (parsed.scope === 'institution' && names.includes('student'))) return 'learner';
  if (parsed.scope === 'institution' || parsed.scope === 'system' || DEPRECATED_PERSON_ROLE.test(role.trim())) return 'notCourse';
  return undefined;
}

/** Where a role belongs in a list of roles: course, institution or system roles, or other (unrecognised) strings. */
export type RoleGroup = 'course' | 'institution' | 'system' | 'other';

/**
 * A role's name for people, without its vocabulary URI: `Instructor`, `TeachingAssistant (Instructor)`,
 * `TestUser`; an unrecognised string as it is.
 */
export function roleDisplay(role: string): { group: RoleGroup; name: string } {
  const parsed = parseRole(role);
  if (parsed.scope === 'unknown') return { group: 'other', name: parsed.principal || role.trim() };
  const name = parsed.subRole ? `${parsed.subRole} (${parsed.principal})` : parsed.principal;
  return { group: parsed.scope === 'membership' ? 'course' : parsed.scope, name };
}

// ---------------------------------------------------------------------------------------------
// Tables

type CourseRole = 'instructor' | 'teachingAssistant' | 'contentDeveloper' | 'courseAdministrator' | 'learner' | 'mentor';

/**
 * Context roles the tool acts on. A key with a sub-role wins over its principal; a sub-role that is
 * not listed falls back to its principal (Instructor#Lecturer is an instructor). Member, Officer and
 * other Manager roles grant nothing.
 */
const COURSE_ROLES: Readonly<Record<string, CourseRole>> = {
  Instructor: 'instructor',
  'Instructor#TeachingAssistant': 'teachingAssistant',
  'Instructor#TeachingAssistantGroup': 'teachingAssistant',
  'Instructor#TeachingAssistantOffering': 'teachingAssistant',
  'Instructor#TeachingAssistantSection': 'teachingAssistant',
  'Instructor#TeachingAssistantSectionAssociation': 'teachingAssistant',
  'Instructor#TeachingAssistantTemplate': 'teachingAssistant',
  'Instructor#Grader': 'teachingAssistant',
  // LTI 1.1 has TeachingAssistant as a principal role; Moodle turns its urn into membership#TeachingAssistant.
  TeachingAssistant: 'teachingAssistant',
  ContentDeveloper: 'contentDeveloper',
  Administrator: 'courseAdministrator',
  Learner: 'learner',
  Mentor: 'mentor',
  'Manager#Observer': 'mentor',
  'Manager#ExternalObserver': 'mentor',
};

export type StaffRole = 'instructor' | 'teachingAssistant' | 'contentDeveloper' | 'courseAdministrator' | 'systemAdministrator';

type Permission = boolean | 'if-teaching-assistants-may-edit';

interface StaffGrant {
  label: string;
  canEditSettings: Permission;
  canReview: boolean;
  canProctor: boolean;
}

/**
 * What each staff role opens in the instructor hub. Designers build exams but see no recordings of
 * students and watch no one live.
 */
const STAFF_GRANTS: Readonly<Record<StaffRole, StaffGrant>> = {
  instructor: { label: 'instructor', canEditSettings: true, canReview: true, canProctor: true },
  teachingAssistant: { label: 'teaching assistant', canEditSettings: 'if-teaching-assistants-may-edit', canReview: true, canProctor: true },
  contentDeveloper: { label: 'content developer', canEditSettings: true, canReview: false, canProctor: false },
  courseAdministrator: { label: 'course administrator', canEditSettings: true, canReview: true, canProctor: true },
  systemAdministrator: { label: 'LMS system administrator', canEditSettings: true, canReview: true, canProctor: true },
};

// Moodle sends a site admin as system Administrator; Canvas sends its site admins as SysAdmin.
const SYSTEM_ADMIN_KEYS: ReadonlySet<string> = new Set(['system:Administrator', 'system:SysAdmin']);
const TEST_USER_KEY = 'system:TestUser';

/** Placements that launch at course level even when the message carries a resource link. */
const COURSE_LEVEL_PLACEMENTS: ReadonlySet<string> = new Set(['course_navigation', 'launchpad']);

// ---------------------------------------------------------------------------------------------
// Decision

interface ReceivedRole {
  raw: string;
  parsed: ParsedRole;
}

function courseRoleOf(parsed: ParsedRole): CourseRole | undefined {
  if (parsed.scope !== 'membership') return undefined;
  if (parsed.subRole) {
    const specific = COURSE_ROLES[`${parsed.principal}#${parsed.subRole}`];
    if (specific) return specific;
  }
  return COURSE_ROLES[parsed.principal];
}

/**
 * A course role that teaches or builds the course (instructor, teaching assistant, designer, course
 * administrator), as Names and Roles lists members: a learner launch by such a member is a teacher looking at the
 * exam as a student (Moodle's "Switch role to… Student" sends the teacher's own user id with only Learner).
 */
export function isCourseStaffRole(role: string): boolean {
  const parsed = parseRole(role);
  if (parsed.scope !== 'membership') return false;
  const courseRole = courseRoleOf(parsed);
  return courseRole !== undefined && courseRole !== 'learner' && courseRole !== 'mentor';
}

/**
 * The most specific sub-role decides: Canvas sends a TA as Instructor plus Instructor#TeachingAssistant,
 * so a bare principal is dropped when a sub-role of the same principal is present.
 */
function mostSpecific(memberships: readonly ReceivedRole[]): ReceivedRole[] {
  const principalsWithSubRoles = new Set(memberships.filter((r) => r.parsed.subRole).map((r) => r.parsed.principal));
  return memberships.filter((r) => r.parsed.subRole || !principalsWithSubRoles.has(r.parsed.principal));
}

/** A configured proctor role never matches a learner or an institution/system role. */
function proctorMatches(received: readonly ReceivedRole[], proctorRoles: readonly string[]): ReceivedRole[] {
  const keys = new Set(proctorRoles.filter((role) => role.trim() !== '' && proctorRoleRefusal(role) === undefined).map(roleKey));
  return received.filter((r) => keys.has(roleKey(r.raw)) && (r.parsed.scope === 'membership' || r.parsed.scope === 'unknown'));
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function labelList(roles: readonly ReceivedRole[]): string[] {
  return unique(roles.map((r) => roleLabel(r.parsed)));
}

function labels(roles: readonly ReceivedRole[]): string {
  return labelList(roles).join(', ');
}

function decision(kind: RoleKind, matched: readonly ReceivedRole[], reason: string, why: RoleReason, extra: Partial<RoleDecision> = {}): RoleDecision {
  return {
    kind,
    canEditSettings: false,
    canReview: false,
    canProctor: false,
    isTestUser: false,
    isAdmin: false,
    matched: unique(matched.map((r) => r.raw)),
    reason,
    why,
    ...extra,
  };
}

/** Decides, from the roles of one launch, what the user may do with this course's proctored exams. */
export function mapRoles(input: MapRolesInput): RoleDecision {
  const received: ReceivedRole[] = input.roles
    .filter((raw): raw is string => typeof raw === 'string' && raw.trim() !== '')
    .map((raw) => ({ raw, parsed: parseRole(raw) }));

  const testUser = received.filter((r) => roleKey(r.raw) === TEST_USER_KEY);
  if (testUser.length > 0) {
    return decision('candidate', testUser, 'LMS test user (such as Canvas Student View): opens exams as a candidate, attempts marked as tests.', { kind: 'testUser' }, {
      isTestUser: true,
    });
  }

  const memberships = mostSpecific(received.filter((r) => r.parsed.scope === 'membership'));
  const byCourseRole = (role: CourseRole) => memberships.filter((r) => courseRoleOf(r.parsed) === role);
  const systemAdmins = received.filter((r) => SYSTEM_ADMIN_KEYS.has(roleKey(r.raw)));
  const proctors = proctorMatches(received, input.proctorRoles ?? []);

  const staffCandidates: { role: StaffRole; matched: ReceivedRole[] }[] = [
    { role: 'instructor', matched: byCourseRole('instructor') },
    { role: 'teachingAssistant', matched: byCourseRole('teachingAssistant') },
    { role: 'contentDeveloper', matched: byCourseRole('contentDeveloper') },
    { role: 'courseAdministrator', matched: byCourseRole('courseAdministrator') },
    { role: 'systemAdministrator', matched: systemAdmins },
  ];
  // A role the platform's settings name as a proctor role means "proctor" even when it would otherwise
  // open the hub: Canvas sends a custom "Proctor" course role as its base role (e.g. ContentDeveloper for
  // a Designer-based role, Instructor#TeachingAssistant for a TA-based one), so naming that role is the
  // only way to make such members proctors. System administrators always keep the hub.
  const proctorKeys = new Set(proctors.map((r) => roleKey(r.raw)));
  const onlyProctorRoles = (s: { role: StaffRole; matched: ReceivedRole[] }) =>
    s.role !== 'systemAdministrator' && s.matched.every((r) => proctorKeys.has(roleKey(r.raw)));
  const staff = staffCandidates.filter((s) => s.matched.length > 0 && !onlyProctorRoles(s));

  if (staff.length > 0) {
    const allows = (permission: Permission) =>
      permission === 'if-teaching-assistants-may-edit' ? input.teachingAssistantsMayEdit === true : permission;
    const grants = staff.map((s) => STAFF_GRANTS[s.role]);
    const canEditSettings = grants.some((g) => allows(g.canEditSettings));
    const canProctor = grants.some((g) => g.canProctor) || proctors.length > 0;
    const matched = [...staff.flatMap((s) => s.matched), ...proctors];
    const canReview = grants.some((g) => g.canReview);
    const who = unique(grants.map((g) => g.label)).join(' and ');
    const notes = [
      canEditSettings ? '' : 'read-only: teaching assistants at this institution may not change exam settings',
      canReview || canProctor ? '' : 'may not open the review center or monitor exams live',
    ].filter(Boolean);
    const note = notes.length > 0 ? ` (${notes.join('; ')})` : '';
    const why: RoleReason = { kind: 'staff', staff: staff.map((s) => s.role), roles: labelList(matched), settingsReadOnly: !canEditSettings, noReviewOrLive: !(canReview || canProctor) };
    return decision('instructor', matched, `${capitalize(who)} (${labels(matched)}): instructor hub${note}.`, why, {
      canEditSettings,
      canReview,
      canProctor,
      isAdmin: systemAdmins.length > 0,
    });
  }

  if (proctors.length > 0) {
    return decision('proctor', proctors, `Proctor role from the platform settings (${labels(proctors)}): may monitor exams live and open the launchpad.`, { kind: 'proctor', roles: labelList(proctors) }, {
      canProctor: true,
    });
  }

  const mentors = byCourseRole('mentor');
  if (mentors.length > 0) {
    return decision('none', mentors, `Observer (${labels(mentors)}): observers cannot open proctored exams.`, { kind: 'observer', roles: labelList(mentors) });
  }

  const learners = byCourseRole('learner');
  if (learners.length > 0) {
    return decision('candidate', learners, `Learner in this course (${labels(learners)}): opens exams as a candidate.`, { kind: 'learner', roles: labelList(learners) });
  }

  return noCourseRoleDecision(received);
}

function noCourseRoleDecision(received: readonly ReceivedRole[]): RoleDecision {
  if (received.length === 0) return decision('none', [], 'The launch carried no roles, so no access to proctored exams.', { kind: 'noRoles' });
  const institution = received.filter((r) => r.parsed.scope === 'institution');
  if (institution.length > 0) {
    return decision('none', [], `No course role that opens proctored exams; institution roles (${labels(institution)}) never grant rights in a course.`, {
      kind: 'institutionOnly',
      roles: labelList(institution),
    });
  }
  return decision('none', [], `No course role that opens proctored exams among the roles received (${labels(received)}).`, { kind: 'noCourseRole', roles: labelList(received) });
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// ---------------------------------------------------------------------------------------------
// Launch target

export interface LaunchTargetInput {
  decision: Pick<RoleDecision, 'kind' | 'canProctor'>;
  hasResourceLink: boolean;
  /** Canvas's placement claim (e.g. `course_navigation`) or the custom parameter `placement`. */
  placement?: string;
}

export function isCourseLevelPlacement(placement: string | undefined): boolean {
  return placement !== undefined && COURSE_LEVEL_PLACEMENTS.has(placement.trim().toLowerCase());
}

/**
 * Where a launch goes. LTI 1.3 requires a resource link on every resource link launch, so Canvas's
 * course navigation launch carries one too: the placement says it is a course-level launch.
 */
export function decideLaunchTarget(input: LaunchTargetInput): LaunchTarget {
  const { kind, canProctor } = input.decision;
  if (kind === 'none') return 'forbidden';
  const courseLevel = !input.hasResourceLink || isCourseLevelPlacement(input.placement);
  if (courseLevel) {
    if (canProctor) return 'launchpad';
    return kind === 'candidate' ? 'student-exam-list' : 'forbidden';
  }
  if (kind === 'candidate') return 'candidate-launch';
  if (kind === 'instructor') return 'instructor-hub';
  return canProctor ? 'live-launch' : 'forbidden';
}
