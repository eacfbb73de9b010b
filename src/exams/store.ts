import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/types.js';

/** Which LTI resource link an exam belongs to: stable across launches and roles. */
export interface ExamKey {
  issuer: string;
  clientId: string;
  deploymentId: string;
  contextId: string;
  resourceLinkId: string;
}

/**
 * Resource link ids the tool gives an exam created by deep linking, before the LMS has launched the new
 * link: the first launch carrying the exam's id (custom parameter proctor_exam_id) claims it.
 */
export const DEEP_LINK_PLACEHOLDER_PREFIX = 'deep-link:';

export type ExamStatus = 'open' | 'closed';

/** An exam's proctoring settings, in the Launch API's own field names (validated by the contract). */
export type ExamSettings = Record<string, unknown>;

export interface Exam extends ExamKey {
  id: string;
  title: string;
  settings: ExamSettings | null;
  status: ExamStatus;
  createdAt: Date;
  updatedAt: Date;
}

interface ExamRow {
  id: string;
  issuer: string;
  client_id: string;
  deployment_id: string;
  context_id: string;
  resource_link_id: string;
  title: string;
  settings: ExamSettings | null;
  status: ExamStatus;
  created_at: Date;
  updated_at: Date;
}

const toExam = (row: ExamRow): Exam => ({
  id: row.id,
  issuer: row.issuer,
  clientId: row.client_id,
  deploymentId: row.deployment_id,
  contextId: row.context_id,
  resourceLinkId: row.resource_link_id,
  title: row.title,
  settings: row.settings,
  status: row.status,
  createdAt: new Date(row.created_at),
  updatedAt: new Date(row.updated_at),
});

export interface ExamStore {
  find(key: ExamKey): Promise<Exam | undefined>;
  get(id: string): Promise<Exam | undefined>;
  /** The exam of this resource link, created (unconfigured) on first sight; the title follows the LMS. */
  ensure(key: ExamKey, title: string): Promise<Exam>;
  saveSettings(id: string, settings: ExamSettings): Promise<void>;
  setStatus(id: string, status: ExamStatus): Promise<void>;
  /** The exams linked in one course, by title; exams still waiting for their deep-linked link are left out. */
  listByContext(issuer: string, clientId: string, deploymentId: string, contextId: string): Promise<Exam[]>;
  /** Every exam, optionally of one issuer and/or context id, in key order (export). */
  listAll(filter?: { issuer?: string; contextId?: string }): Promise<Exam[]>;
  /**
   * Creates or replaces the exam of this key with the given title, settings and status (import). A new
   * exam takes `id` when given and still free, so exported ids (deep-link custom parameters) survive.
   */
  upsert(input: ExamKey & { id?: string; title: string; settings: ExamSettings | null; status: ExamStatus }): Promise<Exam>;
  /** Saves settings only on an exam that has none yet; false when it already had some (course copy). */
  saveSettingsIfUnset(id: string, settings: ExamSettings): Promise<boolean>;
  /**
   * Moves an exam from a placeholder resource link id to the real one the LMS assigned (deep linking);
   * undefined when it is no longer on the placeholder or the key is taken.
   */
  claimResourceLink(id: string, placeholderResourceLinkId: string, resourceLinkId: string, title: string): Promise<Exam | undefined>;
}

export function createExamStore(db: Queryable): ExamStore {
  const keyParams = (key: ExamKey) => [key.issuer, key.clientId, key.deploymentId, key.contextId, key.resourceLinkId];
  const keyWhere = 'issuer = $1 AND client_id = $2 AND deployment_id = $3 AND context_id = $4 AND resource_link_id = $5';
  return {
    async find(key) {
      const result = await db.query<ExamRow>(`SELECT * FROM exams WHERE ${keyWhere}`, keyParams(key));
      return result.rows[0] ? toExam(result.rows[0]) : undefined;
    },
    async get(id) {
      const result = await db.query<ExamRow>('SELECT * FROM exams WHERE id = $1', [id]);
      return result.rows[0] ? toExam(result.rows[0]) : undefined;
    },
    async ensure(key, title) {
      const result = await db.query<ExamRow>(
        `INSERT INTO exams (id, issuer, client_id, deployment_id, context_id, resource_link_id, title)
         VALUES ($6, $1, $2, $3, $4, $5, $7)
         ON CONFLICT (issuer, client_id, deployment_id, context_id, resource_link_id)
           DO UPDATE SET title = EXCLUDED.title, updated_at = CASE WHEN exams.title = EXCLUDED.title THEN exams.updated_at ELSE now() END
         RETURNING *`,
        [...keyParams(key), randomUUID(), title.slice(0, 255)],
      );
      const row = result.rows[0];
      if (!row) throw new Error('exam upsert returned nothing');
      return toExam(row);
    },
    async saveSettings(id, settings) {
      await db.query('UPDATE exams SET settings = $2::jsonb, updated_at = now() WHERE id = $1', [id, JSON.stringify(settings)]);
    },
    async setStatus(id, status) {
      await db.query('UPDATE exams SET status = $2, updated_at = now() WHERE id = $1', [id, status]);
    },
    async listByContext(issuer, clientId, deploymentId, contextId) {
      // Exams still on their deep-linking placeholder have no link in the course yet: not listed.
      const result = await db.query<ExamRow>(
        `SELECT * FROM exams WHERE issuer = $1 AND client_id = $2 AND deployment_id = $3 AND context_id = $4
           AND left(resource_link_id, length($5)) <> $5 ORDER BY title, created_at`,
        [issuer, clientId, deploymentId, contextId, DEEP_LINK_PLACEHOLDER_PREFIX],
      );
      return result.rows.map(toExam);
    },
    async listAll(filter = {}) {
      const result = await db.query<ExamRow>(
        `SELECT * FROM exams WHERE ($1::text IS NULL OR issuer = $1) AND ($2::text IS NULL OR context_id = $2)
         ORDER BY issuer, client_id, deployment_id, context_id, resource_link_id`,
        [filter.issuer ?? null, filter.contextId ?? null],
      );
      return result.rows.map(toExam);
    },
    async upsert(input) {
      const settings = input.settings === null ? null : JSON.stringify(input.settings);
      const existingId = await db.query<{ id: string }>('SELECT id FROM exams WHERE id = $1', [input.id ?? randomUUID()]);
      const id = input.id && existingId.rows.length === 0 ? input.id : randomUUID();
      const result = await db.query<ExamRow>(
        `INSERT INTO exams (id, issuer, client_id, deployment_id, context_id, resource_link_id, title, settings, status)
         VALUES ($6, $1, $2, $3, $4, $5, $7, $8::jsonb, $9)
         ON CONFLICT (issuer, client_id, deployment_id, context_id, resource_link_id)
           DO UPDATE SET title = EXCLUDED.title, settings = EXCLUDED.settings, status = EXCLUDED.status, updated_at = now()
         RETURNING *`,
        [...keyParams(input), id, input.title.slice(0, 255), settings, input.status],
      );
      const row = result.rows[0];
      if (!row) throw new Error('exam upsert returned nothing');
      return toExam(row);
    },
    async saveSettingsIfUnset(id, settings) {
      const result = await db.query('UPDATE exams SET settings = $2::jsonb, updated_at = now() WHERE id = $1 AND settings IS NULL', [id, JSON.stringify(settings)]);
      return result.rowCount > 0;
    },
    async claimResourceLink(id, placeholderResourceLinkId, resourceLinkId, title) {
      const result = await db.query<ExamRow>(
        `UPDATE exams SET resource_link_id = $3, title = $4, updated_at = now()
         WHERE id = $1 AND resource_link_id = $2
           AND NOT EXISTS (SELECT 1 FROM exams other WHERE other.issuer = exams.issuer AND other.client_id = exams.client_id
             AND other.deployment_id = exams.deployment_id AND other.context_id = exams.context_id AND other.resource_link_id = $3)
         RETURNING *`,
        [id, placeholderResourceLinkId, resourceLinkId, title.slice(0, 255)],
      );
      return result.rows[0] ? toExam(result.rows[0]) : undefined;
    },
  };
}
