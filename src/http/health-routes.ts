import express, { type Router } from 'express';
import type { Database } from '../db/types.js';

/** How long `/readyz` waits for the database's answer before it reports the database unavailable. */
export const READY_DATABASE_CHECK_MS = 1000;

/**
 * Liveness (`/healthz`: the process answers) and readiness (`/readyz`: this replica should get traffic) for load
 * balancers and orchestrators. A database outage does not make a replica unready: it hits every replica at
 * once, and a replica still answers its users with the tool's own 503 page (with an incident id and
 * Retry-After) where a balancer with no ready server would answer a bare 503. `/readyz` still says how the
 * database answers (`database`), for people and monitors. A replica shutting down answers 503 (src/main.ts).
 */
export function createHealthRoutes(db: Pick<Database, 'ping' | 'kind'>): Router {
  const router = express.Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    let timer: NodeJS.Timeout | undefined;
    const database = await Promise.race([
      db.ping().then(
        () => 'ready' as const,
        () => 'unavailable' as const,
      ),
      new Promise<'unavailable'>((resolve) => {
        timer = setTimeout(() => resolve('unavailable'), READY_DATABASE_CHECK_MS);
      }),
    ]);
    clearTimeout(timer);
    res.set('Cache-Control', 'no-store').json({ status: 'ready', database, databaseKind: db.kind });
  });
  return router;
}
