import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { buildInfo } from './version.js';

/**
 * The process's Prometheus metrics. Modules record through the small functions below (one call each);
 * `/metrics` (src/http/metrics-route.ts) serves `metricsRegistry`. Label values are fixed vocabularies
 * (endpoints, outcomes, statuses), never user, course or exam ids, so the series stay few.
 */
export const metricsRegistry = new Registry();

// Process metrics, including nodejs_eventloop_lag_seconds and the event-loop delay percentiles.
collectDefaultMetrics({ register: metricsRegistry, eventLoopMonitoringPrecision: 20 });

const LATENCY_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** A counter of this registry. */
const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) => new Counter<L>({ name, help, labelNames, registers: [metricsRegistry] });

/** A latency histogram of this registry, in seconds. */
const latency = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
  new Histogram<L>({ name, help, labelNames, buckets: LATENCY_BUCKETS, registers: [metricsRegistry] });

const launches = counter(
  'proctor_lti_launches_total',
  'Launch steps by kind (candidate, reviewer, live, launchpad, hub, exam-list, settings) and outcome (redirected, shown, refused, upstream_error)',
  ['kind', 'outcome'],
);
const launchDuration = latency('proctor_lti_launch_duration_seconds', 'Time the tool spent on one launch step, from the verified launch to its answer', ['kind', 'outcome']);
const proctoringRequests = latency(
  'proctor_lti_proctoring_api_request_duration_seconds',
  'Launch API calls by endpoint (operation) and HTTP status (or timeout / connection_failed / error)',
  ['endpoint', 'status'],
);
const namesRolesFetches = latency('proctor_lti_names_roles_fetch_duration_seconds', 'One course roster read from the LMS Names and Roles service (every page), by outcome', ['outcome']);
// Both outcomes are exported from the start, so an alert on errors sees 0, not nothing.
for (const outcome of ['ok', 'error']) namesRolesFetches.zero({ outcome });
const namesRolesPages = counter('proctor_lti_names_roles_pages_total', 'Names and Roles pages read from LMSs');
const rosterRequests = counter('proctor_lti_roster_requests_total', 'Roster requests answered from the cache (hit) or needing a Names and Roles fetch (miss)', ['cache']);
for (const cache of ['hit', 'miss']) rosterRequests.inc({ cache }, 0);
const webhookDeliveries = counter(
  'proctor_lti_webhook_deliveries_total',
  'Webhook deliveries received from the proctoring service, by outcome (e.g. accepted, duplicate, bad_signature, invalid)',
  ['outcome'],
);
for (const outcome of ['accepted', 'duplicate', 'unauthorized', 'invalid', 'too_large']) webhookDeliveries.inc({ outcome }, 0);

/** Answers counted since the last scrape, by `route status`: a map entry per answer is cheaper than the counter's label hashing. */
const responsesSinceScrape = new Map<string, number>();
new Counter({
  name: 'proctor_lti_http_responses_total',
  help: 'HTTP answers by route group (lti_login, lti_launch, lti_session, lti_api, lti_setup, hosted, webhooks, admin, api, health, metrics, static, sandbox, return, other) and status code (or aborted when the client left first)',
  labelNames: ['route', 'status'] as const,
  registers: [metricsRegistry],
  collect() {
    for (const [key, count] of responsesSinceScrape) {
      const space = key.indexOf(' ');
      this.inc({ route: key.slice(0, space), status: key.slice(space + 1) }, count);
    }
    responsesSinceScrape.clear();
  },
});
const refusedLaunches = counter('proctor_lti_refused_launches_total', 'LTI logins and launches refused, by reason (the refusal code shown to administrators, e.g. bad_signature, token_expired, nonce_invalid)', ['reason']);
const rateLimited = counter('proctor_lti_rate_limited_requests_total', 'Requests answered 429 by a per-client rate limit, by limiter (lti-login, lti-launch, lti-register, hosted, admin-sign-in)', ['limiter']);

/** What went wrong with a database statement: the server or network is gone, a deadline passed, or anything else. */
export type DatabaseErrorKind = 'unavailable' | 'timeout' | 'other';
const DATABASE_ERROR_KINDS: readonly DatabaseErrorKind[] = ['unavailable', 'timeout', 'other'];
const databaseErrors = counter('proctor_lti_database_errors_total', 'Database statements that failed, by kind: unavailable (connection refused or lost), timeout (a deadline passed), other', ['kind']);
// Every kind is exported from the start, so a rate over it is 0 (not absent) until the first error.
for (const kind of DATABASE_ERROR_KINDS) databaseErrors.inc({ kind }, 0);

const prunedRows = counter('proctor_lti_retention_pruned_rows_total', 'Rows removed by the retention prune because they were older than their setting, by table', ['table']);

new Gauge({
  name: 'proctor_lti_build_info',
  help: 'Always 1; its labels name the running release (version, from package.json) and the Node.js version',
  labelNames: ['version', 'nodejs'] as const,
  registers: [metricsRegistry],
}).set({ version: buildInfo().version, nodejs: buildInfo().node }, 1);

/** Connection counts of one database pool, read at scrape time. */
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}
const pools = new Set<() => PoolStats>();

new Gauge({
  name: 'proctor_lti_database_pool_connections',
  help: 'PostgreSQL pool: open connections (total), idle ones, and queries waiting for a connection',
  labelNames: ['state'] as const,
  registers: [metricsRegistry],
  collect() {
    const sum: PoolStats = { total: 0, idle: 0, waiting: 0 };
    for (const read of pools) {
      const stats = read();
      sum.total += stats.total;
      sum.idle += stats.idle;
      sum.waiting += stats.waiting;
    }
    for (const state of ['total', 'idle', 'waiting'] as const) this.set({ state }, sum[state]);
  },
});

const seconds = (startedMs: number) => (performance.now() - startedMs) / 1000;

/** One launch step ended; `startedMs` is a `performance.now()` reading. */
export function recordLaunch(kind: string | undefined, outcome: string, startedMs: number): void {
  const labels = { kind: kind ?? 'none', outcome };
  launches.inc(labels);
  launchDuration.observe(labels, seconds(startedMs));
}

/** Times one Launch API call: the status of its answer, or the kind of failure when none came. */
export async function timeProctoringCall<T extends { status: number }>(endpoint: string, call: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    const result = await call();
    proctoringRequests.observe({ endpoint, status: String(result.status) }, seconds(started));
    return result;
  } catch (error) {
    const name = error instanceof Error ? error.name : '';
    const status = name === 'ProctoringTimeout' ? 'timeout' : name === 'ProctoringConnectionFailed' ? 'connection_failed' : 'error';
    proctoringRequests.observe({ endpoint, status }, seconds(started));
    throw error;
  }
}

/** Times one roster fetch from Names and Roles (token and every page), from the moment it was started. */
export async function timeNamesRolesFetch<T>(fetching: Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    const result = await fetching;
    namesRolesFetches.observe({ outcome: 'ok' }, seconds(started));
    return result;
  } catch (error) {
    namesRolesFetches.observe({ outcome: 'error' }, seconds(started));
    throw error;
  }
}

export function countNamesRolesPage(): void {
  namesRolesPages.inc();
}

export function countRosterRequest(cache: 'hit' | 'miss'): void {
  rosterRequests.inc({ cache });
}

/** For the webhook receiver: one delivery and what became of it. */
export function countWebhookDelivery(outcome: string): void {
  webhookDeliveries.inc({ outcome });
}

/** A database pool reports its connections until the returned function is called (on close). */
export function watchDatabasePool(read: () => PoolStats): () => void {
  pools.add(read);
  return () => pools.delete(read);
}

/** One HTTP answer left (or the client went away before it did). */
export function countResponse(route: string, status: number | 'aborted'): void {
  const key = `${route} ${status}`;
  responsesSinceScrape.set(key, (responsesSinceScrape.get(key) ?? 0) + 1);
}

/** An LTI message was refused; `reason` is its refusal code (a fixed vocabulary). */
export function countRefusedLaunch(reason: string): void {
  refusedLaunches.inc({ reason });
}

/** A limiter exists: its series is exported (as 0) before its first refusal. */
export function registerRateLimiter(limiter: string): void {
  rateLimited.inc({ limiter }, 0);
}

export function countRateLimited(limiter: string): void {
  rateLimited.inc({ limiter });
}

export function countDatabaseError(kind: DatabaseErrorKind): void {
  databaseErrors.inc({ kind });
}

/** The retention prune removed `rows` rows of `table` (a fixed set of table names). */
export function countPrunedRows(table: string, rows: number): void {
  prunedRows.inc({ table }, rows);
}
