import type { Queryable } from '../db/types.js';
import type { RefusedRegistration } from './errors.js';

/**
 * Launches refused because their client id or deployment id is not registered, for an issuer that is:
 * what the administrator must add, listed in the console with one-click fixes. Per issuer at most
 * MAX_PER_ISSUER different ids are kept. Launches from unknown issuers are not kept (anyone can send those),
 * except one that presents a client id or deployment id registered under another platform: that looks like
 * the platform at a new address (an LMS that changed its address keeps its tool registration), kept with the
 * platform it looks like so the console can offer the move; at most MAX_LOOKALIKES of them.
 */
export interface RefusedRegistrationRecord extends RefusedRegistration {
  reason: string;
  /** The registered platform this launch of an unknown issuer looks like (the same client id, or deployment id). */
  looksLike?: { issuer: string; clientId: string };
  firstAt: Date;
  lastAt: Date;
  attempts: number;
  incidentId?: string;
}

export interface RefusedRegistrations {
  record(registration: RefusedRegistration, reason: string, incidentId: string): Promise<boolean>;
  list(limit?: number): Promise<RefusedRegistrationRecord[]>;
  dismiss(registration: RefusedRegistration): Promise<boolean>;
  /** Forgets what a new registration resolved: the client id, and its deployment id when given. */
  resolved(registration: RefusedRegistration): Promise<void>;
}

const MAX_PER_ISSUER = 50;
const MAX_LOOKALIKES = 20;

/** What the tool knows of a refused launch's issuer: registered, or like a registered platform at a new address. */
export type IssuerStanding = { known: true } | { known: false; looksLike?: { issuer: string; clientId: string } };

interface Row {
  issuer: string;
  client_id: string;
  deployment_id: string;
  reason: string;
  first_at: Date;
  last_at: Date;
  attempts: number;
  incident_id: string | null;
  looks_like_issuer: string | null;
  looks_like_client_id: string | null;
}

export function createRefusedRegistrations(db: Queryable, standingOf: (registration: RefusedRegistration) => Promise<IssuerStanding>): RefusedRegistrations {
  return {
    async record(registration, reason, incidentId) {
      const standing = await standingOf(registration);
      if (!standing.known) {
        if (!standing.looksLike) return false;
        const result = await db.query(
          `INSERT INTO lti_refused_registrations (issuer, client_id, deployment_id, reason, incident_id, looks_like_issuer, looks_like_client_id)
           SELECT $1, $2, $3, $4, $5, $6, $7
            WHERE (SELECT count(*) FROM lti_refused_registrations WHERE looks_like_issuer IS NOT NULL) < $8
               OR EXISTS (SELECT 1 FROM lti_refused_registrations WHERE issuer = $1 AND client_id = $2 AND deployment_id = $3)
           ON CONFLICT (issuer, client_id, deployment_id) DO UPDATE
             SET last_at = now(), attempts = lti_refused_registrations.attempts + 1, reason = EXCLUDED.reason, incident_id = EXCLUDED.incident_id,
               looks_like_issuer = EXCLUDED.looks_like_issuer, looks_like_client_id = EXCLUDED.looks_like_client_id`,
          [registration.issuer, registration.clientId, registration.deploymentId ?? '', reason, incidentId, standing.looksLike.issuer, standing.looksLike.clientId, MAX_LOOKALIKES],
        );
        return result.rowCount > 0;
      }
      const result = await db.query(
        `INSERT INTO lti_refused_registrations (issuer, client_id, deployment_id, reason, incident_id)
         SELECT $1, $2, $3, $4, $5
          WHERE (SELECT count(*) FROM lti_refused_registrations WHERE issuer = $1) < $6
             OR EXISTS (SELECT 1 FROM lti_refused_registrations WHERE issuer = $1 AND client_id = $2 AND deployment_id = $3)
         ON CONFLICT (issuer, client_id, deployment_id) DO UPDATE
           SET last_at = now(), attempts = lti_refused_registrations.attempts + 1, reason = EXCLUDED.reason, incident_id = EXCLUDED.incident_id`,
        [registration.issuer, registration.clientId, registration.deploymentId ?? '', reason, incidentId, MAX_PER_ISSUER],
      );
      return result.rowCount > 0;
    },
    async list(limit = 100) {
      const result = await db.query<Row>('SELECT * FROM lti_refused_registrations ORDER BY last_at DESC LIMIT $1', [limit]);
      return result.rows.map((row) => ({
        issuer: row.issuer,
        clientId: row.client_id,
        deploymentId: row.deployment_id || undefined,
        reason: row.reason,
        firstAt: new Date(row.first_at),
        lastAt: new Date(row.last_at),
        attempts: row.attempts,
        incidentId: row.incident_id ?? undefined,
        looksLike: row.looks_like_issuer !== null && row.looks_like_client_id !== null ? { issuer: row.looks_like_issuer, clientId: row.looks_like_client_id } : undefined,
      }));
    },
    async dismiss(registration) {
      const result = await db.query('DELETE FROM lti_refused_registrations WHERE issuer = $1 AND client_id = $2 AND deployment_id = $3', [
        registration.issuer,
        registration.clientId,
        registration.deploymentId ?? '',
      ]);
      return result.rowCount > 0;
    },
    async resolved(registration) {
      await db.query(
        `DELETE FROM lti_refused_registrations WHERE issuer = $1 AND client_id = $2 AND (deployment_id = '' OR deployment_id = $3 OR reason = 'unregistered_platform')`,
        [registration.issuer, registration.clientId, registration.deploymentId ?? ''],
      );
    },
  };
}
