import type { Queryable } from '../types.js';

/**
 * LTI Proctoring Services: an attempt started by a platform's `LtiStartProctoring` carries the platform's attempt
 * number (one attempt per exam, user and number) and the error the platform's `LtiEndAssessment` reported; a
 * hand-off holds what the tool's `LtiStartAssessment` returns to the platform, bound to the browser of the attempt
 * (a hash of a cookie's secret), used once and until it expires.
 */
export async function up(db: Queryable): Promise<void> {
  await db.query('ALTER TABLE attempts ADD COLUMN lti_attempt_number integer');
  await db.query('ALTER TABLE attempts ADD COLUMN platform_error text');
  await db.query('CREATE UNIQUE INDEX attempts_lti_attempt_number ON attempts (exam_id, user_id, lti_attempt_number) WHERE lti_attempt_number IS NOT NULL');
  await db.query(`
    CREATE TABLE assessment_handoffs (
      id                    uuid PRIMARY KEY,
      attempt_id            uuid NOT NULL REFERENCES attempts(id) ON DELETE CASCADE,
      issuer                text NOT NULL,
      client_id             text NOT NULL,
      deployment_id         text NOT NULL,
      resource_link         jsonb NOT NULL,
      start_assessment_url  text NOT NULL,
      session_data          text NOT NULL,
      attempt_number        integer NOT NULL,
      end_assessment_return boolean NOT NULL,
      browser_hash          text NOT NULL,
      created_at            timestamptz NOT NULL DEFAULT now(),
      expires_at            timestamptz NOT NULL,
      used_at               timestamptz
    )`);
  await db.query('CREATE INDEX assessment_handoffs_expires_at ON assessment_handoffs (expires_at)');
  await db.query('CREATE INDEX assessment_handoffs_attempt ON assessment_handoffs (attempt_id)');
}
