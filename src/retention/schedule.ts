import type { RetentionSettings } from '../config.js';
import type { Queryable } from '../db/types.js';
import type { Logger } from '../logger.js';
import { pruneExpired, type PruneResult } from './prune.js';
import { recordPrune, type PruneAudit } from './record.js';

const TASK = 'retention.prune';
/** The first scheduled prune waits this long at most (a random part of it), so replicas started together spread out. */
const FIRST_RUN_SPREAD_MS = 5 * 60_000;
const FIRST_RUN_MIN_MS = 60_000;

export interface RetentionSchedule {
  /** Prunes now when no replica has started a prune within the interval; undefined when another had. */
  runIfDue(): Promise<PruneResult | undefined>;
  /** Stops the timer and waits for a prune under way to end after its current batch. */
  stop(): Promise<void>;
}

/**
 * Claims this interval's prune for the caller: one statement that only one replica can win, by moving the
 * task's start time from one that is at least an interval old (or none) to now. Whoever loses skips the turn.
 */
export async function claimTurn(db: Queryable, intervalMinutes: number): Promise<boolean> {
  const { rows } = await db.query(
    `INSERT INTO scheduled_tasks (name, last_started_at) VALUES ($1, now())
     ON CONFLICT (name) DO UPDATE SET last_started_at = now()
       WHERE scheduled_tasks.last_started_at <= now() - make_interval(secs => $2)
     RETURNING name`,
    // A little less than the interval, so a replica whose timer fires a moment early still takes its turn.
    [TASK, intervalMinutes * 60 * 0.95],
  );
  return rows.length > 0;
}

async function noteFinished(db: Queryable, result: PruneResult): Promise<void> {
  await db.query('UPDATE scheduled_tasks SET last_finished_at = now(), last_result = $2::jsonb WHERE name = $1', [TASK, JSON.stringify(result.removed)]);
}

/**
 * Prunes expired records every `pruneIntervalMinutes` on whichever replica first finds the turn free; none
 * when the interval is 0 (pruning then runs from cron with `proctor-lti retention prune`).
 */
export function scheduleRetention(deps: { db: Queryable; settings: RetentionSettings; audit: PruneAudit; logger: Logger }): RetentionSchedule {
  const { db, settings, audit, logger } = deps;
  let stopping = false;
  let running: Promise<PruneResult | undefined> | undefined;
  let timer: NodeJS.Timeout | undefined;

  async function prune(): Promise<PruneResult | undefined> {
    if (!(await claimTurn(db, settings.pruneIntervalMinutes))) return undefined;
    const result = await pruneExpired(db, settings, { shouldStop: () => stopping });
    await recordPrune(audit, result, settings, { actor: 'proctor-lti', source: 'schedule' });
    await noteFinished(db, result);
    logger.info({ removed: result.removed, interrupted: result.interrupted }, 'retention prune finished');
    return result;
  }

  function runIfDue(): Promise<PruneResult | undefined> {
    running ??= prune().finally(() => {
      running = undefined;
    });
    return running;
  }

  const tick = () => {
    runIfDue().catch((error: unknown) => logger.warn({ err: error }, 'retention prune failed; the next turn tries again'));
    timer = setTimeout(tick, settings.pruneIntervalMinutes * 60_000);
    timer.unref();
  };
  if (settings.pruneIntervalMinutes > 0) {
    timer = setTimeout(tick, FIRST_RUN_MIN_MS + Math.random() * FIRST_RUN_SPREAD_MS);
    timer.unref();
  }

  return {
    runIfDue,
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await running?.catch(() => undefined);
    },
  };
}
