import { z } from 'zod';
import { isPasswordHash, MIN_PASSWORD_LENGTH, passwordHashCostOk } from './secrets/password.js';

/** How the tool authenticates to the Launch API: an api_key as given, or a consumer key and secret it is derived from. */
export type ProctoringCredentials = { apiKey: string } | { consumerKey: string; secret: string };

/**
 * The tool's whole configuration, read from the environment once at start-up. Nothing else reads
 * `process.env`. A wrong value stops start-up with a message naming the variable and what is expected.
 */
/** Validity of a dynamic registration link, for the environment variable and the CLI alike. */
export const REGISTRATION_LINK_TTL_RANGE = { min: 60, max: 30 * 86_400 } as const;

export const REGIONS = ['AU', 'CA', 'DE', 'EU', 'IN', 'JP', 'SA', 'SG', 'UK', 'US'] as const;
export type Region = (typeof REGIONS)[number];

/**
 * Connections of one replica's pool (DATABASE_POOL_SIZE). Each replica opens one more, to listen for change
 * notices: a replica holds at most pool size + 1 connections (docs/operations.md, "Connection budget").
 */
export const DEFAULT_POOL_SIZE = 10;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export interface Config {
  env: 'development' | 'test' | 'production';
  port: number;
  /** The tool's external URL, without a trailing slash. */
  publicUrl: URL;
  database: {
    url?: string;
    schema?: string;
    dataDir: string;
    /** Connections of this replica's PostgreSQL pool (one more listens for change notices). */
    poolSize: number;
    /** At start-up: apply pending migrations (`apply`), or leave the schema to `proctor-lti migrate` and wait for it (`wait`). */
    migrations: 'apply' | 'wait';
    /** How long start-up waits for the schema it needs (or for the migration lock) before it gives up. */
    schemaWaitSeconds: number;
  };
  /** Undefined outside production when not set: start-up then uses a key kept in DATA_DIR. The newest key. */
  encryptionKey?: string;
  /** Every key of ENCRYPTION_KEY, newest first (older ones still decrypt: key rotation); empty when unset. */
  encryptionKeys: string[];
  proctoring: {
    baseUrl?: string;
    region?: Region;
    credentials?: ProctoringCredentials;
    timeoutMs: number;
  };
  /**
   * Built-in emulator and demo LMS instead of a proctoring service. Outside production: SANDBOX=1, or neither
   * proctoring credentials nor DATABASE_URL (a real database is never used by a sandbox that was not asked for).
   */
  sandbox: boolean;
  /** SANDBOX was set explicitly (1 or 0). */
  sandboxExplicit: boolean;
  adminPassword?: string;
  logLevel: (typeof LOG_LEVELS)[number];
  lti: {
    /** How long an LTI session (the ltik issued at launch) stays usable. */
    sessionMaxAgeSeconds: number;
    /** Tolerated clock difference between the LMS and the tool for exp/iat. */
    clockSkewSeconds: number;
    /** Lifetime of an admin-issued dynamic-registration link. */
    registrationLinkTtlSeconds: number;
  };
  /** Number of reverse proxies in front of the tool (express `trust proxy`), 0 when none. */
  trustProxyHops: number;
  /** Origins allowed to read the hosted endpoints (roster, logo, …) cross-origin; ['*'] for any. */
  corsAllowedOrigins: string[];
  /** Hosted endpoints: how long a course roster (from Names and Roles) is reused, and how long one fetch may take. */
  hosted: { rosterCacheSeconds: number; rosterFetchTimeoutMs: number };
  /** Bearer token that `/metrics` requires; undefined: no metrics endpoint (404). */
  metricsToken?: string;
  /** Requests per client address and window on the unauthenticated endpoints (0: no limit); see src/http/rate-limits.ts. */
  rateLimits: { windowSeconds: number; login: number; launch: number; register: number; hosted: number; webhooks: number };
  /** Login states (OIDC logins not yet answered by the LMS) kept at most; past it, new logins get 503. */
  maxPendingLogins: number;
  /** On SIGTERM, how long the replica keeps serving while `/readyz` says 503 (lame duck), before the drain. */
  shutdownDelaySeconds: number;
  /** On SIGTERM, after the lame duck: how long requests in flight may take to finish before their connections are closed. */
  shutdownGraceSeconds: number;
  /** How long a client may take to send its request's headers, and the whole request (src/http/server-timeouts.ts). */
  http: { headersSeconds: number; requestSeconds: number };
  /** How long records about people are kept, in days (0: kept for ever), and how often they are pruned; docs/retention.md. */
  retention: RetentionSettings;
}

export interface RetentionSettings {
  launchLogDays: number;
  /** Attempts with the results received for them. */
  attemptDays: number;
  webhookDeliveryDays: number;
  auditLogDays: number;
  /** Exams created in the deep-linking picker whose link no launch ever claimed, by their last use. */
  unclaimedExamDays: number;
  /** A course's staff entries (staff launches, named proctors), by the person's last staff launch or naming. */
  courseStaffDays: number;
  /** Minutes between scheduled prunings (one replica at a time); 0: none, `proctor-lti retention prune` from cron instead. */
  pruneIntervalMinutes: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const blankToUndefined = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);
const optionalString = z.preprocess(blankToUndefined, z.string().optional());

const absoluteHttpUrl = (what: string) =>
  z.preprocess(
    blankToUndefined,
    z
      .string()
      .refine((value) => {
        try {
          const url = new URL(value);
          return url.protocol === 'http:' || url.protocol === 'https:';
        } catch {
          return false;
        }
      }, `must be an absolute http(s) URL (${what})`)
      .optional(),
  );

const integerIn = (min: number, max: number, fallback: number) =>
  z.preprocess(
    (value) => (blankToUndefined(value) === undefined ? fallback : Number(value)),
    z.number({ error: `must be a whole number from ${min} to ${max}` }).int(`must be a whole number from ${min} to ${max}`).min(min, `must be a whole number from ${min} to ${max}`).max(max, `must be a whole number from ${min} to ${max}`),
  );

const envSchema = z.object({
  NODE_ENV: z.preprocess(
    (value) => blankToUndefined(value) ?? 'development',
    z.enum(['development', 'test', 'production'], { error: "must be 'development', 'test' or 'production'" }),
  ),
  PORT: integerIn(1, 65535, 3000),
  PUBLIC_URL: absoluteHttpUrl('e.g. https://proctor.example.edu'),
  DATABASE_URL: z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^postgres(ql)?:\/\/[^/]+\/[^/?#]+/, 'must look like postgres://user:password@host:5432/database')
      .optional(),
  ),
  DATABASE_SCHEMA: z.preprocess(
    blankToUndefined,
    z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lowercase SQL identifier (letters, digits, _)').optional(),
  ),
  DATABASE_POOL_SIZE: integerIn(1, 500, DEFAULT_POOL_SIZE),
  DATABASE_MIGRATIONS: z.preprocess((value) => blankToUndefined(value) ?? 'apply', z.enum(['apply', 'wait'], { error: "must be 'apply' (start-up applies pending migrations) or 'wait' (start-up waits for `proctor-lti migrate`)" })),
  DATABASE_SCHEMA_WAIT_SECONDS: integerIn(1, 3600, 300),
  DATA_DIR: z.preprocess((value) => blankToUndefined(value) ?? './data', z.string()),
  ENCRYPTION_KEY: z.preprocess(
    blankToUndefined,
    z
      .string()
      .refine(
        (value) => value.split(',').every((key) => key.trim().length >= 32),
        'must be at least 32 characters (e.g. `openssl rand -hex 32`); when rotating, a comma-separated list of such keys, newest first',
      )
      .optional(),
  ),
  PROCTORING_BASE_URL: absoluteHttpUrl("the regional base URL of the proctoring service's Launch API"),
  PROCTORING_REGION: z.preprocess(
    (value) => (typeof blankToUndefined(value) === 'string' ? String(value).toUpperCase() : undefined),
    z.enum(REGIONS, { error: `must be one of ${REGIONS.join(', ')}` }).optional(),
  ),
  PROCTORING_API_KEY: optionalString,
  PROCTORING_CONSUMER_KEY: optionalString,
  PROCTORING_SECRET: optionalString,
  PROCTORING_TIMEOUT_MS: integerIn(100, 120_000, 10_000),
  ADMIN_PASSWORD: z.preprocess(
    blankToUndefined,
    z
      .string()
      .refine((value) => (isPasswordHash(value) ? passwordHashCostOk(value) : value.length >= MIN_PASSWORD_LENGTH), `must be at least ${MIN_PASSWORD_LENGTH} characters, or a hash made with \`proctor-lti admin hash-password\` (scrypt cost n at most 1048576)`)
      .optional(),
  ),
  LOG_LEVEL: z.preprocess(
    (value) => blankToUndefined(value) ?? 'info',
    z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }),
  ),
  LTI_SESSION_MAX_AGE_SECONDS: integerIn(60, 86_400, 4 * 3600),
  LTI_CLOCK_SKEW_SECONDS: integerIn(0, 600, 60),
  REGISTRATION_LINK_TTL_SECONDS: integerIn(REGISTRATION_LINK_TTL_RANGE.min, REGISTRATION_LINK_TTL_RANGE.max, 7 * 86_400),
  TRUST_PROXY_HOPS: integerIn(0, 10, 0),
  CORS_ALLOWED_ORIGINS: z.preprocess((value) => blankToUndefined(value) ?? '*', z.string()),
  ROSTER_CACHE_SECONDS: integerIn(1, 3600, 60),
  ROSTER_FETCH_TIMEOUT_MS: integerIn(1000, 300_000, 30_000),
  SANDBOX: z.preprocess(
    (value) => {
      const text = blankToUndefined(value);
      if (typeof text !== 'string') return undefined;
      if (/^(1|true|yes|on)$/i.test(text)) return true;
      if (/^(0|false|no|off)$/i.test(text)) return false;
      return text;
    },
    z.boolean({ error: 'must be 1 (sandbox mode) or 0' }).optional(),
  ),
  // Class-start bursts come from one campus NAT: see src/http/rate-limits.ts for how these were chosen.
  RATE_LIMIT_WINDOW_SECONDS: integerIn(1, 3600, 300),
  RATE_LIMIT_LOGIN: integerIn(0, 1_000_000, 5000),
  RATE_LIMIT_LAUNCH: integerIn(0, 1_000_000, 5000),
  RATE_LIMIT_REGISTER: integerIn(0, 1_000_000, 30),
  RATE_LIMIT_HOSTED: integerIn(0, 1_000_000, 5000),
  RATE_LIMIT_WEBHOOKS: integerIn(0, 1_000_000, 10_000),
  MAX_PENDING_LOGINS: integerIn(100, 10_000_000, 50_000),
  // A balancer that checks every 2 s and takes a server out after 3 failures stops sending within 6 s.
  SHUTDOWN_DELAY_SECONDS: integerIn(0, 600, 10),
  SHUTDOWN_GRACE_SECONDS: integerIn(1, 600, 25),
  // Slow clients: see src/http/server-timeouts.ts and docs/security.md.
  HTTP_HEADERS_TIMEOUT_SECONDS: integerIn(1, 300, 15),
  HTTP_REQUEST_TIMEOUT_SECONDS: integerIn(1, 3600, 30),
  // Defaults and the reason for each: docs/retention.md.
  RETENTION_LAUNCH_LOG_DAYS: integerIn(0, 36_500, 90),
  RETENTION_ATTEMPT_DAYS: integerIn(0, 36_500, 400),
  RETENTION_WEBHOOK_DELIVERY_DAYS: integerIn(0, 36_500, 400),
  RETENTION_AUDIT_LOG_DAYS: integerIn(0, 36_500, 730),
  RETENTION_UNCLAIMED_EXAM_DAYS: integerIn(0, 36_500, 400),
  RETENTION_COURSE_STAFF_DAYS: integerIn(0, 36_500, 400),
  RETENTION_PRUNE_INTERVAL_MINUTES: integerIn(0, 10_080, 60),
  METRICS_TOKEN: z.preprocess(blankToUndefined, z.string().regex(/^[\x21-\x7e]{16,}$/, 'must be at least 16 printable characters without spaces (e.g. `openssl rand -hex 24`)').optional()),
});

/** Every variable the configuration reads (deployment files are checked against it). */
export const ENVIRONMENT_VARIABLES: readonly string[] = Object.keys(envSchema.shape);

export function loadConfig(env: Env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${String(issue.path[0] ?? 'environment')} ${issue.message}`),
    );
  }
  const e = parsed.data;
  const problems: string[] = [];
  const production = e.NODE_ENV === 'production';

  let credentials: ProctoringCredentials | undefined;
  if (e.PROCTORING_API_KEY) {
    credentials = { apiKey: e.PROCTORING_API_KEY };
    if (e.PROCTORING_CONSUMER_KEY || e.PROCTORING_SECRET) {
      problems.push('PROCTORING_API_KEY is set together with PROCTORING_CONSUMER_KEY/PROCTORING_SECRET: set one or the other');
    }
  } else if (e.PROCTORING_CONSUMER_KEY || e.PROCTORING_SECRET) {
    if (!e.PROCTORING_CONSUMER_KEY) problems.push('PROCTORING_CONSUMER_KEY is required when PROCTORING_SECRET is set');
    if (!e.PROCTORING_SECRET) problems.push('PROCTORING_SECRET is required when PROCTORING_CONSUMER_KEY is set');
    if (e.PROCTORING_CONSUMER_KEY && e.PROCTORING_SECRET) {
      credentials = { consumerKey: e.PROCTORING_CONSUMER_KEY, secret: e.PROCTORING_SECRET };
    }
  }
  if (credentials && !e.PROCTORING_BASE_URL) {
    problems.push('PROCTORING_BASE_URL is required when proctoring credentials are set (the regional Launch API URL)');
  }

  if (production) {
    if (!e.PUBLIC_URL) problems.push("PUBLIC_URL is required in production (the tool's external https URL)");
    else if (!e.PUBLIC_URL.startsWith('https://')) problems.push('PUBLIC_URL must use https in production');
    if (!e.ENCRYPTION_KEY) problems.push('ENCRYPTION_KEY is required in production (at least 32 characters)');
    if (!e.DATABASE_URL) problems.push('DATABASE_URL is required in production (postgres://user:password@host:5432/database)');
    if (!credentials) {
      problems.push('PROCTORING_API_KEY, or PROCTORING_CONSUMER_KEY and PROCTORING_SECRET, are required in production');
    }
    if (!e.PROCTORING_BASE_URL) problems.push('PROCTORING_BASE_URL is required in production');
    if (!e.PROCTORING_REGION) problems.push(`PROCTORING_REGION is required in production (one of ${REGIONS.join(', ')})`);
  }

  if (e.SANDBOX === true) {
    if (production) problems.push('SANDBOX=1 cannot be used in production (the demo LMS launches as an administrator)');
    if (credentials) problems.push('SANDBOX=1 uses the built-in emulator: unset the PROCTORING_* credentials or SANDBOX');
  }

  const origins = e.CORS_ALLOWED_ORIGINS.split(',').map((o) => o.trim()).filter(Boolean);
  for (const origin of origins) {
    if (origin === '*') continue;
    try {
      const url = new URL(origin);
      if (url.origin !== origin) throw new Error('not an origin');
    } catch {
      problems.push(`CORS_ALLOWED_ORIGINS has "${origin}": each entry must be * or an origin like https://portal.example.com`);
    }
  }

  if (e.HTTP_HEADERS_TIMEOUT_SECONDS > e.HTTP_REQUEST_TIMEOUT_SECONDS) {
    problems.push('HTTP_HEADERS_TIMEOUT_SECONDS must not be longer than HTTP_REQUEST_TIMEOUT_SECONDS (the headers are part of the request)');
  }

  if (problems.length > 0) throw new ConfigError(problems);

  const encryptionKeys = [...new Set((e.ENCRYPTION_KEY ?? '').split(',').map((key) => key.trim()).filter(Boolean))];
  const publicUrl = new URL(e.PUBLIC_URL ?? `http://localhost:${e.PORT}`);
  publicUrl.pathname = publicUrl.pathname.replace(/\/+$/, '');
  publicUrl.search = '';
  publicUrl.hash = '';

  return {
    env: e.NODE_ENV,
    port: e.PORT,
    publicUrl,
    database: {
      url: e.DATABASE_URL,
      schema: e.DATABASE_SCHEMA,
      dataDir: e.DATA_DIR,
      poolSize: e.DATABASE_POOL_SIZE,
      migrations: e.DATABASE_MIGRATIONS,
      schemaWaitSeconds: e.DATABASE_SCHEMA_WAIT_SECONDS,
    },
    encryptionKey: encryptionKeys[0],
    encryptionKeys,
    proctoring: {
      baseUrl: e.PROCTORING_BASE_URL?.replace(/\/+$/, ''),
      region: e.PROCTORING_REGION,
      credentials,
      timeoutMs: e.PROCTORING_TIMEOUT_MS,
    },
    sandbox: !production && !credentials && (e.SANDBOX ?? !e.DATABASE_URL),
    sandboxExplicit: e.SANDBOX !== undefined,
    adminPassword: e.ADMIN_PASSWORD,
    logLevel: e.LOG_LEVEL,
    lti: {
      sessionMaxAgeSeconds: e.LTI_SESSION_MAX_AGE_SECONDS,
      clockSkewSeconds: e.LTI_CLOCK_SKEW_SECONDS,
      registrationLinkTtlSeconds: e.REGISTRATION_LINK_TTL_SECONDS,
    },
    trustProxyHops: e.TRUST_PROXY_HOPS,
    corsAllowedOrigins: origins.length > 0 ? origins : ['*'],
    hosted: { rosterCacheSeconds: e.ROSTER_CACHE_SECONDS, rosterFetchTimeoutMs: e.ROSTER_FETCH_TIMEOUT_MS },
    metricsToken: e.METRICS_TOKEN,
    rateLimits: {
      windowSeconds: e.RATE_LIMIT_WINDOW_SECONDS,
      login: e.RATE_LIMIT_LOGIN,
      launch: e.RATE_LIMIT_LAUNCH,
      register: e.RATE_LIMIT_REGISTER,
      hosted: e.RATE_LIMIT_HOSTED,
      webhooks: e.RATE_LIMIT_WEBHOOKS,
    },
    maxPendingLogins: e.MAX_PENDING_LOGINS,
    shutdownDelaySeconds: e.SHUTDOWN_DELAY_SECONDS,
    shutdownGraceSeconds: e.SHUTDOWN_GRACE_SECONDS,
    http: { headersSeconds: e.HTTP_HEADERS_TIMEOUT_SECONDS, requestSeconds: e.HTTP_REQUEST_TIMEOUT_SECONDS },
    retention: {
      launchLogDays: e.RETENTION_LAUNCH_LOG_DAYS,
      attemptDays: e.RETENTION_ATTEMPT_DAYS,
      webhookDeliveryDays: e.RETENTION_WEBHOOK_DELIVERY_DAYS,
      auditLogDays: e.RETENTION_AUDIT_LOG_DAYS,
      unclaimedExamDays: e.RETENTION_UNCLAIMED_EXAM_DAYS,
      courseStaffDays: e.RETENTION_COURSE_STAFF_DAYS,
      pruneIntervalMinutes: e.RETENTION_PRUNE_INTERVAL_MINUTES,
    },
  };
}

/**
 * What stops the web server from starting although the configuration is valid (the CLI does not need a
 * proctoring service): no proctoring service and no sandbox. Outside production that means DATABASE_URL is set
 * without proctoring credentials: the sandbox (a demo LMS that launches as an administrator, emulator controls
 * without authentication) is not started on a real database unless SANDBOX=1 asks for it.
 */
export function serverStartProblems(config: Config): string[] {
  if (config.sandbox || config.proctoring.credentials) return [];
  if (config.env === 'production') return [];
  if (config.database.url && !config.sandboxExplicit) {
    return [
      'DATABASE_URL is set but no proctoring credentials are: sandbox mode (demo LMS that launches as an administrator, emulator without authentication) does not start on a real database unless asked for. Set PROCTORING_BASE_URL with PROCTORING_API_KEY (or PROCTORING_CONSUMER_KEY and PROCTORING_SECRET), or SANDBOX=1 to run the sandbox on this database.',
    ];
  }
  return ['SANDBOX=0 needs a proctoring service: set PROCTORING_BASE_URL with PROCTORING_API_KEY (or PROCTORING_CONSUMER_KEY and PROCTORING_SECRET)'];
}

/** The URL of a path on the tool, e.g. `toolUrl(config, '/lti/launch')`. */
export function toolUrl(config: Pick<Config, 'publicUrl'>, path: string): string {
  return `${config.publicUrl.origin}${config.publicUrl.pathname.replace(/\/+$/, '')}${path}`;
}
