import type { Queryable } from '../db/types.js';

/**
 * What launches tell about each platform: when it last launched the tool, and which role URIs it sends
 * (the admin console offers these as proctor roles). Writes are throttled per process: a role already
 * recorded for a platform in the last THROTTLE_MS is not written again, so a class-start burst costs
 * one write per platform and role.
 */
export interface PlatformActivity {
  remember(issuer: string, clientId: string, roles: readonly string[]): Promise<void>;
  /** Last launch per platform (issuer + client id). */
  lastLaunches(): Promise<Map<string, Date>>;
  /** The role URIs a platform has sent, most recent first. */
  seenRoles(issuer: string, clientId: string): Promise<Array<{ role: string; lastAt: Date }>>;
}

/** The row that records a launch itself (every launch, whatever its roles). */
const ANY_LAUNCH = '';
const THROTTLE_MS = 60_000;
const MAX_ROLES_PER_LAUNCH = 30;
const MAX_REMEMBERED = 10_000;

export const platformActivityKey = (issuer: string, clientId: string) => JSON.stringify([issuer, clientId]);

export function createPlatformActivity(db: Queryable, now: () => number = Date.now): PlatformActivity {
  const written = new Map<string, number>();
  return {
    async remember(issuer, clientId, roles) {
      const fresh = [ANY_LAUNCH, ...new Set(roles.slice(0, MAX_ROLES_PER_LAUNCH))].filter((role) => {
        const key = JSON.stringify([issuer, clientId, role]);
        const last = written.get(key);
        if (last !== undefined && now() - last < THROTTLE_MS) return false;
        if (written.size >= MAX_REMEMBERED) written.clear();
        written.set(key, now());
        return role.length <= 300;
      });
      if (fresh.length === 0) return;
      await db.query(
        `INSERT INTO lti_platform_activity (issuer, client_id, role) SELECT $1, $2, unnest($3::text[])
         ON CONFLICT (issuer, client_id, role) DO UPDATE SET last_at = now()`,
        [issuer, clientId, fresh],
      );
    },
    async lastLaunches() {
      const result = await db.query<{ issuer: string; client_id: string; last_at: Date }>(
        'SELECT issuer, client_id, last_at FROM lti_platform_activity WHERE role = $1',
        [ANY_LAUNCH],
      );
      return new Map(result.rows.map((row) => [platformActivityKey(row.issuer, row.client_id), new Date(row.last_at)]));
    },
    async seenRoles(issuer, clientId) {
      const result = await db.query<{ role: string; last_at: Date }>(
        'SELECT role, last_at FROM lti_platform_activity WHERE issuer = $1 AND client_id = $2 AND role <> $3 ORDER BY last_at DESC, role LIMIT 200',
        [issuer, clientId, ANY_LAUNCH],
      );
      return result.rows.map((row) => ({ role: row.role, lastAt: new Date(row.last_at) }));
    },
  };
}
