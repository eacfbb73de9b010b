import type { Request, Response, Router } from 'express';
import type { Config } from '../config.js';
import type { Database } from '../db/types.js';
import type { Logger } from '../logger.js';
import type { ContextStore } from '../hosted/contexts.js';
import type { InstitutionSettingsStore } from '../institution/settings.js';
import type { PlatformActivity } from '../lti/platform-activity.js';
import type { LtiAdapter } from '../lti/provider.js';
import type { RefusedRegistrations } from '../lti/refused-registrations.js';
import type { AccountClients } from '../proctoring/account-clients.js';
import type { ProctoringAccountStore } from '../proctoring/accounts.js';
import type { SubscriptionService } from '../webhooks/subscriptions.js';
import type { PseudonymSecret } from '../lti/identifiers.js';
import type { AuditEntryInput, AuditLog } from './audit.js';
import type { SignInLockouts } from './sign-in-limits.js';

/**
 * How a console page plugs in: a module names itself, says where it is mounted (under /admin) and where it
 * sits in the navigation, and builds its router from the console context. Its routes run after sign-in and
 * CSRF checks. The navigation label of `id` lives in views/admin/partials/nav.ejs (user-visible text stays
 * in views). Pages are written with `adminPage()` (page.ts), which builds the router.
 */
export interface AdminPageModule {
  /** Stable name, also the navigation label's key. */
  id: string;
  /** Mount path under /admin, e.g. '/platforms'. */
  path: string;
  /** Position in the navigation (ascending); omit to leave the page out of it. */
  navOrder?: number;
  router(context: AdminContext): Router;
}

/** Who made a change from the console, for the audit log. */
export type AdminActor = Pick<AuditEntryInput, 'actor' | 'source' | 'remoteAddress'>;

/** The services the console is built on; its pages reach them through the context. */
export interface AdminServices {
  config: Config;
  db: Database;
  lti: LtiAdapter;
  logger: Logger;
  refusedRegistrations: RefusedRegistrations;
  platformActivity: PlatformActivity;
  institutions: InstitutionSettingsStore;
  contexts: Pick<ContextStore, 'rosterProblems'>;
  /** Proctoring accounts per platform, and the clients that call the service as each. */
  accounts: ProctoringAccountStore;
  accountClients: Pick<AccountClients, 'testConnection' | 'testCandidate'>;
  /** Webhook subscriptions of every proctoring account, and the deliveries that matched no attempt. */
  webhooks: SubscriptionService;
  /** The pseudonym keys the ids sent to the proctoring service are derived with (a platform move recomputes section ids). */
  pseudonyms: PseudonymSecret;
}

/** A page logs through `loggerOf(req)`, so that its lines carry the request's id. */
export interface AdminContext extends Omit<AdminServices, 'logger'> {
  audit: AuditLog;
  /** Failed sign-ins per client group, and lifting their lockouts. */
  signInLockouts: SignInLockouts;
  /** The log of this request (every line carries its `reqId`). */
  loggerOf(req: Request): Logger;
  /** The tool's URL of a path (PUBLIC_URL based). */
  toolUrl(path: string): string;
  /** Renders an admin view inside the console layout (navigation, CSRF token, notices). */
  render(req: Request, res: Response, view: string, locals?: Record<string, unknown>): void;
  /** The console administrator and the client address of this request. */
  actorOf(req: Request): AdminActor;
  /** Records an audit entry for a console change. */
  recordChange(req: Request, entry: Omit<AuditEntryInput, 'actor' | 'source' | 'remoteAddress'>): Promise<void>;
}
