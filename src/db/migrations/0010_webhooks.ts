import type { Queryable } from '../types.js';

/**
 * Webhook subscriptions of the tool's receiver (one row per subscription, the id being the unguessable
 * part of its URL) and the suspicion-calculation deliveries they received, each stored once.
 */
export async function up(db: Queryable): Promise<void> {
  await db.query(`
    CREATE TABLE webhook_subscriptions (
      id               text PRIMARY KEY,
      account_ref      text NOT NULL,
      upstream_id      text,
      version          text NOT NULL,
      receiver_url     text NOT NULL,
      key_sha256       text NOT NULL,
      created_at       timestamptz NOT NULL DEFAULT now(),
      removed_at       timestamptz,
      failures         integer NOT NULL DEFAULT 0,
      last_failure_at  timestamptz,
      last_failure     text
    )`);
  await db.query('CREATE INDEX webhook_subscriptions_account ON webhook_subscriptions (account_ref, created_at)');
  await db.query(`
    CREATE TABLE webhook_deliveries (
      id                      uuid PRIMARY KEY,
      subscription_id         text NOT NULL REFERENCES webhook_subscriptions(id) ON DELETE CASCADE,
      data_sha256             text NOT NULL,
      received_at             timestamptz NOT NULL DEFAULT now(),
      verified_by             text NOT NULL,
      webhook_type            text,
      nonce                   text,
      version                 text NOT NULL,
      data_raw                text NOT NULL,
      data                    jsonb,
      external_id             text,
      attempt_ref             text,
      user_ref                text,
      suspicion               double precision,
      flags                   jsonb NOT NULL DEFAULT '{}'::jsonb,
      submission_code         double precision,
      submission_message      text,
      submission_description  text,
      submitted_at            timestamptz,
      problems                jsonb NOT NULL DEFAULT '[]'::jsonb,
      attempt_id              uuid REFERENCES attempts(id) ON DELETE SET NULL,
      exam_id                 uuid REFERENCES exams(id) ON DELETE SET NULL,
      matched_by              text,
      UNIQUE (subscription_id, data_sha256)
    )`);
  await db.query('CREATE INDEX webhook_deliveries_attempt ON webhook_deliveries (attempt_id, received_at DESC)');
  await db.query('CREATE INDEX webhook_deliveries_exam ON webhook_deliveries (exam_id)');
  await db.query('CREATE INDEX webhook_deliveries_unmatched ON webhook_deliveries (received_at DESC) WHERE attempt_id IS NULL');
  await db.query('CREATE INDEX webhook_deliveries_subscription ON webhook_deliveries (subscription_id, received_at DESC)');
}
