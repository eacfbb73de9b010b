import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../db/types.js';
import type { StartAssessmentInput } from './proctoring-services.js';

/**
 * One return of a candidate to the platform (LTI Proctoring Services' `LtiStartAssessment`), prepared when the
 * platform's `LtiStartProctoring` arrives. It is bound to the browser of that launch by a secret in a cookie (only
 * its hash is stored), used once, and expires: the hand-off page signs the message only for that browser, once.
 */
export interface AssessmentHandoff extends StartAssessmentInput {
  id: string;
  attemptId: string;
  startAssessmentUrl: string;
}

/** How long the candidate may spend in the proctoring service's checks before the hand-off expires. */
export const HANDOFF_LIFETIME_SECONDS = 2 * 60 * 60;

/** Expired hand-offs are deleted this long after they expire (a late visit is still told it expired). */
const KEEP_EXPIRED_SECONDS = 24 * 60 * 60;

export type HandoffTake = { ok: true; handoff: AssessmentHandoff } | { ok: false; reason: 'unknown' | 'other_browser' | 'used' | 'expired' };

export interface AssessmentHandoffStore {
  /** A new hand-off id (known before the attempt, for the launch URL). */
  newId(): string;
  /** Stores the hand-off; returns the browser secret for its cookie. */
  create(handoff: AssessmentHandoff): Promise<{ secret: string; expiresAt: Date }>;
  /** The hand-off, used up, when `secret` is its browser's, it was never used and it has not expired. */
  take(id: string, secret: string | undefined): Promise<HandoffTake>;
}

interface HandoffRow {
  id: string;
  attempt_id: string;
  issuer: string;
  client_id: string;
  deployment_id: string;
  resource_link: { id: string; title?: string };
  start_assessment_url: string;
  session_data: string;
  attempt_number: number;
  browser_hash: string;
  expires_at: Date;
  used_at: Date | null;
  end_assessment_return: boolean;
}

const hashOf = (secret: string): string => createHash('sha256').update(secret).digest('hex');

function sameHash(stored: string, secret: string): boolean {
  const a = Buffer.from(stored, 'hex');
  const b = Buffer.from(hashOf(secret), 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

export function createAssessmentHandoffStore(db: Queryable, options: { lifetimeSeconds?: number } = {}): AssessmentHandoffStore {
  const lifetime = options.lifetimeSeconds ?? HANDOFF_LIFETIME_SECONDS;
  return {
    newId: () => randomUUID(),
    async create(handoff) {
      const secret = randomBytes(32).toString('base64url');
      await db.query('DELETE FROM assessment_handoffs WHERE expires_at < now() - make_interval(secs => $1)', [KEEP_EXPIRED_SECONDS]);
      const result = await db.query<{ expires_at: Date }>(
        `INSERT INTO assessment_handoffs (id, attempt_id, issuer, client_id, deployment_id, resource_link, start_assessment_url, session_data, attempt_number, end_assessment_return, browser_hash, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11, now() + make_interval(secs => $12)) RETURNING expires_at`,
        [
          handoff.id, handoff.attemptId, handoff.issuer, handoff.clientId, handoff.deploymentId, JSON.stringify(handoff.resourceLink),
          handoff.startAssessmentUrl, handoff.sessionData, handoff.attemptNumber, handoff.endAssessmentReturn, hashOf(secret), lifetime,
        ],
      );
      const row = result.rows[0];
      if (!row) throw new Error('hand-off insert returned nothing');
      return { secret, expiresAt: new Date(row.expires_at) };
    },
    async take(id, secret) {
      const found = await db.query<HandoffRow>('SELECT * FROM assessment_handoffs WHERE id = $1', [id]);
      const row = found.rows[0];
      if (!row) return { ok: false, reason: 'unknown' };
      if (!secret || !sameHash(row.browser_hash, secret)) return { ok: false, reason: 'other_browser' };
      if (row.used_at) return { ok: false, reason: 'used' };
      if (new Date(row.expires_at).getTime() <= Date.now()) return { ok: false, reason: 'expired' };
      // Used once: of two concurrent visits, only one signs.
      const used = await db.query('UPDATE assessment_handoffs SET used_at = now() WHERE id = $1 AND used_at IS NULL AND expires_at > now()', [id]);
      if (used.rowCount !== 1) return { ok: false, reason: 'used' };
      return {
        ok: true,
        handoff: {
          id: row.id,
          attemptId: row.attempt_id,
          issuer: row.issuer,
          clientId: row.client_id,
          deploymentId: row.deployment_id,
          resourceLink: row.resource_link,
          startAssessmentUrl: row.start_assessment_url,
          sessionData: row.session_data,
          attemptNumber: row.attempt_number,
          endAssessmentReturn: row.end_assessment_return,
        },
      };
    },
  };
}
