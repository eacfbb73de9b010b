import express, { type Router } from 'express';
import type { Database } from '../db/types.js';

/** Liveness (the process answers) and readiness (the database answers) for load balancers and orchestrators. */
export function createHealthRoutes(db: Pick<Database, 'ping' | 'kind'>): Router {
  const router = express.Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    try {
      await db.ping();
      res.json({ status: 'ready', database: db.kind });
    } catch {
      res.status(503).json({ status: 'unavailable', database: db.kind });
    }
  });
  return router;
}
