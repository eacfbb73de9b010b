import type { Queryable } from '../db/types.js';

/** The deployment ids an LMS has told us about (CLI, dynamic registration); launches from others are refused. */
export interface DeploymentStore {
  add(issuer: string, clientId: string, deploymentId: string): Promise<void>;
  list(issuer: string, clientId: string): Promise<string[]>;
  has(issuer: string, clientId: string, deploymentId: string): Promise<boolean>;
  removeAll(issuer: string, clientId: string): Promise<void>;
}

export function createDeploymentStore(db: Queryable): DeploymentStore {
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
      const result = await db.query(
        'SELECT 1 FROM lti_deployments WHERE issuer = $1 AND client_id = $2 AND deployment_id = $3',
        [issuer, clientId, deploymentId],
      );
      return result.rowCount > 0;
    },
    async removeAll(issuer, clientId) {
      await db.query('DELETE FROM lti_deployments WHERE issuer = $1 AND client_id = $2', [issuer, clientId]);
    },
  };
}
