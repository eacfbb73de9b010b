import type { Queryable } from '../types.js';

/** Tables of the tool's own LTI hardening: login state/nonce binding, known deployments, registration links. */
export async function up(db: Queryable): Promise<void> {
  await db.query(`
    CREATE TABLE lti_login_states (
      state        text PRIMARY KEY,
      nonce        text NOT NULL,
      issuer       text NOT NULL,
      client_id    text,
      created_at   timestamptz NOT NULL DEFAULT now(),
      consumed_at  timestamptz,
      claims       jsonb
    )`);
  await db.query('CREATE INDEX lti_login_states_created_at ON lti_login_states (created_at)');
  await db.query(`
    CREATE TABLE lti_deployments (
      issuer         text NOT NULL,
      client_id      text NOT NULL,
      deployment_id  text NOT NULL,
      created_at     timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (issuer, client_id, deployment_id)
    )`);
  await db.query(`
    CREATE TABLE registration_links (
      token_hash  text PRIMARY KEY,
      created_at  timestamptz NOT NULL DEFAULT now(),
      expires_at  timestamptz NOT NULL,
      used_at     timestamptz,
      issuer      text,
      client_id   text
    )`);
  await db.query(`
    CREATE TABLE app_secrets (
      name        text PRIMARY KEY,
      value       text NOT NULL,
      created_at  timestamptz NOT NULL DEFAULT now()
    )`);
}
