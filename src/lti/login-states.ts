import type { Database } from '../db/types.js';

/**
 * The nonce ltijs puts in each OIDC login request, bound to that login's state, so a launch is only
 * accepted with the nonce this tool issued for that very state, and only once (ltijs never stores it).
 */
export interface LoginStateStore {
  bind(entry: { state: string; nonce: string; issuer: string; clientId?: string }): Promise<void>;
  /** Marks the state used and keeps the verified claims; 'ok', or why it cannot be consumed. */
  consume(state: string, nonce: string, claims: Record<string, unknown>, maxAgeSeconds: number): Promise<'ok' | 'unknown' | 'replayed' | 'mismatch' | 'expired'>;
  /** The verified claims of the launch that consumed this state, if it is recent enough. */
  claims(state: string, maxAgeSeconds: number): Promise<Record<string, unknown> | undefined>;
  purge(olderThanSeconds: number): Promise<number>;
}

export function createLoginStateStore(db: Database): LoginStateStore {
  return {
    async bind({ state, nonce, issuer, clientId }) {
      await db.query('INSERT INTO lti_login_states (state, nonce, issuer, client_id) VALUES ($1, $2, $3, $4)', [
        state,
        nonce,
        issuer,
        clientId ?? null,
      ]);
    },

    async consume(state, nonce, claims, maxAgeSeconds) {
      // One atomic UPDATE: of two concurrent launches with the same state, exactly one wins.
      const won = await db.query(
        `UPDATE lti_login_states SET consumed_at = now(), claims = $3::jsonb
          WHERE state = $1 AND nonce = $2 AND consumed_at IS NULL
            AND created_at > now() - make_interval(secs => $4)`,
        [state, nonce, JSON.stringify(claims), maxAgeSeconds],
      );
      if (won.rowCount === 1) return 'ok';
      const found = await db.query<{ nonce: string; consumed: boolean; expired: boolean }>(
        `SELECT nonce, consumed_at IS NOT NULL AS consumed,
                created_at <= now() - make_interval(secs => $2) AS expired
           FROM lti_login_states WHERE state = $1`,
        [state, maxAgeSeconds],
      );
      const row = found.rows[0];
      if (!row) return 'unknown';
      if (row.nonce !== nonce) return 'mismatch';
      if (row.consumed) return 'replayed';
      return 'expired';
    },

    async claims(state, maxAgeSeconds) {
      const found = await db.query<{ claims: Record<string, unknown> | null }>(
        `SELECT claims FROM lti_login_states
          WHERE state = $1 AND consumed_at IS NOT NULL AND consumed_at > now() - make_interval(secs => $2)`,
        [state, maxAgeSeconds],
      );
      return found.rows[0]?.claims ?? undefined;
    },

    async purge(olderThanSeconds) {
      const result = await db.query('DELETE FROM lti_login_states WHERE created_at < now() - make_interval(secs => $1)', [
        olderThanSeconds,
      ]);
      return result.rowCount;
    },
  };
}
