import type { Queryable } from '../types.js';
import ltijsStore from './0001_ltijs_store.js';
import * as lti from './0002_lti.js';
import * as exams from './0003_exams.js';
import * as institution from './0004_institution.js';
import * as hosted from './0005_hosted.js';
import * as examSettings from './0006_exam_settings.js';

/**
 * One schema change. `up` runs inside the single transaction of `migrate()`, so: one statement per
 * `db.query()` call (PGlite takes one statement at a time), and nothing that refuses to run in a transaction
 * (CREATE INDEX CONCURRENTLY, VACUUM).
 */
export interface Migration {
  /** Recorded in schema_migrations: never rename one that has shipped. */
  name: string;
  up: (db: Queryable) => Promise<void>;
}

/** Every migration, oldest first. Append new ones at the end; never reorder or edit one that has shipped. */
export const migrations: readonly Migration[] = [
  ltijsStore,
  { name: '0002_lti', up: lti.up },
  { name: '0003_exams', up: exams.up },
  { name: '0004_institution', up: institution.up },
  { name: '0005_hosted', up: hosted.up },
  { name: '0006_exam_settings', up: examSettings.up },
];
