import type { Queryable } from '../types.js';

/**
 * A course's staff as the tool knows them beyond the LMS's roles: who launched as staff (Moodle lists its
 * non-editing teachers as learners in Names and Roles) and whom an instructor named a proctor of the course
 * (Moodle sends plain Instructor for custom proctor roles). Keyed by the pseudonymous user id.
 */
export async function up(db: Queryable): Promise<void> {
  await db.query(`CREATE TABLE course_staff (
    issuer text NOT NULL,
    client_id text NOT NULL,
    deployment_id text NOT NULL,
    context_id text NOT NULL,
    user_id text NOT NULL,
    staff_launch_at timestamptz,
    proctor_named_by text,
    proctor_named_at timestamptz,
    PRIMARY KEY (issuer, client_id, deployment_id, context_id, user_id)
  )`);
}
