import type { Queryable } from '../types.js';

/** Per-platform (institution) settings an LMS administrator sets: branding, allowlist, proctor roles, defaults. */
export async function up(db: Queryable): Promise<void> {
  await db.query(`
    CREATE TABLE institution_settings (
      issuer        text NOT NULL,
      client_id     text NOT NULL,
      platform_key  text NOT NULL UNIQUE,
      settings      jsonb NOT NULL,
      updated_at    timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (issuer, client_id)
    )`);
}
