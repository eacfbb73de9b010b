import type { Queryable } from '../db/types.js';
import { deriveSectionId, type PseudonymSecret } from '../lti/identifiers.js';

/** The LTI context (course) behind a derived section_id, as last seen in a launch. */
export interface LtiContextRecord {
  sectionId: string;
  issuer: string;
  clientId: string;
  deploymentId: string;
  contextId: string;
  title?: string;
  label?: string;
  /** The Names and Roles context_memberships_url; undefined when the LMS offers none for this course. */
  membershipsUrl?: string;
}

/** The outcome of the last roster fetch of a course, for the administrator. */
export interface RosterHealth {
  members: number;
  /** Members the LMS listed without any name: its privacy settings hide names from the tool. */
  unnamed: number;
  error?: string;
}

/** What a launch tells about its context: the fields of LtiLaunch this store reads. */
export interface ContextLaunch {
  issuer: string;
  clientId: string;
  deploymentId: string;
  context?: { id: string; title?: string; label?: string };
  namesRolesUrl?: string;
}

export interface ContextStore {
  /**
   * Records the launch's context under its section_id (nothing when the launch has no context) and
   * returns the section_id. Cheap when nothing changed: the row is rewritten at most hourly.
   */
  remember(launch: ContextLaunch): Promise<string | undefined>;
  find(sectionId: string): Promise<LtiContextRecord | undefined>;
  noteRoster(sectionId: string, health: RosterHealth): Promise<void>;
  /** Courses whose last roster fetch failed or came without names, newest first (for the admin console). */
  rosterProblems(limit?: number): Promise<Array<LtiContextRecord & { roster: RosterHealth; checkedAt: Date }>>;
}

interface Row {
  section_id: string;
  issuer: string;
  client_id: string;
  deployment_id: string;
  context_id: string;
  title: string | null;
  label: string | null;
  memberships_url: string | null;
}

const toRecord = (row: Row): LtiContextRecord => ({
  sectionId: row.section_id,
  issuer: row.issuer,
  clientId: row.client_id,
  deploymentId: row.deployment_id,
  contextId: row.context_id,
  title: row.title ?? undefined,
  label: row.label ?? undefined,
  membershipsUrl: row.memberships_url ?? undefined,
});

/**
 * How long this process trusts that a course it recorded is still recorded as the launch says: a class-start
 * burst of one course then writes its record once, not once per student. Bounded; another process's change of
 * the same row (rare: the LMS renamed the course) reaches it at the latest after this time.
 */
const REMEMBERED_MS = 60_000;
const MAX_REMEMBERED = 10_000;

export function createContextStore(db: Queryable, options: { pseudonymSecret: PseudonymSecret }): ContextStore {
  const remembered = new Map<string, { fingerprint: string; until: number }>();
  return {
    async remember(launch) {
      if (!launch.context) return undefined;
      const sectionId = deriveSectionId(options.pseudonymSecret, launch.issuer, launch.deploymentId, launch.context.id);
      const fingerprint = JSON.stringify([launch.clientId, launch.context.title ?? null, launch.context.label ?? null, launch.namesRolesUrl ?? null]);
      const known = remembered.get(sectionId);
      if (known && known.fingerprint === fingerprint && known.until > Date.now()) return sectionId;
      // A launch without the Names and Roles claim (a deep-linking request, say) keeps the URL already known.
      await db.query(
        `INSERT INTO lti_contexts (section_id, issuer, client_id, deployment_id, context_id, title, label, memberships_url)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (section_id) DO UPDATE SET
           client_id = EXCLUDED.client_id,
           title = COALESCE(EXCLUDED.title, lti_contexts.title),
           label = COALESCE(EXCLUDED.label, lti_contexts.label),
           memberships_url = COALESCE(EXCLUDED.memberships_url, lti_contexts.memberships_url),
           last_seen = now()
         WHERE lti_contexts.client_id IS DISTINCT FROM EXCLUDED.client_id
            OR lti_contexts.title IS DISTINCT FROM COALESCE(EXCLUDED.title, lti_contexts.title)
            OR lti_contexts.label IS DISTINCT FROM COALESCE(EXCLUDED.label, lti_contexts.label)
            OR lti_contexts.memberships_url IS DISTINCT FROM COALESCE(EXCLUDED.memberships_url, lti_contexts.memberships_url)
            OR lti_contexts.last_seen < now() - interval '1 hour'`,
        [
          sectionId,
          launch.issuer,
          launch.clientId,
          launch.deploymentId,
          launch.context.id,
          launch.context.title?.slice(0, 500) ?? null,
          launch.context.label?.slice(0, 200) ?? null,
          launch.namesRolesUrl ?? null,
        ],
      );
      if (remembered.size >= MAX_REMEMBERED) remembered.clear();
      remembered.set(sectionId, { fingerprint, until: Date.now() + REMEMBERED_MS });
      return sectionId;
    },
    async find(sectionId) {
      const result = await db.query<Row>(
        'SELECT section_id, issuer, client_id, deployment_id, context_id, title, label, memberships_url FROM lti_contexts WHERE section_id = $1',
        [sectionId],
      );
      return result.rows[0] ? toRecord(result.rows[0]) : undefined;
    },
    async noteRoster(sectionId, health) {
      await db.query(
        'UPDATE lti_contexts SET roster_checked_at = now(), roster_members = $2, roster_unnamed = $3, roster_error = $4 WHERE section_id = $1',
        [sectionId, health.members, health.unnamed, health.error?.slice(0, 500) ?? null],
      );
    },
    async rosterProblems(limit = 100) {
      const result = await db.query<Row & { roster_members: number | null; roster_unnamed: number | null; roster_error: string | null; roster_checked_at: Date }>(
        `SELECT * FROM lti_contexts
         WHERE roster_checked_at IS NOT NULL AND (roster_error IS NOT NULL OR roster_unnamed > 0)
         ORDER BY roster_checked_at DESC LIMIT $1`,
        [limit],
      );
      return result.rows.map((row) => ({
        ...toRecord(row),
        roster: { members: row.roster_members ?? 0, unnamed: row.roster_unnamed ?? 0, error: row.roster_error ?? undefined },
        checkedAt: new Date(row.roster_checked_at),
      }));
    },
  };
}
