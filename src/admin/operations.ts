import type { Queryable } from '../db/types.js';
import { isUuid } from '../values.js';
import { DEEP_LINK_PLACEHOLDER_PREFIX } from '../exams/store.js';
import { launchLogEntryOf, type LaunchLogColumns } from '../launches/log.js';

/** Read-only queries behind the console's operations pages: launch log search, courses and exams. */
export const LAUNCH_OUTCOMES = ['redirected', 'shown', 'refused', 'upstream_error'] as const;

export interface LaunchSearch {
  incidentId?: string;
  /** The LMS course (context) id, or part of it. */
  course?: string;
  /** The tool's exam id, or part of the exam's title. */
  exam?: string;
  outcome?: string;
  from?: Date;
  to?: Date;
  limit?: number;
}

export interface LaunchLogRow {
  at: Date;
  issuer: string;
  contextId?: string;
  examId?: string;
  examTitle?: string;
  role: string;
  endpoint?: string;
  outcome: string;
  errorCode?: string;
  incidentId?: string;
  durationMs: number;
}

const like = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export async function searchLaunches(db: Queryable, search: LaunchSearch): Promise<LaunchLogRow[]> {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const add = (sql: (placeholder: string) => string, value: unknown) => {
    params.push(value);
    conditions.push(sql(`$${params.length}`));
  };
  if (search.incidentId) add((p) => `l.incident_id = ${p}`, search.incidentId);
  if (search.course) add((p) => `l.context_id ILIKE ${p}`, like(search.course));
  if (search.exam) {
    if (isUuid(search.exam)) add((p) => `l.exam_id = ${p}::uuid`, search.exam);
    else add((p) => `e.title ILIKE ${p}`, like(search.exam));
  }
  if (search.outcome) add((p) => `l.outcome = ${p}`, search.outcome);
  if (search.from) add((p) => `l.at >= ${p}`, search.from);
  if (search.to) add((p) => `l.at <= ${p}`, search.to);
  params.push(Math.min(Math.max(search.limit ?? 200, 1), 1000));
  const result = await db.query<LaunchLogColumns & { title: string | null }>(
    `SELECT l.at, l.issuer, l.context_id, l.exam_id, e.title, l.role, l.endpoint, l.outcome, l.error_code, l.incident_id, l.duration_ms
       FROM launch_log l LEFT JOIN exams e ON e.id = l.exam_id
      ${conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : ''}
      ORDER BY l.at DESC, l.id DESC LIMIT $${params.length}`,
    params,
  );
  return result.rows.map((row) => ({ ...launchLogEntryOf(row), examTitle: row.title ?? undefined }));
}

export interface CourseWithoutRoster {
  issuer: string;
  clientId: string;
  contextId: string;
  title?: string;
  lastSeen: Date;
}

/** Courses whose launches carry no Names and Roles service: the tool cannot fetch their roster. */
export async function coursesWithoutNamesAndRoles(db: Queryable, limit = 200): Promise<CourseWithoutRoster[]> {
  const result = await db.query<{ issuer: string; client_id: string; context_id: string; title: string | null; last_seen: Date }>(
    'SELECT issuer, client_id, context_id, title, last_seen FROM lti_contexts WHERE memberships_url IS NULL ORDER BY last_seen DESC LIMIT $1',
    [limit],
  );
  return result.rows.map((row) => ({ issuer: row.issuer, clientId: row.client_id, contextId: row.context_id, title: row.title ?? undefined, lastSeen: new Date(row.last_seen) }));
}

export interface ExamOverview {
  id: string;
  issuer: string;
  contextId: string;
  courseTitle?: string;
  title: string;
  status: string;
  configured: boolean;
  updatedAt: Date;
}

/**
 * Every exam across courses, newest change first; `text` matches title, course id or course title. An exam still on
 * its deep-linking placeholder link is left out: the LMS has not added it to a course (its teacher may have left
 * the content picker), and its first launch claims it.
 */
export async function listExams(db: Queryable, filter: { text?: string; limit?: number } = {}): Promise<ExamOverview[]> {
  const params: unknown[] = [`${DEEP_LINK_PLACEHOLDER_PREFIX}%`];
  let where = 'WHERE e.resource_link_id NOT LIKE $1';
  if (filter.text) {
    params.push(like(filter.text));
    where += ' AND (e.title ILIKE $2 OR e.context_id ILIKE $2 OR c.title ILIKE $2)';
  }
  params.push(Math.min(Math.max(filter.limit ?? 500, 1), 2000));
  const result = await db.query<{ id: string; issuer: string; context_id: string; course_title: string | null; title: string; status: string; configured: boolean; updated_at: Date }>(
    `SELECT e.id, e.issuer, e.context_id, c.title AS course_title, e.title, e.status, e.settings IS NOT NULL AS configured, e.updated_at
       FROM exams e
       LEFT JOIN LATERAL (SELECT title FROM lti_contexts c WHERE c.issuer = e.issuer AND c.client_id = e.client_id AND c.context_id = e.context_id ORDER BY last_seen DESC LIMIT 1) c ON true
      ${where}
      ORDER BY e.updated_at DESC LIMIT $${params.length}`,
    params,
  );
  return result.rows.map((row) => ({
    id: row.id,
    issuer: row.issuer,
    contextId: row.context_id,
    courseTitle: row.course_title ?? undefined,
    title: row.title,
    status: row.status,
    configured: row.configured,
    updatedAt: new Date(row.updated_at),
  }));
}
