import type { Queryable } from '../types.js';

/**
 * Exams and accommodations are kept a few seconds by each process for the launches of a class starting
 * together (exams/store.ts): their changes send a change notice too. An exam's row trigger fires only when
 * the row really changed, so an instructor's launch re-saving an unchanged title sends nothing.
 */
export async function up(db: Queryable): Promise<void> {
  await db.query('CREATE TRIGGER exams_inserted AFTER INSERT ON exams FOR EACH ROW EXECUTE FUNCTION proctor_lti_notify_change()');
  await db.query('CREATE TRIGGER exams_updated AFTER UPDATE ON exams FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION proctor_lti_notify_change()');
  await db.query('CREATE TRIGGER exams_deleted AFTER DELETE ON exams FOR EACH ROW EXECUTE FUNCTION proctor_lti_notify_change()');
  await db.query('CREATE TRIGGER exams_truncated AFTER TRUNCATE ON exams FOR EACH STATEMENT EXECUTE FUNCTION proctor_lti_notify_change()');
  await db.query(
    'CREATE TRIGGER exam_accommodations_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON exam_accommodations FOR EACH STATEMENT EXECUTE FUNCTION proctor_lti_notify_change()',
  );
}
