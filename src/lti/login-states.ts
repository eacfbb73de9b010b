import { LRUCache } from 'lru-cache';
import type { Database } from '../db/types.js';
import { prepared } from '../db/prepared.js';
import { detachedCopy, isRecord } from '../values.js';

/**
 * The claims of a launch this process just verified are read back by its own session handler at once (and by
 * the pages that follow): kept here as stored, so that read needs no query. Bounded; a launch on another
 * replica, or an older one, is read from the database.
 */
const RECENT_CLAIMS = { max: 5000, ttlMs: 60_000 };

/**
 * The nonce ltijs puts in each OIDC login request, bound to that login's state, so a launch is only
 * accepted with the nonce this tool issued for that very state, and only once (ltijs never stores it).
 */
export interface LoginStateStore {
  /**
   * Records a login. When `maxPending` logins already wait for their launch, the oldest pending login of the client
   * network holding the most is deleted to make room; 'full' (nothing stored) only when none could be.
   */
  bind(entry: LoginBinding): Promise<'ok' | 'full'>;
  /** How the login behind this state ran and how long ago it started; undefined when no login has this state. */
  describe(state: string): Promise<LoginDescription | undefined>;
  /** Marks the state used and keeps the verified claims; 'ok', or why it cannot be consumed. */
  consume(state: string, nonce: string, claims: Record<string, unknown>, maxAgeSeconds: number): Promise<'ok' | 'unknown' | 'replayed' | 'mismatch' | 'expired'>;
  /** The verified claims of the launch that consumed this state, if it is recent enough. */
  claims(state: string, maxAgeSeconds: number): Promise<Record<string, unknown> | undefined>;
  /**
   * True when the login behind this state, consumed by a launch of this process moments ago, is known to have no
   * ltijs `state` document (its target link URI had no query string): ltijs's lookup of it can be skipped.
   */
  hasNoLtijsState(state: string): boolean;
  /** Deletes logins never launched older than `pendingSeconds`, and used ones older than `consumedSeconds`. */
  purge(ages: { pendingSeconds: number; consumedSeconds: number }): Promise<number>;
}

export interface LoginStateLimits {
  /** Logins started within `pendingWindowSeconds` and not launched yet that may exist at once. */
  maxPending: number;
  /** How long a login may wait for its launch (older ones can no longer be launched and do not count). */
  pendingWindowSeconds: number;
}

export interface LoginBinding {
  state: string;
  nonce: string;
  issuer: string;
  clientId?: string;
  /** True when the login request came from a frame, false from a window of its own; undefined when the browser did not say. */
  framed?: boolean;
  /** The platform's client-side storage target offered with this login (lti_storage_target), if any. */
  storageTarget?: string;
  /** Whether ltijs stored a `state` document for this login (it does when the target link URI has a query string). */
  ltijsState?: boolean;
  /** The client network the login came from (`clientKeyOf`): a full cap evicts from the network holding the most. */
  clientNetwork?: string;
}

export interface LoginDescription {
  issuer: string;
  clientId: string | undefined;
  framed: boolean | undefined;
  storageTarget: string | undefined;
  ageSeconds: number;
  consumed: boolean;
}

/**
 * The logins of the last `windowSeconds` still waiting for their launch, at most `cap` rows: read on the index of
 * pending logins alone (lti_login_states_pending), so the count costs as many rows as logins are in flight.
 */
export function pendingLoginsSql(windowSeconds: string, cap: string): string {
  return `SELECT 1 FROM lti_login_states WHERE created_at > now() - make_interval(secs => ${windowSeconds}) AND consumed_at IS NULL LIMIT ${cap}`;
}

/** A login's state, when fewer than the cap of logins wait for their launch: the count and the insert in one statement. */
const BIND = prepared(`INSERT INTO lti_login_states (state, nonce, issuer, client_id, framed, storage_target, ltijs_state, client_network)
  SELECT $1, $2, $3, $4, $5, $6, $9, $10
   WHERE (SELECT count(*) FROM (${pendingLoginsSql('$7', '$8')}) AS pending) < $8`);

/** The launch of a login: one atomic update, so that of two concurrent launches with the same state exactly one wins. */
const CONSUME = prepared(`UPDATE lti_login_states SET consumed_at = now(), claims = $3::jsonb
   WHERE state = $1 AND nonce = $2 AND consumed_at IS NULL
     AND created_at > now() - make_interval(secs => $4)
   RETURNING ltijs_state`);

export function createLoginStateStore(db: Database, limits: LoginStateLimits = { maxPending: 50_000, pendingWindowSeconds: 600 }): LoginStateStore {
  const recentClaims = new LRUCache<string, { json: string; consumedAt: number; ltijsState: boolean | null }>({ max: RECENT_CLAIMS.max, ttl: RECENT_CLAIMS.ttlMs });
  return {
    async bind({ state, nonce, issuer, clientId, framed, storageTarget, ltijsState, clientNetwork }) {
      const values = [state, nonce, issuer, clientId ?? null, framed ?? null, storageTarget ?? null, limits.pendingWindowSeconds, limits.maxPending, ltijsState ?? null, clientNetwork ?? null];
      const inserted = await db.query(
        BIND,
        values,
      );
      if (inserted.rowCount === 1) return 'ok';
      // Full: the oldest pending login of the network holding the most makes room, so a flood displaces its own
      // logins. SKIP LOCKED gives concurrent binds different victims; binds racing the count above may still
      // overshoot the cap by about as many as run at once, as before.
      const replaced = await db.query(
        `WITH pending AS (
           SELECT state, client_network, created_at FROM lti_login_states
            WHERE consumed_at IS NULL AND created_at > now() - make_interval(secs => $7)
         ), biggest AS (
           SELECT client_network FROM pending GROUP BY client_network ORDER BY count(*) DESC, min(created_at) LIMIT 1
         ), victim AS (
           SELECT state FROM lti_login_states
            WHERE consumed_at IS NULL AND created_at > now() - make_interval(secs => $7)
              AND client_network IS NOT DISTINCT FROM (SELECT client_network FROM biggest)
            ORDER BY created_at LIMIT 1
            FOR UPDATE SKIP LOCKED
         ), evicted AS (
           DELETE FROM lti_login_states WHERE state IN (SELECT state FROM victim) AND consumed_at IS NULL RETURNING state
         )
         INSERT INTO lti_login_states (state, nonce, issuer, client_id, framed, storage_target, ltijs_state, client_network)
         SELECT $1, $2, $3, $4, $5, $6, $8, $9 WHERE EXISTS (SELECT 1 FROM evicted)`,
        values.filter((_, index) => index !== 7),
      );
      return replaced.rowCount === 1 ? 'ok' : 'full';
    },

    async describe(state) {
      const found = await db.query<{ issuer: string; client_id: string | null; framed: boolean | null; storage_target: string | null; age_seconds: number; consumed: boolean }>(
        `SELECT issuer, client_id, framed, storage_target, extract(epoch FROM now() - created_at)::float8 AS age_seconds,
                consumed_at IS NOT NULL AS consumed
           FROM lti_login_states WHERE state = $1`,
        [state],
      );
      const row = found.rows[0];
      if (!row) return undefined;
      return {
        issuer: row.issuer,
        clientId: row.client_id ?? undefined,
        framed: row.framed ?? undefined,
        storageTarget: row.storage_target ?? undefined,
        ageSeconds: Number(row.age_seconds),
        consumed: row.consumed,
      };
    },

    async consume(state, nonce, claims, maxAgeSeconds) {
      const json = JSON.stringify(claims);
      const won = await db.query<{ ltijs_state: boolean | null }>(
        CONSUME,
        [state, nonce, json, maxAgeSeconds],
      );
      if (won.rowCount === 1) {
        // The state is a field of the launch's form body: kept as is, it would keep the whole body (the id_token) alive.
        recentClaims.set(detachedCopy(state), { json, consumedAt: Date.now(), ltijsState: won.rows[0]?.ltijs_state ?? null });
        return 'ok';
      }
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
      const recent = recentClaims.get(state);
      if (recent && Date.now() - recent.consumedAt < maxAgeSeconds * 1000) {
        const claims: unknown = JSON.parse(recent.json);
        if (isRecord(claims)) return claims;
      }
      const found = await db.query<{ claims: Record<string, unknown> | null }>(
        `SELECT claims FROM lti_login_states
          WHERE state = $1 AND consumed_at IS NOT NULL AND consumed_at > now() - make_interval(secs => $2)`,
        [state, maxAgeSeconds],
      );
      return found.rows[0]?.claims ?? undefined;
    },

    hasNoLtijsState: (state) => recentClaims.get(state)?.ltijsState === false,

    async purge({ pendingSeconds, consumedSeconds }) {
      const result = await db.query(
        `DELETE FROM lti_login_states
          WHERE created_at < now() - make_interval(secs => LEAST($1::float8, $2::float8))
            AND created_at < now() - make_interval(secs => CASE WHEN consumed_at IS NULL THEN $1::float8 ELSE $2::float8 END)`,
        [pendingSeconds, consumedSeconds],
      );
      return result.rowCount;
    },
  };
}
