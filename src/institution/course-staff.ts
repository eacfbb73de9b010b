import type { Queryable } from '../db/types.js';

/** A course of one platform deployment (an LTI context). */
export interface CourseRef {
  issuer: string;
  clientId: string;
  deploymentId: string;
  contextId: string;
}

/**
 * A course's staff beyond what the LMS's roles say, by pseudonymous user id: who launched as staff, and whom an
 * instructor named a proctor of the course (Moodle sends plain Instructor for its proctors and non-editing
 * teachers, so a course names them here: docs/lms-notes.md).
 */
export interface CourseStaffStore {
  /** Remembers a launch with a staff role (at most one write a day per person and course); true when the person is new to the list. */
  noteStaffLaunch(course: CourseRef, userId: string): Promise<boolean>;
  isNamedProctor(course: CourseRef, userId: string): Promise<boolean>;
  namedProctors(course: CourseRef): Promise<string[]>;
  nameProctor(course: CourseRef, userId: string, by: string): Promise<void>;
  /** False when the person was not named. */
  unnameProctor(course: CourseRef, userId: string): Promise<boolean>;
  /** Everyone who launched as staff or was named a proctor: never a candidate of the course's pickers and roster. */
  staffIds(course: CourseRef): Promise<Set<string>>;
}

const KEY = 'issuer = $1 AND client_id = $2 AND deployment_id = $3 AND context_id = $4';
const keyOf = (course: CourseRef) => [course.issuer, course.clientId, course.deploymentId, course.contextId];

/** The store, with `changed` told of each course whose staff list changed (its cached roster is then stale). */
export function withStaffChanges(store: CourseStaffStore, changed: (course: CourseRef) => void): CourseStaffStore {
  return {
    ...store,
    async noteStaffLaunch(course, userId) {
      const added = await store.noteStaffLaunch(course, userId);
      if (added) changed(course);
      return added;
    },
    async nameProctor(course, userId, by) {
      await store.nameProctor(course, userId, by);
      changed(course);
    },
    async unnameProctor(course, userId) {
      const removed = await store.unnameProctor(course, userId);
      if (removed) changed(course);
      return removed;
    },
  };
}

export function createCourseStaffStore(db: Queryable): CourseStaffStore {
  return {
    async noteStaffLaunch(course, userId) {
      const { rows } = await db.query<{ before: Date | null }>(
        `INSERT INTO course_staff AS s (issuer, client_id, deployment_id, context_id, user_id, staff_launch_at) VALUES ($1, $2, $3, $4, $5, now())
         ON CONFLICT (issuer, client_id, deployment_id, context_id, user_id) DO UPDATE SET staff_launch_at = now()
         WHERE s.staff_launch_at IS NULL OR s.staff_launch_at < now() - interval '1 day'
         RETURNING (SELECT staff_launch_at FROM course_staff o WHERE o.issuer = $1 AND o.client_id = $2 AND o.deployment_id = $3 AND o.context_id = $4 AND o.user_id = $5) AS before`,
        [...keyOf(course), userId],
      );
      return rows.length > 0 && rows[0]?.before === null;
    },
    async isNamedProctor(course, userId) {
      const { rows } = await db.query(`SELECT 1 FROM course_staff WHERE ${KEY} AND user_id = $5 AND proctor_named_at IS NOT NULL`, [...keyOf(course), userId]);
      return rows.length > 0;
    },
    async namedProctors(course) {
      const { rows } = await db.query<{ user_id: string }>(`SELECT user_id FROM course_staff WHERE ${KEY} AND proctor_named_at IS NOT NULL ORDER BY proctor_named_at, user_id`, keyOf(course));
      return rows.map((row) => row.user_id);
    },
    async nameProctor(course, userId, by) {
      await db.query(
        `INSERT INTO course_staff (issuer, client_id, deployment_id, context_id, user_id, proctor_named_by, proctor_named_at) VALUES ($1, $2, $3, $4, $5, $6, now())
         ON CONFLICT (issuer, client_id, deployment_id, context_id, user_id) DO UPDATE SET proctor_named_by = $6, proctor_named_at = now()`,
        [...keyOf(course), userId, by],
      );
    },
    async unnameProctor(course, userId) {
      const result = await db.query(`UPDATE course_staff SET proctor_named_by = NULL, proctor_named_at = NULL WHERE ${KEY} AND user_id = $5 AND proctor_named_at IS NOT NULL`, [...keyOf(course), userId]);
      return result.rowCount > 0;
    },
    async staffIds(course) {
      const { rows } = await db.query<{ user_id: string }>(`SELECT user_id FROM course_staff WHERE ${KEY} AND (staff_launch_at IS NOT NULL OR proctor_named_at IS NOT NULL)`, keyOf(course));
      return new Set(rows.map((row) => row.user_id));
    },
  };
}
