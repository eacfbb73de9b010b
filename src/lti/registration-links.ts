import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../db/types.js';

/**
 * Admin-issued, single-use, expiring links that allow one LTI Dynamic Registration. Only a hash of
 * the token is stored, so a database dump does not hand out registration rights.
 */
export interface RegistrationLinks {
  issue(ttlSeconds: number): Promise<{ token: string; expiresAt: Date }>;
  /** 'ok' when the token may be used now (it is not consumed by this call). */
  check(token: string): Promise<LinkState>;
  /**
   * Starts an attempt with the token: counted as a failed one at once (atomically, so that attempts at the
   * same time cannot pass the cap together) and taken back by `consume` when it succeeds. 'ok' with the
   * attempts left should this one fail, or why the token cannot be used.
   */
  begin(token: string): Promise<{ state: 'ok'; attemptsLeftOnFailure: number } | { state: Exclude<LinkState, 'ok'> }>;
  /** Consumes the token of an attempt begun with `begin`, atomically; false when it was used or expired meanwhile. */
  consume(token: string, registered: { issuer: string; clientId: string }): Promise<boolean>;
}

export type LinkState = 'ok' | 'unknown' | 'expired' | 'used' | 'exhausted';

/** Failed registrations a link allows: enough for an LMS administrator's typo, too few to probe with. */
export const MAX_FAILED_REGISTRATIONS = 3;

const hash = (token: string) => createHash('sha256').update(token).digest('hex');

export function createRegistrationLinks(db: Queryable): RegistrationLinks {
  const links: RegistrationLinks = {
    async issue(ttlSeconds) {
      const token = randomBytes(24).toString('base64url');
      const result = await db.query<{ expires_at: Date }>(
        'INSERT INTO registration_links (token_hash, expires_at) VALUES ($1, now() + make_interval(secs => $2)) RETURNING expires_at',
        [hash(token), ttlSeconds],
      );
      return { token, expiresAt: new Date(result.rows[0]?.expires_at ?? Date.now()) };
    },
    async check(token) {
      const result = await db.query<{ used: boolean; expired: boolean; failed_attempts: number }>(
        'SELECT used_at IS NOT NULL AS used, expires_at <= now() AS expired, failed_attempts FROM registration_links WHERE token_hash = $1',
        [hash(token)],
      );
      const row = result.rows[0];
      if (!row) return 'unknown';
      if (row.used) return 'used';
      if (row.expired) return 'expired';
      if (row.failed_attempts >= MAX_FAILED_REGISTRATIONS) return 'exhausted';
      return 'ok';
    },
    async begin(token) {
      const result = await db.query<{ failed_attempts: number }>(
        `UPDATE registration_links SET failed_attempts = failed_attempts + 1
          WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() AND failed_attempts < ${MAX_FAILED_REGISTRATIONS}
          RETURNING failed_attempts`,
        [hash(token)],
      );
      const counted = result.rows[0]?.failed_attempts;
      if (counted !== undefined) return { state: 'ok', attemptsLeftOnFailure: MAX_FAILED_REGISTRATIONS - counted };
      const state = await links.check(token);
      return { state: state === 'ok' ? 'exhausted' : state };
    },
    async consume(token, registered) {
      const result = await db.query(
        `UPDATE registration_links SET used_at = now(), issuer = $2, client_id = $3, failed_attempts = greatest(failed_attempts - 1, 0)
          WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() AND failed_attempts > 0`,
        [hash(token), registered.issuer, registered.clientId],
      );
      return result.rowCount === 1;
    },
  };
  return links;
}
