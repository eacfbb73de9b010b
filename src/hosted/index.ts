import type { Router } from 'express';
import type { Config } from '../config.js';
import type { Queryable } from '../db/types.js';
import type { ExamStore } from '../exams/store.js';
import type { InstitutionSettingsStore } from '../institution/settings.js';
import { createCourseStaffStore } from '../institution/course-staff.js';
import type { Logger } from '../logger.js';
import { deriveExamTag, deriveUserId, type PseudonymSecret } from '../lti/identifiers.js';
import type { LtiAdapter } from '../lti/provider.js';
import { createContextStore, type ContextStore } from './contexts.js';
import type { HostedLinks } from './links.js';
import { createLogoStore, type LogoStore } from './logos.js';
import { createRosterService, type RosterService } from './roster.js';
import { createHostedRoutes } from './routes.js';

export interface HostedEndpoints {
  router: Router;
  /** Records each launch's course under its section_id: call it on every launch. */
  contexts: ContextStore;
  roster: RosterService;
  logos: LogoStore;
}

/** The hosted endpoints' feature, built from its collaborators (see routes.ts for the endpoints). */
export function createHostedEndpoints(deps: {
  db: Queryable;
  config: Pick<Config, 'corsAllowedOrigins' | 'hosted'>;
  lti: Pick<LtiAdapter, 'members'>;
  exams: Pick<ExamStore, 'listByContext'>;
  institutions: Pick<InstitutionSettingsStore, 'findByKey'>;
  links: HostedLinks;
  /** The pseudonym keys (lti/pseudonym-keys.ts) launches derive user_id, exam_tag and section_id with. */
  pseudonymSecret: PseudonymSecret;
  logger: Logger;
}): HostedEndpoints {
  const contexts = createContextStore(deps.db, { pseudonymSecret: deps.pseudonymSecret });
  const logos = createLogoStore(deps.db);
  const roster = createRosterService({
    contexts,
    members: (platform, url, options) => deps.lti.members(platform, url, options),
    userIdOf: (issuer, lmsUserId) => deriveUserId(deps.pseudonymSecret, issuer, lmsUserId),
    // Staff the course knows of (launched as staff, named proctors) stay out of the roster too.
    knownStaff: (context) => createCourseStaffStore(deps.db).staffIds(context),
    cacheSeconds: deps.config.hosted.rosterCacheSeconds,
    fetchTimeoutMs: deps.config.hosted.rosterFetchTimeoutMs,
    logger: deps.logger,
  });
  const router = createHostedRoutes({
    links: deps.links,
    roster,
    contexts,
    exams: deps.exams,
    examTagOf: (issuer, deploymentId, resourceLinkId) => deriveExamTag(deps.pseudonymSecret, issuer, deploymentId, resourceLinkId),
    logos,
    institutions: deps.institutions,
    allowedOrigins: deps.config.corsAllowedOrigins,
    logger: deps.logger,
  });
  return { router, contexts, roster, logos };
}
