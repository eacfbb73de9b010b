import type { Queryable } from '../types.js';

/**
 * Every login counts the logins still waiting for their launch (the cap on pending logins). On the created_at
 * index that count visited every login of the window, launched or not: at a hundred launches a second, tens of
 * thousands of rows per login. This index holds only the pending ones, so the count reads about as many rows as
 * there are logins in flight.
 */
export async function up(db: Queryable): Promise<void> {
  await db.query('CREATE INDEX lti_login_states_pending ON lti_login_states (created_at) WHERE consumed_at IS NULL');
}
