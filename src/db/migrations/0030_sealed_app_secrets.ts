import type { Queryable } from '../types.js';

/**
 * Installation secrets (the pseudonym key, the hosted-link key) sealed with ENCRYPTION_KEY and versioned, so
 * that each can be rotated. The old table keeps its plain-text rows until the first start with ENCRYPTION_KEY
 * seals them into the new one and deletes them (db/app-secrets.ts); a version before this one finds no
 * `app_secrets` it can use and refuses to start rather than derive other pseudonyms.
 * `pseudonym_bindings` fixes which pseudonym key version an issuer's ids are derived with.
 *
 * contract: the plain-text `app_secrets` is renamed in the same release that stops reading it, on purpose: an
 * older release still reading it would keep the secrets in plain text, or derive other ids from sealed values.
 * The upgrade notes say that rolling back past this release means restoring the backup.
 */
export async function up(db: Queryable): Promise<void> {
  await db.query('ALTER TABLE app_secrets RENAME TO app_secrets_unsealed');
  await db.query('ALTER TABLE app_secrets_unsealed RENAME CONSTRAINT app_secrets_pkey TO app_secrets_unsealed_pkey');
  await db.query(`
    CREATE TABLE app_secrets (
      name        text NOT NULL,
      version     integer NOT NULL CHECK (version > 0),
      sealed      text NOT NULL,
      created_at  timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (name, version)
    )`);
  await db.query(`
    CREATE TABLE pseudonym_bindings (
      issuer      text PRIMARY KEY,
      version     integer NOT NULL CHECK (version > 0),
      bound_at    timestamptz NOT NULL DEFAULT now()
    )`);
  for (const table of ['app_secrets', 'pseudonym_bindings']) {
    await db.query(`CREATE TRIGGER ${table}_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION proctor_lti_notify_change()`);
  }
}
