import { createAuditLog, type AuditChange } from '../admin/audit.js';
import type { Queryable } from '../db/types.js';
import { actor } from './io.js';

export interface CliChange {
  /** A stable dotted name: 'platform.add', 'account.update', … */
  action: string;
  target?: string;
  /** Old → new per field; never a secret's value. */
  changes?: AuditChange[];
}

/** Writes a CLI change to the administrators' audit log: who (the OS user) and where from (the host). */
export async function recordChange(db: Queryable, change: CliChange): Promise<void> {
  const who = actor();
  await createAuditLog(db).record({ actor: who.user, source: 'cli', remoteAddress: who.host, ...change });
}
