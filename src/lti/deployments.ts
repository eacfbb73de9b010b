import { readGeneration } from '../db/read-cache.js';
import type { Queryable } from '../db/types.js';

/** The deployment ids an LMS has told us about (CLI, dynamic registration); launches from others are refused. */
export interface DeploymentStore {
  add(issuer: string, clientId: string, deploymentId: string): Promise<void>;
  list(issuer: string, clientId: string): Promise<string[]>;
  has(issuer: string, clientId: string, deploymentId: string): Promise<boolean>;
  removeAll(issuer: string, clientId: string): Promise<void>;
  /** Removes one deployment id; false when it was not registered. */
  remove(issuer: string, clientId: string, deploymentId: string): Promise<boolean>;
}

/**
 * How long a known deployment is remembered by this process: every launch checks its deployment. Adding one
 * applies at once (unknown ones are never remembered); removing one through this store at once, through
 * another process (a replica, the CLI on PostgreSQL) when its change notice arrives (db/change-notices.ts), or
 * within this time.
 */
export const KNOWN_DEPLOYMENT_SECONDS = 5;

export function createDeploymentStore(db: Queryable, options: { knownSeconds?: number } = {}): DeploymentStore {
  const knownMs = (options.knownSeconds ?? KNOWN_DEPLOYMENT_SECONDS) * 1000;
  /** `issuer client deployment` (JSON) → until when, and in which read generation, it is known without asking. */
  const known = new Map<string, { until: number; generation: number }>();
  const keyOf = (issuer: string, clientId: string, deploymentId: string) => JSON.stringify([issuer, clientId, deploymentId]);
  return {
    async add(issuer, clientId, deploymentId) {
      await db.query(
        'INSERT INTO lti_deployments (issuer, client_id, deployment_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
        [issuer, clientId, deploymentId],
      );
    },
    async list(issuer, clientId) {
      const result = await db.query<{ deployment_id: string }>(
        'SELECT deployment_id FROM lti_deployments WHERE issuer = $1 AND client_id = $2 ORDER BY created_at, deployment_id',
        [issuer, clientId],
      );
      return result.rows.map((row) => row.deployment_id);
    },
    async has(issuer, clientId, deploymentId) {
      const key = keyOf(issuer, clientId, deploymentId);
      const now = Date.now();
      const generation = readGeneration();
      const hit = known.get(key);
      if (hit && hit.until > now && hit.generation === generation) return true;
      const result = await db.query(
        'SELECT 1 FROM lti_deployments WHERE issuer = $1 AND client_id = $2 AND deployment_id = $3',
        [issuer, clientId, deploymentId],
      );
      if (result.rowCount === 0) return false;
      if (knownMs > 0) {
        if (known.size >= 10_000) known.clear();
        known.set(key, { until: now + knownMs, generation });
      }
      return true;
    },
    async remove(issuer, clientId, deploymentId) {
      known.clear();
      const result = await db.query('DELETE FROM lti_deployments WHERE issuer = $1 AND client_id = $2 AND deployment_id = $3', [issuer, clientId, deploymentId]);
      // Again: a check that read the row while it was being deleted may have remembered it.
      known.clear();
      return result.rowCount > 0;
    },
    async removeAll(issuer, clientId) {
      known.clear();
      await db.query('DELETE FROM lti_deployments WHERE issuer = $1 AND client_id = $2', [issuer, clientId]);
      known.clear();
    },
  };
}
