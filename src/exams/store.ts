import { randomUUID } from 'node:crypto';
import { invalidateReadCaches, readCache } from '../db/read-cache.js';
import type { Queryable } from '../db/types.js';
import type { Violation } from '../proctoring/contract.js';
import { isRecord } from '../values.js';
import type { AccommodationOverride } from './accommodations/override.js';
import { accommodationOf } from './accommodations/store.js';
import { checkedDocument, readSettingsDocument, type ExamSettingsDocument } from './settings/document.js';
import { toolSettingsFromColumns, toolSettingsUpdate, type ToolSettingValues } from './tool-settings/registry.js';

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

/** Where a launch happened: the platform, deployment and course (LTI context). */
export interface LaunchCourse {
  issuer: string;
  clientId: string;
  deploymentId: string;
  context?: { id: string };
}

/** An exam may be used only from its own course: same platform, deployment and context. */
export function isExamOfCourse(exam: ExamKey, launch: LaunchCourse): boolean {
  return exam.issuer === launch.issuer && exam.clientId === launch.clientId && exam.deploymentId === launch.deploymentId && exam.contextId === launch.context?.id;
}

export type ExamStatus = 'open' | 'closed';

/** When students may start an exam, and whether it is a practice exam. */
export type ExamAvailability = Pick<ToolSettingValues, 'opensAt' | 'closesAt' | 'timeZone' | 'practice'>;

/** A stored settings document that no longer passes (written under older rules): what is wrong, and its values for the form. */
export interface InvalidSettings {
  stored: Record<string, unknown>;
  violations: Violation[];
}

/** An exam: its link, its Launch API settings document, and its tool-side settings (tool-settings/rows.ts). */
export interface Exam extends ExamKey, ToolSettingValues {
  id: string;
  title: string;
  /** The parsed settings document (brought to the current version); null when the exam is not set up, or its document does not pass. */
  settings: ExamSettingsDocument | null;
  /** Set when a document is stored but does not pass: the exam cannot launch until an instructor saves valid settings. */
  invalidSettings?: InvalidSettings;
  status: ExamStatus;
  createdAt: Date;
  updatedAt: Date;
}

/** An exam has settings (valid, or stored under older rules and needing attention). */
export const isSetUp = (exam: Pick<Exam, 'settings' | 'invalidSettings'>): boolean => exam.settings !== null || exam.invalidSettings !== undefined;

interface ExamRow {
  id: string;
  issuer: string;
  client_id: string;
  deployment_id: string;
  context_id: string;
  resource_link_id: string;
  title: string;
  settings: unknown;
  status: ExamStatus;
  created_at: Date;
  updated_at: Date;
  /** The tool-side settings' columns, read by their rows. */
  [column: string]: unknown;
}

/** The stored document, parsed: settings, or what is wrong with them. */
function settingsOf(stored: unknown): Pick<Exam, 'settings' | 'invalidSettings'> {
  if (stored === null || stored === undefined) return { settings: null };
  const read = readSettingsDocument(stored);
  if (read.ok) return { settings: read.value };
  return { settings: null, invalidSettings: { stored: isRecord(stored) ? stored : {}, violations: read.violations } };
}

/** The JSON of a document, after checking it passes: the store writes nothing else. */
const documentJson = (settings: ExamSettingsDocument): string => JSON.stringify(checkedDocument(settings));

const toExam = (row: ExamRow): Exam => ({
  id: row.id,
  issuer: row.issuer,
  clientId: row.client_id,
  deploymentId: row.deployment_id,
  contextId: row.context_id,
  resourceLinkId: row.resource_link_id,
  title: row.title,
  ...settingsOf(row.settings),
  status: row.status,
  ...toolSettingsFromColumns(row),
  createdAt: new Date(row.created_at),
  updatedAt: new Date(row.updated_at),
});

export interface ExamStore {
  find(key: ExamKey): Promise<Exam | undefined>;
  /**
   * The exam of this key with one student's accommodation (none: undefined): a student's launch. The exam is
   * shared, read-only, by the launches of the next few seconds; only a student with an accommodation costs a read.
   */
  findForStudent(key: ExamKey, userId: string): Promise<{ exam: Exam; accommodation: AccommodationOverride | undefined } | undefined>;
  get(id: string): Promise<Exam | undefined>;
  /** The exam of this resource link, created (unconfigured) on first sight; the title follows the LMS. */
  ensure(key: ExamKey, title: string): Promise<Exam>;
  saveSettings(id: string, settings: ExamSettingsDocument): Promise<void>;
  setStatus(id: string, status: ExamStatus): Promise<void>;
  /** Writes the tool-side settings of every row `values` names a property of (tool-settings/registry.ts). */
  setToolSettings(id: string, values: Partial<ToolSettingValues>): Promise<void>;
  /** Opening and closing instants, their time zone and the practice flag (a closing time must follow the opening). */
  setAvailability(id: string, availability: ExamAvailability): Promise<void>;
  /** Marks (or clears) "check the quiz address" on a copied exam. */
  setQuizAddressCheck(id: string, check: boolean): Promise<void>;
  /** The exams linked in one course, by title; exams still waiting for their deep-linked link are left out. */
  listByContext(issuer: string, clientId: string, deploymentId: string, contextId: string): Promise<Exam[]>;
  /** Every exam, optionally of one issuer and/or context id, in key order (export). */
  listAll(filter?: { issuer?: string; contextId?: string }): Promise<Exam[]>;
  /**
   * Creates or replaces the exam of this key with the given title, settings and status (import). A new
   * exam takes `id` when given and still free, so exported ids (deep-link custom parameters) survive.
   */
  upsert(input: ExamKey & { id?: string; title: string; settings: ExamSettingsDocument | null; status: ExamStatus }): Promise<Exam>;
  /** Saves settings only on an exam that has none yet; false when it already had some (course copy). */
  saveSettingsIfUnset(id: string, settings: ExamSettingsDocument): Promise<boolean>;
  /**
   * Moves an exam from a placeholder resource link id to the real one the LMS assigned (deep linking);
   * undefined when it is no longer on the placeholder or the key is taken.
   */
  claimResourceLink(id: string, placeholderResourceLinkId: string, resourceLinkId: string, title: string): Promise<Exam | undefined>;
  /**
   * Notes that an exam still on its placeholder link was just used (its settings copied into a course copy), at
   * most once a day: retention removes placeholders nothing used for a long time (docs/retention.md).
   */
  notePlaceholderUsed(id: string): Promise<void>;
}

/** What a student's launch reads of an exam, kept a few seconds: the exam and who has an accommodation. */
interface ExamForLaunch {
  exam: Exam;
  accommodated: ReadonlySet<string>;
}

/** Shared by every launch that reads it: nothing may change it. */
function frozen<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value) && !(value instanceof Date)) {
    for (const member of Object.values(value)) frozen(member);
    Object.freeze(value);
  }
  return value;
}

/**
 * Every write of an exam ends with this (an accommodation's, with invalidateReadCaches itself): the exams this
 * process keeps for launches (and its other cached reads) are read again. Other processes hear of the change
 * through its notice.
 */
export function changed<T>(result: T): T {
  invalidateReadCaches();
  return result;
}

export function createExamStore(db: Queryable): ExamStore {
  const keyParams = (key: ExamKey) => [key.issuer, key.clientId, key.deploymentId, key.contextId, key.resourceLinkId];
  const keyWhere = 'issuer = $1 AND client_id = $2 AND deployment_id = $3 AND context_id = $4 AND resource_link_id = $5';
  // A class starting an exam together reads it, parses and checks its settings once, not once per student.
  const launchReads = readCache<ExamForLaunch | undefined>(db, 'exam-for-launch');
  const readForLaunch = async (key: ExamKey): Promise<ExamForLaunch | undefined> => {
    const result = await db.query<ExamRow & { accommodated: string[] }>(
      `SELECT exams.*, ARRAY(SELECT user_id FROM exam_accommodations WHERE exam_accommodations.exam_id = exams.id) AS accommodated
       FROM exams WHERE ${keyWhere}`,
      keyParams(key),
    );
    const row = result.rows[0];
    return row ? { exam: frozen(toExam(row)), accommodated: new Set(row.accommodated) } : undefined;
  };
  async function setToolSettings(id: string, values: Partial<ToolSettingValues>): Promise<void> {
    const { set, params } = toolSettingsUpdate(values, 2);
    if (set.length === 0) return;
    changed(await db.query(`UPDATE exams SET ${set.join(', ')}, updated_at = now() WHERE id = $1`, [id, ...params]));
  }
  return {
    async find(key) {
      const result = await db.query<ExamRow>(`SELECT * FROM exams WHERE ${keyWhere}`, keyParams(key));
      return result.rows[0] ? toExam(result.rows[0]) : undefined;
    },
    async findForStudent(key, userId) {
      const found = await launchReads.get(JSON.stringify(keyParams(key)), () => readForLaunch(key));
      if (!found) return undefined;
      if (!found.accommodated.has(userId)) return { exam: found.exam, accommodation: undefined };
      return { exam: found.exam, accommodation: await accommodationOf(db, found.exam.id, userId) };
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
      return changed(toExam(row));
    },
    async saveSettings(id, settings) {
      changed(await db.query('UPDATE exams SET settings = $2::jsonb, updated_at = now() WHERE id = $1', [id, documentJson(settings)]));
    },
    async setStatus(id, status) {
      changed(await db.query('UPDATE exams SET status = $2, updated_at = now() WHERE id = $1', [id, status]));
    },
    setToolSettings,
    setAvailability: setToolSettings,
    setQuizAddressCheck: (id, check) => setToolSettings(id, { quizAddressCheck: check }),
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
      const settings = input.settings === null ? null : documentJson(input.settings);
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
      return changed(toExam(row));
    },
    async saveSettingsIfUnset(id, settings) {
      const result = await db.query('UPDATE exams SET settings = $2::jsonb, updated_at = now() WHERE id = $1 AND settings IS NULL', [id, documentJson(settings)]);
      return changed(result.rowCount > 0);
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
      return changed(result.rows[0] ? toExam(result.rows[0]) : undefined);
    },
    async notePlaceholderUsed(id) {
      await db.query(`UPDATE exams SET updated_at = now() WHERE id = $1 AND resource_link_id LIKE $2 AND updated_at < now() - interval '1 day'`, [id, `${DEEP_LINK_PLACEHOLDER_PREFIX}%`]);
    },
  };
}
