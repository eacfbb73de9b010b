import type { Queryable } from '../types.js';

/**
 * What an administrator still has to do in the LMS after registering the tool (activate it, show it to courses,
 * open it in a new window, …): the items ticked off per platform, whether the checklist was dismissed, and the
 * product family the LMS named in its dynamic registration (admin/setup-checklist.ts).
 */
export async function up(db: Queryable): Promise<void> {
  await db.query(`CREATE TABLE platform_setup_checklists (
    issuer text NOT NULL,
    client_id text NOT NULL,
    product_family text,
    done text[] NOT NULL DEFAULT '{}',
    dismissed_at timestamptz,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (issuer, client_id)
  )`);
}
