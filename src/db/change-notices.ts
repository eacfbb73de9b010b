import type { Logger } from '../logger.js';
import { invalidateReadCaches } from './read-cache.js';
import type { Database } from './types.js';

/** The channel migration 0018's triggers send on; the payload is the schema of the changed table. */
export const CHANGE_CHANNEL = 'proctor_lti_changes';

/**
 * Keeps this process's read caches in step with changes other processes make (a replica, the CLI on
 * PostgreSQL, plain SQL): a notice from this database's schema, or a gap in the notices, invalidates them.
 * Notices from other schemas (other installations sharing the database) are ignored.
 */
export function watchChanges(db: Database, logger: Pick<Logger, 'warn'>): () => Promise<void> {
  let schema: string | undefined;
  const ready = db
    .query<{ schema: string }>('SELECT current_schema() AS schema')
    .then(({ rows }) => {
      schema = rows[0]?.schema;
    })
    .catch(() => {});
  const stop = db.listen(CHANGE_CHANNEL, {
    onNotice(payload) {
      if (schema === undefined || payload === schema) invalidateReadCaches();
    },
    onGap: invalidateReadCaches,
    onError(err) {
      logger.warn({ err: err.message }, 'change notices interrupted: cached platform and account reads expire within seconds until they resume');
    },
  });
  return async () => {
    await ready;
    await stop();
  };
}
