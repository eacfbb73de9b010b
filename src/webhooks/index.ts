import type { Router } from 'express';
import type { Queryable } from '../db/types.js';
import type { Logger } from '../logger.js';
import { DEFAULT_ACCOUNT_REF, type AccountDirectory } from './accounts.js';
import type { CandidateAttempt, MatchingSource } from './matching.js';
import { createReceiver, SUBSCRIPTION_ID_PATTERN, type Receiver } from './receiver.js';
import { createWebhookRoutes } from './routes.js';
import { createWebhookStore, type WebhookStore } from './store.js';
import { createSubscriptionService, type SubscriptionService } from './subscriptions.js';

export interface Webhooks {
  router: Router;
  store: WebhookStore;
  receiver: Receiver;
  subscriptions: SubscriptionService;
}

interface AttemptRow {
  id: string;
  exam_id: string;
  user_id: string;
  started_at: Date;
  issuer: string;
  deployment_id: string;
  resource_link_id: string;
  account_ref: string | null;
  platform_account: string | null;
}

/**
 * Attempts as matching sees them, with the exam_tag their exam's launches send and the proctoring account they
 * were launched through (recorded at launch; for older attempts, the account their platform uses).
 */
export function attemptMatchingSource(db: Queryable, examTagOf: (issuer: string, deploymentId: string, resourceLinkId: string) => string): MatchingSource {
  const select = `SELECT a.id, a.exam_id, a.user_id, a.started_at, e.issuer, e.deployment_id, e.resource_link_id, a.account_ref, p.account_id AS platform_account
    FROM attempts a JOIN exams e ON e.id = a.exam_id
    LEFT JOIN platform_proctoring_accounts p ON p.issuer = e.issuer AND p.client_id = e.client_id`;
  const toCandidate = (row: AttemptRow): CandidateAttempt => ({
    attemptId: row.id,
    examId: row.exam_id,
    userId: row.user_id,
    startedAt: new Date(row.started_at),
    examTag: examTagOf(row.issuer, row.deployment_id, row.resource_link_id),
    accountRef: row.account_ref ?? row.platform_account ?? DEFAULT_ACCOUNT_REF,
  });
  return {
    async attemptById(attemptId) {
      const result = await db.query<AttemptRow>(`${select} WHERE a.id = $1`, [attemptId]);
      return result.rows[0] ? toCandidate(result.rows[0]) : undefined;
    },
    async attemptsOfUser(userId) {
      const result = await db.query<AttemptRow>(`${select} WHERE a.user_id = $1 ORDER BY a.started_at DESC LIMIT 200`, [userId]);
      return result.rows.map(toCandidate);
    },
  };
}

/** The webhook feature: subscriptions, the receiver and its route, built from their collaborators. */
export function createWebhooks(deps: {
  db: Queryable;
  accounts: AccountDirectory;
  baseUrl: string;
  examTagOf: (issuer: string, deploymentId: string, resourceLinkId: string) => string;
  logger: Logger;
}): Webhooks {
  const store = createWebhookStore(deps.db);
  const receiver = createReceiver({ store, accounts: deps.accounts, matching: attemptMatchingSource(deps.db, deps.examTagOf), logger: deps.logger });
  const router = createWebhookRoutes({
    receiver,
    noteFailure: async (id, reason) => {
      if (SUBSCRIPTION_ID_PATTERN.test(id)) await store.noteFailure(id, reason);
    },
    logger: deps.logger,
  });
  return { router, store, receiver, subscriptions: createSubscriptionService({ store, accounts: deps.accounts, baseUrl: deps.baseUrl }) };
}
