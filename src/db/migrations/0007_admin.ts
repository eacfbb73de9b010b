import type { Queryable } from '../types.js';

/**
 * The admin console's data: who changed what (audit log, written by the console and the CLI), console
 * sessions, launches refused for an unknown client id or deployment of a known issuer, and the LMS roles
 * each platform has sent (to choose proctor roles from).
 */
export async function up(db: Queryable): Promise<void> {
  await db.query(`
    CREATE TABLE admin_audit_log (
      id             bigserial PRIMARY KEY,
      at             timestamptz NOT NULL DEFAULT now(),
      actor          text NOT NULL,
      source         text NOT NULL,
      remote_address text,
      action         text NOT NULL,
      target         text,
      changes        jsonb NOT NULL DEFAULT '[]'::jsonb
    )`);
  await db.query('CREATE INDEX admin_audit_log_at ON admin_audit_log (at DESC, id DESC)');
  await db.query(`
    CREATE TABLE admin_sessions (
      id_hash        text PRIMARY KEY,
      created_at     timestamptz NOT NULL DEFAULT now(),
      last_seen_at   timestamptz NOT NULL DEFAULT now(),
      remote_address text
    )`);
  await db.query(`
    CREATE TABLE lti_refused_registrations (
      issuer         text NOT NULL,
      client_id      text NOT NULL,
      deployment_id  text NOT NULL DEFAULT '',
      reason         text NOT NULL,
      first_at       timestamptz NOT NULL DEFAULT now(),
      last_at        timestamptz NOT NULL DEFAULT now(),
      attempts       integer NOT NULL DEFAULT 1,
      incident_id    text,
      PRIMARY KEY (issuer, client_id, deployment_id)
    )`);
  await db.query(`
    CREATE TABLE lti_platform_activity (
      issuer         text NOT NULL,
      client_id      text NOT NULL,
      role           text NOT NULL,
      first_at       timestamptz NOT NULL DEFAULT now(),
      last_at        timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (issuer, client_id, role)
    )`);
}
