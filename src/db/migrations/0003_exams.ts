import type { Queryable } from '../types.js';

/** Proctored exams (one per LTI resource link), their attempts, and the record of every launch. */
export async function up(db: Queryable): Promise<void> {
  await db.query(`
    CREATE TABLE exams (
      id                uuid PRIMARY KEY,
      issuer            text NOT NULL,
      client_id         text NOT NULL,
      deployment_id     text NOT NULL,
      context_id        text NOT NULL,
      resource_link_id  text NOT NULL,
      title             text NOT NULL,
      settings          jsonb,
      status            text NOT NULL DEFAULT 'open',
      created_at        timestamptz NOT NULL DEFAULT now(),
      updated_at        timestamptz NOT NULL DEFAULT now(),
      UNIQUE (issuer, client_id, deployment_id, context_id, resource_link_id)
    )`);
  await db.query(`
    CREATE TABLE attempts (
      id           uuid PRIMARY KEY,
      exam_id      uuid NOT NULL REFERENCES exams(id) ON DELETE CASCADE,
      user_id      text NOT NULL,
      status       text NOT NULL DEFAULT 'started',
      is_test      boolean NOT NULL DEFAULT false,
      return_url   text,
      started_at   timestamptz NOT NULL DEFAULT now(),
      ended_at     timestamptz
    )`);
  await db.query('CREATE INDEX attempts_exam_user ON attempts (exam_id, user_id, started_at DESC)');
  await db.query(
    "CREATE UNIQUE INDEX attempts_one_open_per_user ON attempts (exam_id, user_id) WHERE status = 'started'",
  );
  await db.query(`
    CREATE TABLE launch_log (
      id            bigserial PRIMARY KEY,
      at            timestamptz NOT NULL DEFAULT now(),
      issuer        text NOT NULL,
      context_id    text,
      exam_id       uuid,
      user_id       text NOT NULL,
      role          text NOT NULL,
      endpoint      text,
      outcome       text NOT NULL,
      error_code    text,
      incident_id   text,
      duration_ms   integer NOT NULL
    )`);
  await db.query('CREATE INDEX launch_log_exam ON launch_log (exam_id, at DESC)');
}
