import type { RetentionSettings } from '../config.js';
import { countPrunedRows } from '../metrics.js';
import { RETAINED, totalRemoved, type PruneResult, type Retained } from './prune.js';

/** The audit log's action for a prune that removed rows. */
export const PRUNE_ACTION = 'retention.prune';

/** One changed field of an audit entry, as the administrators' audit log stores it. */
export interface PruneChange {
  field: string;
  old?: string;
  new?: string;
}

/** Who pruned: the schedule, or the CLI's user and host. */
export interface Pruner {
  actor: string;
  source: 'schedule' | 'cli';
  remoteAddress?: string;
}

/** The administrators' audit log, as far as a prune writes to it (the console's audit log is handed in). */
export interface PruneAudit {
  record(entry: Pruner & { action: string; target: string; changes: PruneChange[] }): Promise<void>;
}

const TABLE_OF: Record<Retained | 'attemptResults' | 'privacyNotices', string> = {
  launchLog: 'launch_log',
  attempts: 'attempts',
  attemptResults: 'webhook_deliveries (results of those attempts)',
  privacyNotices: 'privacy_notices',
  webhookDeliveries: 'webhook_deliveries',
  auditLog: 'admin_audit_log',
  unclaimedExams: 'exams (unclaimed deep-linking placeholders)',
  courseStaff: 'course_staff',
};

/** The metric's `table` label: the table's own name. */
const METRIC_TABLE_OF: Record<Retained | 'attemptResults' | 'privacyNotices', string> = { ...TABLE_OF, attemptResults: 'webhook_deliveries', unclaimedExams: 'exams' };

/** One change per kind that lost rows: the table, and how many rows older than which day went. */
export function pruneChanges(result: PruneResult): PruneChange[] {
  const changes: PruneChange[] = [];
  for (const kind of [...RETAINED, 'attemptResults', 'privacyNotices'] as const) {
    const count = result.removed[kind];
    const cutoff = result.cutoffs[kind === 'attemptResults' || kind === 'privacyNotices' ? 'attempts' : kind];
    if (count === 0 || !cutoff) continue;
    changes.push({ field: TABLE_OF[kind], old: `${count} rows older than ${cutoff.toISOString()}`, new: 'removed' });
  }
  return changes;
}

/**
 * Counts a prune in the metrics and, when it removed anything, records it in the audit log: a record of what
 * was deleted, by which settings, is kept even of deleting (the audit log's own expired entries included).
 */
export async function recordPrune(audit: PruneAudit, result: PruneResult, settings: RetentionSettings, by: Pruner): Promise<void> {
  for (const kind of [...RETAINED, 'attemptResults', 'privacyNotices'] as const) countPrunedRows(METRIC_TABLE_OF[kind], result.removed[kind]);
  if (totalRemoved(result.removed) === 0) return;
  await audit.record({
    ...by,
    action: PRUNE_ACTION,
    target: `retention (days: launch log ${settings.launchLogDays}, attempts ${settings.attemptDays}, webhook deliveries ${settings.webhookDeliveryDays}, audit log ${settings.auditLogDays}, unclaimed exams ${settings.unclaimedExamDays}, course staff ${settings.courseStaffDays}; 0 = kept)`,
    changes: pruneChanges(result),
  });
}
