import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Queryable } from '../db/types.js';
import type { DeliveryVersion, SuspicionResult } from './delivery.js';

export interface SubscriptionRecord {
  /** The tool's own id: the unguessable last segment of the receiver URL. */
  id: string;
  /** Which proctoring account the subscription was made with (see accounts.ts). */
  accountRef: string;
  /** The id the service gave the subscription; undefined while the subscribe call is under way. */
  upstreamId?: string;
  version: DeliveryVersion;
  receiverUrl: string;
  createdAt: Date;
  removedAt?: Date;
  deliveries: number;
  lastDeliveryAt?: Date;
  failures: number;
  lastFailureAt?: Date;
  lastFailure?: string;
}

/** What the receiver needs to check a delivery. */
export interface ActiveSubscription {
  id: string;
  accountRef: string;
  version: DeliveryVersion;
  keySha256: string;
}

export type VerifiedBy = 'api_key' | 'signature';
export type MatchedBy = 'attempt_id' | 'user_exam';

export interface NewDelivery {
  subscriptionId: string;
  dataSha256: string;
  verifiedBy: VerifiedBy;
  webhookType?: string;
  nonce?: string;
  dataRaw: string;
  /** The parsed data made storable (JSON text), or undefined when it could not be. */
  dataJson?: string;
  result: SuspicionResult;
  match?: { attemptId: string; examId: string; by: MatchedBy };
}

/** What a delivery's stored row keeps of the parsed result (the exam_tag serves matching only). */
export type StoredResult = Pick<
  SuspicionResult,
  'version' | 'externalId' | 'attemptRef' | 'userRef' | 'suspicion' | 'flags' | 'submissionCode' | 'submissionMessage' | 'submissionDescription' | 'submittedAt' | 'problems'
>;

export interface DeliveryRecord extends StoredResult {
  id: string;
  subscriptionId: string;
  receivedAt: Date;
  verifiedBy: VerifiedBy;
  /** The body's `type` as sent (1: suspicion calculation). */
  webhookType?: string;
  attemptId?: string;
  examId?: string;
  matchedBy?: MatchedBy;
}

/** An unmatched delivery with the account of the subscription it arrived on. */
export interface UnmatchedDelivery extends DeliveryRecord {
  accountRef: string;
}

interface SubscriptionRow {
  id: string;
  account_ref: string;
  upstream_id: string | null;
  version: string;
  receiver_url: string;
  created_at: Date;
  removed_at: Date | null;
  failures: number;
  last_failure_at: Date | null;
  last_failure: string | null;
  deliveries: string | number | null;
  last_delivery_at: Date | null;
}

interface DeliveryRow {
  id: string;
  subscription_id: string;
  received_at: Date;
  verified_by: VerifiedBy;
  webhook_type: string | null;
  version: string;
  external_id: string | null;
  attempt_ref: string | null;
  user_ref: string | null;
  suspicion: number | null;
  flags: unknown;
  submission_code: number | null;
  submission_message: string | null;
  submission_description: string | null;
  submitted_at: Date | null;
  problems: unknown;
  attempt_id: string | null;
  exam_id: string | null;
  matched_by: MatchedBy | null;
}

const versionOf = (value: string): DeliveryVersion => (value === '2' ? '2' : '3');
const dateOrUndefined = (value: Date | null) => (value ? new Date(value) : undefined);
/** A jsonb column's value, checked: the drivers give it parsed, or as its text. */
const jsonColumn = <T>(schema: z.ZodType<T>, value: unknown): T => schema.parse(typeof value === 'string' ? JSON.parse(value) : value);
const storedFlags = z.record(z.string(), z.number());
const storedProblems = z.array(z.string());

const toSubscription = (row: SubscriptionRow): SubscriptionRecord => ({
  id: row.id,
  accountRef: row.account_ref,
  upstreamId: row.upstream_id ?? undefined,
  version: versionOf(row.version),
  receiverUrl: row.receiver_url,
  createdAt: new Date(row.created_at),
  removedAt: dateOrUndefined(row.removed_at),
  deliveries: Number(row.deliveries ?? 0),
  lastDeliveryAt: dateOrUndefined(row.last_delivery_at),
  failures: row.failures,
  lastFailureAt: dateOrUndefined(row.last_failure_at),
  lastFailure: row.last_failure ?? undefined,
});

const toDelivery = (row: DeliveryRow): DeliveryRecord => ({
  id: row.id,
  subscriptionId: row.subscription_id,
  receivedAt: new Date(row.received_at),
  verifiedBy: row.verified_by,
  webhookType: row.webhook_type ?? undefined,
  version: versionOf(row.version),
  externalId: row.external_id ?? undefined,
  attemptRef: row.attempt_ref ?? undefined,
  userRef: row.user_ref ?? undefined,
  suspicion: row.suspicion ?? undefined,
  flags: jsonColumn(storedFlags, row.flags),
  submissionCode: row.submission_code ?? undefined,
  submissionMessage: row.submission_message ?? undefined,
  submissionDescription: row.submission_description ?? undefined,
  submittedAt: dateOrUndefined(row.submitted_at),
  problems: jsonColumn(storedProblems, row.problems),
  attemptId: row.attempt_id ?? undefined,
  examId: row.exam_id ?? undefined,
  matchedBy: row.matched_by ?? undefined,
});

const SUBSCRIPTION_COLUMNS = `s.*, (SELECT count(*) FROM webhook_deliveries d WHERE d.subscription_id = s.id) AS deliveries,
  (SELECT max(d.received_at) FROM webhook_deliveries d WHERE d.subscription_id = s.id) AS last_delivery_at`;

/** Text PostgreSQL refuses (NUL characters, lone surrogates) made storable. */
export function storableText(value: string): string {
  return value.replaceAll('\u0000', '\uFFFD').replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

export interface UnmatchedQuery {
  limit: number;
  offset?: number;
  accountRef?: string;
}

export interface WebhookStore {
  createPending(input: { id: string; accountRef: string; version: DeliveryVersion; receiverUrl: string; keySha256: string }): Promise<void>;
  confirm(id: string, upstreamId: string): Promise<void>;
  /** Forgets a subscription the service never confirmed. */
  discard(id: string): Promise<void>;
  markRemoved(id: string): Promise<void>;
  findActive(id: string): Promise<ActiveSubscription | undefined>;
  get(id: string): Promise<SubscriptionRecord | undefined>;
  /** Subscriptions (removed ones too when asked), with their delivery counts; oldest first. */
  list(filter?: { accountRef?: string; includeRemoved?: boolean }): Promise<SubscriptionRecord[]>;
  findByUpstreamId(accountRef: string, upstreamId: string): Promise<SubscriptionRecord | undefined>;
  noteFailure(id: string, reason: string): Promise<void>;
  /** Stores a delivery unless the same one (same subscription, same data bytes) is already stored. */
  insertDelivery(delivery: NewDelivery): Promise<{ stored: boolean; id: string }>;
  /** Deliveries that matched no attempt, newest first, of one account's subscriptions when asked. */
  unmatched(query: UnmatchedQuery): Promise<{ deliveries: UnmatchedDelivery[]; total: number }>;
  /** Matched deliveries of an exam's attempts, newest result first. */
  forExam(examId: string): Promise<DeliveryRecord[]>;
}

export function createWebhookStore(db: Queryable): WebhookStore {
  return {
    async createPending(input) {
      await db.query('INSERT INTO webhook_subscriptions (id, account_ref, version, receiver_url, key_sha256) VALUES ($1, $2, $3, $4, $5)', [
        input.id,
        input.accountRef,
        input.version,
        input.receiverUrl,
        input.keySha256,
      ]);
    },
    async confirm(id, upstreamId) {
      await db.query('UPDATE webhook_subscriptions SET upstream_id = $2 WHERE id = $1', [id, upstreamId]);
    },
    async discard(id) {
      await db.query('DELETE FROM webhook_subscriptions WHERE id = $1 AND upstream_id IS NULL', [id]);
    },
    async markRemoved(id) {
      await db.query('UPDATE webhook_subscriptions SET removed_at = now() WHERE id = $1 AND removed_at IS NULL', [id]);
    },
    async findActive(id) {
      const result = await db.query<{ id: string; account_ref: string; version: string; key_sha256: string }>(
        'SELECT id, account_ref, version, key_sha256 FROM webhook_subscriptions WHERE id = $1 AND removed_at IS NULL',
        [id],
      );
      const row = result.rows[0];
      return row ? { id: row.id, accountRef: row.account_ref, version: versionOf(row.version), keySha256: row.key_sha256 } : undefined;
    },
    async get(id) {
      const result = await db.query<SubscriptionRow>(`SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions s WHERE s.id = $1`, [id]);
      return result.rows[0] ? toSubscription(result.rows[0]) : undefined;
    },
    async list(filter = {}) {
      const result = await db.query<SubscriptionRow>(
        `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions s
         WHERE ($1::text IS NULL OR s.account_ref = $1) AND ($2::boolean OR s.removed_at IS NULL)
         ORDER BY s.created_at, s.id`,
        [filter.accountRef ?? null, filter.includeRemoved ?? false],
      );
      return result.rows.map(toSubscription);
    },
    async findByUpstreamId(accountRef, upstreamId) {
      const result = await db.query<SubscriptionRow>(
        `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions s WHERE s.account_ref = $1 AND s.upstream_id = $2 ORDER BY s.created_at DESC LIMIT 1`,
        [accountRef, upstreamId],
      );
      return result.rows[0] ? toSubscription(result.rows[0]) : undefined;
    },
    async noteFailure(id, reason) {
      await db.query('UPDATE webhook_subscriptions SET failures = failures + 1, last_failure_at = now(), last_failure = $2 WHERE id = $1', [id, reason.slice(0, 500)]);
    },
    async insertDelivery(delivery) {
      const { result, match } = delivery;
      const id = randomUUID();
      const clean = (value: string | undefined) => (value === undefined ? null : storableText(value));
      const inserted = await db.query<{ id: string }>(
        `INSERT INTO webhook_deliveries (id, subscription_id, data_sha256, verified_by, webhook_type, nonce, version, data_raw, data,
           external_id, attempt_ref, user_ref, suspicion, flags, submission_code, submission_message, submission_description, submitted_at,
           problems, attempt_id, exam_id, matched_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, $12, $13, $14::jsonb, $15, $16, $17, $18, $19::jsonb, $20, $21, $22)
         ON CONFLICT (subscription_id, data_sha256) DO NOTHING
         RETURNING id`,
        [
          id,
          delivery.subscriptionId,
          delivery.dataSha256,
          delivery.verifiedBy,
          clean(delivery.webhookType),
          clean(delivery.nonce),
          result.version,
          storableText(delivery.dataRaw),
          delivery.dataJson ?? null,
          clean(result.externalId),
          clean(result.attemptRef),
          clean(result.userRef),
          result.suspicion ?? null,
          JSON.stringify(Object.fromEntries(Object.entries(result.flags).map(([name, value]) => [storableText(name), value]))),
          result.submissionCode ?? null,
          clean(result.submissionMessage),
          clean(result.submissionDescription),
          result.submittedAt ?? null,
          JSON.stringify(result.problems.map(storableText)),
          match?.attemptId ?? null,
          match?.examId ?? null,
          match?.by ?? null,
        ],
      );
      if (inserted.rows[0]) return { stored: true, id: inserted.rows[0].id };
      const existing = await db.query<{ id: string }>('SELECT id FROM webhook_deliveries WHERE subscription_id = $1 AND data_sha256 = $2', [
        delivery.subscriptionId,
        delivery.dataSha256,
      ]);
      return { stored: false, id: existing.rows[0]?.id ?? '' };
    },
    async unmatched(query) {
      const params = [query.accountRef ?? null, query.limit, query.offset ?? 0];
      const where = 'd.attempt_id IS NULL AND ($1::text IS NULL OR s.account_ref = $1)';
      const [page, count] = await Promise.all([
        db.query<DeliveryRow & { account_ref: string }>(
          `SELECT d.*, s.account_ref FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
           WHERE ${where} ORDER BY d.received_at DESC, d.id LIMIT $2 OFFSET $3`,
          params,
        ),
        db.query<{ total: string | number }>(`SELECT count(*) AS total FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id WHERE ${where}`, [
          query.accountRef ?? null,
        ]),
      ]);
      return { deliveries: page.rows.map((row) => ({ ...toDelivery(row), accountRef: row.account_ref })), total: Number(count.rows[0]?.total ?? 0) };
    },
    async forExam(examId) {
      const result = await db.query<DeliveryRow>(
        `SELECT * FROM webhook_deliveries WHERE exam_id = $1 AND attempt_id IS NOT NULL
         ORDER BY submitted_at DESC NULLS LAST, received_at DESC`,
        [examId],
      );
      return result.rows.map(toDelivery);
    },
  };
}
