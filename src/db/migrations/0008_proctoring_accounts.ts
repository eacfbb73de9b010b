import type { Queryable } from '../types.js';

/**
 * Proctoring accounts other than the environment's default one (PROCTORING_*), and which platform uses which.
 * Credentials are kept sealed (src/secrets/secret-box.ts); `credential_hint` holds their last four characters.
 */
export async function up(db: Queryable): Promise<void> {
  await db.query(`
    CREATE TABLE proctoring_accounts (
      id                  text PRIMARY KEY,
      name                text NOT NULL,
      region              text NOT NULL,
      base_url            text NOT NULL,
      consumer_key        text,
      credentials_sealed  text NOT NULL,
      credential_hint     text NOT NULL,
      created_at          timestamptz NOT NULL DEFAULT now(),
      updated_at          timestamptz NOT NULL DEFAULT now()
    )`);
  await db.query(`
    CREATE TABLE platform_proctoring_accounts (
      issuer      text NOT NULL,
      client_id   text NOT NULL,
      account_id  text NOT NULL REFERENCES proctoring_accounts (id),
      updated_at  timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (issuer, client_id)
    )`);
  await db.query('CREATE INDEX platform_proctoring_accounts_account ON platform_proctoring_accounts (account_id)');
}
