import type { LtiLaunch } from '../lti/claims.js';
import { mapRoles, roleKey, type RoleDecision } from '../lti/roles.js';
import type { CourseStaffStore } from './course-staff.js';
import type { InstitutionSettings, InstitutionSettingsStore } from './settings.js';

/** What a role policy reads of a launch. */
export type PolicyLaunch = Pick<LtiLaunch, 'issuer' | 'clientId' | 'deploymentId' | 'context' | 'roles' | 'userSub' | 'platformFamily'>;

/** What the person behind a launch may do, by the roles of the launch, the platform's settings and the course's own staff list. */
export type RolePolicy = (launch: PolicyLaunch) => Promise<RoleDecision>;

/** How the course's Names and Roles roster lists a person: Moodle lists its non-editing teachers as learners. */
export type RosterListing = 'staff' | 'learner' | undefined;

/**
 * The one place where the institution's role settings (proctor roles, teaching assistants' rights)
 * meet the role mapping, so that the hub, the settings view and deep linking always agree.
 */
export function decideRoles(launch: Pick<LtiLaunch, 'roles'>, settings: Pick<InstitutionSettings, 'proctorRoles' | 'teachingAssistantsMayEdit'>): RoleDecision {
  return mapRoles({ roles: launch.roles, proctorRoles: settings.proctorRoles, teachingAssistantsMayEdit: settings.teachingAssistantsMayEdit });
}

const TEACHING_ASSISTANT = 'http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant';

/**
 * A person an instructor named a proctor of the course: live monitoring and the launchpad, no settings,
 * accommodations or review, whatever teacher role the LMS sends. An LMS system administrator keeps the hub.
 */
export function asNamedProctor(decision: RoleDecision): RoleDecision {
  if (decision.kind !== 'instructor' || decision.isAdmin) return decision;
  return { ...decision, kind: 'proctor', canEditSettings: false, canReview: false, canProctor: true, why: { kind: 'namedProctor', roles: decision.why.kind === 'staff' ? decision.why.roles : [] }, reason: 'Named a proctor of this course by an instructor: may monitor exams live and open the launchpad.' };
}

/**
 * Moodle sends plain Instructor for editing and non-editing teachers alike, but lists non-editing teachers as
 * Learner in Names and Roles (mod/lti/locallib.php lti_get_ims_role: mod/lti:manage; the memberships service:
 * moodle/course:manageactivities). Such a person is a teaching assistant: "teaching assistants may edit" decides.
 */
export function asNonEditingTeacher(launch: Pick<LtiLaunch, 'roles'>, settings: Pick<InstitutionSettings, 'proctorRoles' | 'teachingAssistantsMayEdit'>): RoleDecision {
  const roles = launch.roles.map((role) => (roleKey(role) === 'membership:Instructor' ? TEACHING_ASSISTANT : role));
  return { ...decideRoles({ roles }, settings), matched: launch.roles.filter((role) => roleKey(role) === 'membership:Instructor') };
}

/** Whether a launch's decision rests on a plain Instructor role of a Moodle course (editing or not, Moodle does not say). */
function plainMoodleTeacher(launch: PolicyLaunch, decision: RoleDecision): boolean {
  return launch.platformFamily?.toLowerCase() === 'moodle' && decision.kind === 'instructor' && !decision.isAdmin && decision.why.kind === 'staff' && decision.why.staff.every((role) => role === 'instructor');
}

export interface RolePolicyDeps {
  institutions: Pick<InstitutionSettingsStore, 'get'>;
  /** The course's named proctors; without it no one is named. */
  courseStaff?: Pick<CourseStaffStore, 'isNamedProctor'>;
  /** The pseudonymous user id of a launch (the course staff list's key). */
  userIdOf?: (launch: PolicyLaunch) => string;
  /** How Names and Roles lists the person (undefined: no roster, or not listed): the teacher stays a teacher. */
  listing?: (launch: PolicyLaunch) => Promise<RosterListing>;
}

/** The decision for a launch with the institution's settings already read. */
export async function decideCourseRoles(launch: PolicyLaunch, settings: InstitutionSettings, deps: Omit<RolePolicyDeps, 'institutions'>): Promise<RoleDecision> {
  const decision = decideRoles(launch, settings);
  if (decision.kind !== 'instructor' || decision.isAdmin || !launch.context) return decision;
  const course = { issuer: launch.issuer, clientId: launch.clientId, deploymentId: launch.deploymentId, contextId: launch.context.id };
  if (deps.courseStaff && deps.userIdOf && (await deps.courseStaff.isNamedProctor(course, deps.userIdOf(launch)))) return asNamedProctor(decision);
  if (deps.listing && plainMoodleTeacher(launch, decision) && (await deps.listing(launch)) === 'learner') return asNonEditingTeacher(launch, settings);
  return decision;
}

export function createRolePolicy(deps: RolePolicyDeps): RolePolicy {
  return async (launch) => decideCourseRoles(launch, await deps.institutions.get(launch.issuer, launch.clientId), deps);
}
