import type { Queryable } from '../types.js';

/**
 * Change notices: a change to a row that processes keep in their read caches (platforms and their keys,
 * deployments, institution settings and logos, proctoring accounts) sends the changed table's schema on the
 * `proctor_lti_changes` channel when its transaction commits, whoever made it (a replica, the CLI, plain SQL).
 * Every running tool listens and stops reusing what it read (db/change-notices.ts).
 */
const WATCHED_TABLES = ['lti_deployments', 'institution_settings', 'institution_logos', 'proctoring_accounts', 'platform_proctoring_accounts'];
/** Of ltijs's documents, the collections every launch reads from the cache; the others change on every launch. */
const WATCHED_LTIJS_COLLECTIONS = "('platform', 'platformStatus', 'publickey', 'privatekey')";

export async function up(db: Queryable): Promise<void> {
  await db.query(`CREATE FUNCTION proctor_lti_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('proctor_lti_changes', TG_TABLE_SCHEMA);
  RETURN NULL;
END
$$`);
  for (const table of WATCHED_TABLES) {
    await db.query(`CREATE TRIGGER ${table}_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION proctor_lti_notify_change()`);
  }
  // Row triggers, so that the launches' own writes of other collections send nothing.
  await db.query(`CREATE TRIGGER ltijs_documents_inserted AFTER INSERT ON ltijs_documents FOR EACH ROW WHEN (NEW.collection IN ${WATCHED_LTIJS_COLLECTIONS}) EXECUTE FUNCTION proctor_lti_notify_change()`);
  await db.query(`CREATE TRIGGER ltijs_documents_updated AFTER UPDATE ON ltijs_documents FOR EACH ROW WHEN (NEW.collection IN ${WATCHED_LTIJS_COLLECTIONS} OR OLD.collection IN ${WATCHED_LTIJS_COLLECTIONS}) EXECUTE FUNCTION proctor_lti_notify_change()`);
  await db.query(`CREATE TRIGGER ltijs_documents_deleted AFTER DELETE ON ltijs_documents FOR EACH ROW WHEN (OLD.collection IN ${WATCHED_LTIJS_COLLECTIONS}) EXECUTE FUNCTION proctor_lti_notify_change()`);
}
