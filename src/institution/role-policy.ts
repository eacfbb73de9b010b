import type { LtiLaunch } from '../lti/claims.js';
import { mapRoles, type RoleDecision } from '../lti/roles.js';
import type { InstitutionSettings, InstitutionSettingsStore } from './settings.js';

/** What the person behind a launch may do, by the roles of the launch and the platform's own settings. */
export type RolePolicy = (launch: Pick<LtiLaunch, 'issuer' | 'clientId' | 'roles'>) => Promise<RoleDecision>;

/**
 * The one place where the institution's role settings (proctor roles, teaching assistants' rights)
 * meet the role mapping, so that the hub, the settings view and deep linking always agree.
 */
export function decideRoles(launch: Pick<LtiLaunch, 'roles'>, settings: Pick<InstitutionSettings, 'proctorRoles' | 'teachingAssistantsMayEdit'>): RoleDecision {
  return mapRoles({ roles: launch.roles, proctorRoles: settings.proctorRoles, teachingAssistantsMayEdit: settings.teachingAssistantsMayEdit });
}

export function createRolePolicy(institutions: Pick<InstitutionSettingsStore, 'get'>): RolePolicy {
  return async (launch) => decideRoles(launch, await institutions.get(launch.issuer, launch.clientId));
}
