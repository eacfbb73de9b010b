import type { Queryable } from '../types.js';

/**
 * The hosted endpoints' data: which LTI context (course) a derived section_id names, recorded at every
 * launch so a roster link (which carries only the section_id) can be served without a session; and the
 * institution logo of each platform.
 */
export async function up(db: Queryable): Promise<void> {
  await db.query(`
    CREATE TABLE lti_contexts (
      section_id        text PRIMARY KEY,
      issuer            text NOT NULL,
      client_id         text NOT NULL,
      deployment_id     text NOT NULL,
      context_id        text NOT NULL,
      title             text,
      label             text,
      memberships_url   text,
      first_seen        timestamptz NOT NULL DEFAULT now(),
      last_seen         timestamptz NOT NULL DEFAULT now(),
      roster_checked_at timestamptz,
      roster_members    integer,
      roster_unnamed    integer,
      roster_error      text,
      UNIQUE (issuer, client_id, deployment_id, context_id)
    )`);
  await db.query(`
    CREATE TABLE institution_logos (
      platform_key  text PRIMARY KEY,
      issuer        text NOT NULL,
      client_id     text NOT NULL,
      content_type  text NOT NULL,
      data_base64   text NOT NULL,
      etag          text NOT NULL,
      updated_at    timestamptz NOT NULL DEFAULT now()
    )`);
}
