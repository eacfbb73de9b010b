import type { Queryable } from '../../db/types.js';
import type { PlatformSummary } from '../provider.js';

/**
 * Whether a platform (issuer + client id) is registered, read straight from ltijs's `platform` documents
 * (kept in clear, see ltijs-store.ts) without starting ltijs: for commands that only need to check a name.
 */
export async function isRegisteredPlatform(db: Queryable, issuer: string, clientId: string): Promise<boolean> {
  const result = await db.query(
    "SELECT 1 FROM ltijs_documents WHERE collection = 'platform' AND doc->>'platformUrl' = $1 AND doc->>'clientId' = $2",
    [issuer, clientId],
  );
  return result.rowCount > 0;
}

/** Every registered platform's issuer and client id, from ltijs's `platform` documents. */
export async function registeredPlatforms(db: Queryable): Promise<Array<{ issuer: string; clientId: string }>> {
  const { rows } = await db.query<{ issuer: string; client_id: string }>(
    "SELECT doc->>'platformUrl' AS issuer, doc->>'clientId' AS client_id FROM ltijs_documents WHERE collection = 'platform' ORDER BY id",
  );
  return rows.map((row) => ({ issuer: row.issuer, clientId: row.client_id }));
}

interface PlatformSummaryRow {
  issuer: string;
  client_id: string;
  name: string | null;
  auth_url: string | null;
  token_url: string | null;
  key_method: string | null;
  key: string | null;
  inactive: boolean;
  deployment_ids: string[] | null;
}

/**
 * What `lti.platforms.list()` answers, read without starting ltijs: the registration fields of the `platform`
 * documents (in clear), their `platformStatus` and the deployment ids. For commands that only show platforms.
 */
export async function platformSummaries(db: Queryable): Promise<PlatformSummary[]> {
  const { rows } = await db.query<PlatformSummaryRow>(
    `SELECT p.doc->>'platformUrl' AS issuer, p.doc->>'clientId' AS client_id, p.doc->>'platformName' AS name,
            p.doc->>'authEndpoint' AS auth_url, p.doc->>'accesstokenEndpoint' AS token_url,
            p.doc->'authConfig'->>'method' AS key_method, p.doc->'authConfig'->>'key' AS key,
            coalesce((s.doc->>'active')::boolean = false, false) AS inactive,
            (SELECT array_agg(d.deployment_id ORDER BY d.created_at, d.deployment_id) FROM lti_deployments d
              WHERE d.issuer = p.doc->>'platformUrl' AND d.client_id = p.doc->>'clientId') AS deployment_ids
       FROM ltijs_documents p
       LEFT JOIN ltijs_documents s ON s.collection = 'platformStatus' AND s.doc->>'id' = p.doc->>'kid'
      WHERE p.collection = 'platform'
      ORDER BY p.id`,
  );
  return rows.map((row) => ({
    issuer: row.issuer,
    clientId: row.client_id,
    name: row.name ?? row.issuer,
    active: !row.inactive,
    authUrl: row.auth_url ?? '',
    tokenUrl: row.token_url ?? '',
    keyMethod: row.key_method ?? '',
    ...(row.key_method === 'JWK_SET' && row.key ? { jwksUrl: row.key } : {}),
    deploymentIds: row.deployment_ids ?? [],
  }));
}
