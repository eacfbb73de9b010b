import { z } from 'zod';
import type { Queryable } from '../db/types.js';

/**
 * The audit log of administrative changes, written by the admin console and the CLI: when, who and from
 * where, what, and each changed field's old and new value. Secrets are never recorded: a field named in
 * `secretFields` of `changesBetween` (or recorded with `secretChange`) shows only that it changed.
 */
/** Where a change was made: the console, the CLI, or the tool's own schedule (retention). */
export type AuditSource = 'console' | 'cli' | 'schedule';

export interface AuditChange {
  field: string;
  old?: string;
  new?: string;
}

const storedChangesSchema = z.array(z.object({ field: z.string(), old: z.string().optional(), new: z.string().optional() }));

export interface AuditEntryInput {
  /** Who: 'admin' for the console's single administrator, the OS user for the CLI. */
  actor: string;
  source: AuditSource;
  /** Where from: the client address (console) or host name (CLI). */
  remoteAddress?: string;
  /** What, as a stable dotted name: 'platform.add', 'institution.update', 'deployment.remove', … */
  action: string;
  /** What it was done to, e.g. 'https://canvas.example.edu (client 1000…)'. */
  target?: string;
  changes?: AuditChange[];
}

export interface AuditEntry extends Required<Pick<AuditEntryInput, 'actor' | 'source' | 'action'>> {
  id: string;
  at: Date;
  remoteAddress?: string;
  target?: string;
  changes: AuditChange[];
}

export interface AuditQuery {
  action?: string;
  /** Matches the target or any changed value, case-insensitively. */
  text?: string;
  before?: Date;
  limit?: number;
}

export interface AuditLog {
  record(entry: AuditEntryInput): Promise<void>;
  list(query?: AuditQuery): Promise<AuditEntry[]>;
}

/** Shown instead of a secret's value. */
export const SECRET_PLACEHOLDER = '(secret changed)';
const MAX_VALUE_LENGTH = 500;

/** A change to a secret field: recorded without either value. */
export function secretChange(field: string): AuditChange {
  return { field, new: SECRET_PLACEHOLDER };
}

function display(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > MAX_VALUE_LENGTH ? `${text.slice(0, MAX_VALUE_LENGTH)}…` : text;
}

/**
 * The fields that differ between two flat records (nested values compared as JSON), old → new.
 * Fields in `secretFields` appear as changed without their values.
 */
export function changesBetween(
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
  options: { secretFields?: readonly string[] } = {},
): AuditChange[] {
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const changes: AuditChange[] = [];
  for (const field of fields) {
    const oldText = display(before[field]);
    const newText = display(after[field]);
    if (oldText === newText) continue;
    changes.push(options.secretFields?.includes(field) ? secretChange(field) : { field, old: oldText, new: newText });
  }
  return changes;
}

interface Row {
  id: string;
  at: Date;
  actor: string;
  source: AuditSource;
  remote_address: string | null;
  action: string;
  target: string | null;
  changes: AuditChange[] | string;
}

export function createAuditLog(db: Queryable): AuditLog {
  return {
    async record(entry) {
      await db.query(
        `INSERT INTO admin_audit_log (actor, source, remote_address, action, target, changes) VALUES ($1, $2, $3, $4, $5, $6::jsonb)`,
        [entry.actor, entry.source, entry.remoteAddress ?? null, entry.action, entry.target ?? null, JSON.stringify(entry.changes ?? [])],
      );
    },
    async list(query = {}) {
      const conditions: string[] = [];
      const params: unknown[] = [];
      if (query.action) {
        params.push(query.action);
        conditions.push(`action = $${params.length}`);
      }
      if (query.text) {
        params.push(`%${query.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
        conditions.push(`(target ILIKE $${params.length} OR changes::text ILIKE $${params.length} OR action ILIKE $${params.length})`);
      }
      if (query.before) {
        params.push(query.before);
        conditions.push(`at < $${params.length}`);
      }
      params.push(Math.min(Math.max(query.limit ?? 100, 1), 500));
      const result = await db.query<Row>(
        `SELECT id::text AS id, at, actor, source, remote_address, action, target, changes FROM admin_audit_log
         ${conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : ''} ORDER BY at DESC, id DESC LIMIT $${params.length}`,
        params,
      );
      return result.rows.map((row) => ({
        id: row.id,
        at: new Date(row.at),
        actor: row.actor,
        source: row.source,
        remoteAddress: row.remote_address ?? undefined,
        action: row.action,
        target: row.target ?? undefined,
        changes: storedChangesSchema.parse(typeof row.changes === 'string' ? JSON.parse(row.changes) : row.changes),
      }));
    },
  };
}
