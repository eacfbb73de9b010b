import { z } from 'zod';
import { REGIONS, type Region } from '../config.js';
import { readCache } from '../db/read-cache.js';
import type { Queryable } from '../db/types.js';
import { propertyOf, type FieldProblem } from '../values.js';
import { lastFour, type SecretBox } from '../secrets/secret-box.js';
import type { ProctoringCredentials } from './api-key.js';

/**
 * Proctoring accounts: a platform (issuer + client id) may use its own account of the proctoring service —
 * its region's base URL and its own credentials — instead of the environment's default account
 * (PROCTORING_*). Universities with campuses in several regions need one per region.
 *
 * An account is referenced by its id, a short slug the administrator chooses (`eu-campus`); `default` always
 * means the environment's account. Credentials are sealed at rest and never returned after saving: only
 * their last four characters (`hint`).
 */
export const DEFAULT_ACCOUNT_ID = 'default';
export type AccountId = string;

export interface ProctoringAccount {
  id: AccountId;
  name: string;
  region: Region;
  baseUrl: string;
  credentialKind: 'api_key' | 'consumer_key';
  /** The consumer key (an identifier, not a secret), when the account uses consumer key + secret. */
  consumerKey?: string;
  /** Last four characters of the API key or secret ('' when it is too short to show any). */
  hint: string;
  createdAt: Date;
  updatedAt: Date;
}

/** Everything to call the service as this account. */
export interface AccountTarget {
  accountId: AccountId;
  baseUrl: string;
  region: Region;
  credentials: ProctoringCredentials;
  /** Changes whenever the account is saved: cached clients of an older version are replaced. */
  version: number;
}

export type { FieldProblem };

/** Input refused: each problem names the field and what is expected. Nothing was saved. */
export class AccountInputError extends Error {
  override readonly name = 'AccountInputError';
  constructor(readonly problems: FieldProblem[]) {
    super(`nothing was saved:\n${problems.map((p) => `  ${p.field}: ${p.message}`).join('\n')}`);
  }
}

export class AccountNotFoundError extends Error {
  override readonly name = 'AccountNotFoundError';
  constructor(readonly accountId: string) {
    super(`there is no proctoring account '${accountId}' (see \`proctor-lti account list\`)`);
  }
}

export class AccountInUseError extends Error {
  override readonly name = 'AccountInUseError';
  constructor(
    readonly accountId: string,
    readonly platforms: Array<{ issuer: string; clientId: string }>,
  ) {
    super(
      `account '${accountId}' is used by ${platforms.length} platform(s): ${platforms.map((p) => `${p.issuer} (client id ${p.clientId})`).join(', ')}; move them to another account first`,
    );
  }
}

const ACCOUNT_ID = /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/;
const NO_SPACE = /^\S+$/;

/** http only for this machine (the built-in emulator, tests); the service's regional URLs are https. */
function isAllowedBaseUrl(value: string): boolean {
  try {
    const url = new URL(value);
    if (url.search || url.hash || url.username || url.password) return false;
    if (url.protocol === 'https:') return true;
    return url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  } catch {
    return false;
  }
}

const credentialFields = {
  apiKey: z.string().trim().min(8, 'must be at least 8 characters').max(300).regex(NO_SPACE, 'must not contain spaces').optional(),
  consumerKey: z.string().trim().min(1).max(200).regex(NO_SPACE, 'must not contain spaces').optional(),
  secret: z.string().trim().min(1).max(300).regex(NO_SPACE, 'must not contain spaces').optional(),
};

/** The fields an administrator gives for an account (console form and CLI options alike). */
export const accountInputSchema = z.strictObject({
  id: z.string().trim().regex(ACCOUNT_ID, 'must be 1–40 lowercase letters, digits and dashes, such as eu-campus').refine((id) => id !== DEFAULT_ACCOUNT_ID, "'default' names the environment's account: choose another id"),
  name: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'),
  region: z.preprocess((value) => (typeof value === 'string' ? value.trim().toUpperCase() : value), z.enum(REGIONS, { error: `must be one of ${REGIONS.join(', ')}` })),
  baseUrl: z
    .string()
    .trim()
    .refine(isAllowedBaseUrl, "must be the https base URL of the Launch API of the account's region, such as https://eu.proctoring.example.com")
    .transform((value) => value.replace(/\/+$/, '')),
  ...credentialFields,
});
export type AccountInput = z.input<typeof accountInputSchema>;

/** A change: every field optional; credentials are replaced only when given. */
export const accountChangeSchema = accountInputSchema.omit({ id: true }).partial();
export type AccountChange = z.input<typeof accountChangeSchema>;

function problemsOf(error: z.ZodError): FieldProblem[] {
  return error.issues.map((issue) => ({ field: issue.path.join('.') || '(account)', message: issue.message }));
}

/** The credentials the fields describe: a ready API key, or a consumer key and secret — one or the other. */
export function credentialsFrom(fields: { apiKey?: string; consumerKey?: string; secret?: string }): ProctoringCredentials | FieldProblem[] {
  if (fields.apiKey) {
    if (fields.consumerKey || fields.secret) {
      return [{ field: 'apiKey', message: 'give either an API key, or a consumer key and secret, not both' }];
    }
    return { apiKey: fields.apiKey };
  }
  const { consumerKey, secret } = fields;
  if (consumerKey && secret) return { consumerKey, secret };
  const problems: FieldProblem[] = [];
  if (!consumerKey) problems.push({ field: 'consumerKey', message: 'required (or give a ready API key instead)' });
  if (!secret) problems.push({ field: 'secret', message: 'required with the consumer key (or give a ready API key instead)' });
  return problems;
}

/**
 * Validates a change; throws AccountInputError naming every wrong field. `credentials` is set when the change
 * replaces them (an API key, or a consumer key and secret).
 */
export function parseAccountChange(change: unknown): { fields: z.output<typeof accountChangeSchema>; credentials?: ProctoringCredentials } {
  const parsed = accountChangeSchema.safeParse(change);
  if (!parsed.success) throw new AccountInputError(problemsOf(parsed.error));
  const next = parsed.data;
  if (next.apiKey === undefined && next.consumerKey === undefined && next.secret === undefined) return { fields: next };
  const credentials = credentialsFrom(next);
  if (Array.isArray(credentials)) throw new AccountInputError(credentials);
  return { fields: next, credentials };
}

/** Validates a new account's fields; throws AccountInputError naming every wrong field. */
export function parseAccountInput(input: unknown): { fields: z.output<typeof accountInputSchema>; credentials: ProctoringCredentials } {
  const parsed = accountInputSchema.safeParse(input);
  if (!parsed.success) {
    // Missing credentials are named along with the other fields' problems, not in a second round.
    const problems = problemsOf(parsed.error);
    const given = (name: string) => {
      const value = propertyOf(input, name);
      return typeof value === 'string' && value.trim() ? value.trim() : undefined;
    };
    const credentials = credentialsFrom({ apiKey: given('apiKey'), consumerKey: given('consumerKey'), secret: given('secret') });
    if (Array.isArray(credentials)) problems.push(...credentials.filter((p) => !problems.some((known) => known.field === p.field)));
    throw new AccountInputError(problems);
  }
  const credentials = credentialsFrom(parsed.data);
  if (Array.isArray(credentials)) throw new AccountInputError(credentials);
  return { fields: parsed.data, credentials };
}

interface Row {
  id: string;
  name: string;
  region: Region;
  base_url: string;
  consumer_key: string | null;
  credentials_sealed: string;
  credential_hint: string;
  created_at: Date;
  updated_at: Date;
}

/** Credentials as they are sealed in a row: what `credentialsFrom` made, one kind or the other. */
const sealedCredentials: z.ZodType<ProctoringCredentials> = z.union([z.object({ apiKey: z.string() }), z.object({ consumerKey: z.string(), secret: z.string() })]);

const toAccount = (row: Row): ProctoringAccount => ({
  id: row.id,
  name: row.name,
  region: row.region,
  baseUrl: row.base_url,
  credentialKind: row.consumer_key === null ? 'api_key' : 'consumer_key',
  consumerKey: row.consumer_key ?? undefined,
  hint: row.credential_hint,
  createdAt: new Date(row.created_at),
  updatedAt: new Date(row.updated_at),
});

const hintOf = (credentials: ProctoringCredentials) => lastFour('apiKey' in credentials ? credentials.apiKey : credentials.secret);

export interface PlatformRef {
  issuer: string;
  clientId: string;
}

export interface ProctoringAccountStore {
  list(): Promise<ProctoringAccount[]>;
  get(id: AccountId): Promise<ProctoringAccount | undefined>;
  /** Throws AccountInputError (a wrong field, or the id is taken). */
  create(input: unknown): Promise<ProctoringAccount>;
  /** Throws AccountNotFoundError or AccountInputError. Credentials given replace the saved ones entirely. */
  update(id: AccountId, change: unknown): Promise<ProctoringAccount>;
  /** Throws AccountInUseError while a platform uses it. */
  remove(id: AccountId): Promise<boolean>;
  /** The account's base URL and opened credentials; undefined when there is no such account. */
  target(id: AccountId): Promise<AccountTarget | undefined>;
  /** The account a platform uses, or `default`; the version identifies the account's saved state. */
  accountOf(platform: PlatformRef): Promise<{ accountId: AccountId; version: number }>;
  /** Makes a platform use an account (`default`: the environment's). Throws AccountNotFoundError. */
  assign(platform: PlatformRef, accountId: AccountId): Promise<{ previous: AccountId }>;
  /** Every platform that uses an account of its own. */
  assignments(): Promise<Array<PlatformRef & { accountId: AccountId }>>;
}

export function createAccountStore(db: Queryable, box: SecretBox): ProctoringAccountStore {
  const select = 'SELECT id, name, region, base_url, consumer_key, credentials_sealed, credential_hint, created_at, updated_at FROM proctoring_accounts';
  const assignedAccounts = readCache<{ accountId: string; version: number }>(db, 'platform-accounts');
  async function row(id: string): Promise<Row | undefined> {
    return (await db.query<Row>(`${select} WHERE id = $1`, [id])).rows[0];
  }
  async function platformsOf(id: string): Promise<PlatformRef[]> {
    const { rows } = await db.query<{ issuer: string; client_id: string }>(
      'SELECT issuer, client_id FROM platform_proctoring_accounts WHERE account_id = $1 ORDER BY issuer, client_id',
      [id],
    );
    return rows.map((r) => ({ issuer: r.issuer, clientId: r.client_id }));
  }

  return {
    async list() {
      return (await db.query<Row>(`${select} ORDER BY id`)).rows.map(toAccount);
    },
    async get(id) {
      const found = await row(id);
      return found ? toAccount(found) : undefined;
    },
    async create(input) {
      const { fields, credentials } = parseAccountInput(input);
      const result = await db.query<Row>(
        `INSERT INTO proctoring_accounts (id, name, region, base_url, consumer_key, credentials_sealed, credential_hint)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING
         RETURNING id, name, region, base_url, consumer_key, credentials_sealed, credential_hint, created_at, updated_at`,
        [fields.id, fields.name, fields.region, fields.baseUrl, 'consumerKey' in credentials ? credentials.consumerKey : null, box.seal(JSON.stringify(credentials)), hintOf(credentials)],
      );
      const created = result.rows[0];
      if (!created) throw new AccountInputError([{ field: 'id', message: `an account '${fields.id}' exists already: choose another id, or change that one` }]);
      return toAccount(created);
    },
    async update(id, change) {
      const current = await row(id);
      if (!current) throw new AccountNotFoundError(id);
      const { fields: next, credentials } = parseAccountChange(change);
      let sealed = current.credentials_sealed;
      let hint = current.credential_hint;
      let consumerKey = current.consumer_key;
      if (credentials) {
        sealed = box.seal(JSON.stringify(credentials));
        hint = hintOf(credentials);
        consumerKey = 'consumerKey' in credentials ? credentials.consumerKey : null;
      }
      // clock_timestamp(): two saves in one transaction still get different versions.
      const result = await db.query<Row>(
        `UPDATE proctoring_accounts SET name = $2, region = $3, base_url = $4, consumer_key = $5, credentials_sealed = $6,
           credential_hint = $7, updated_at = greatest(clock_timestamp(), updated_at + interval '1 millisecond')
         WHERE id = $1
         RETURNING id, name, region, base_url, consumer_key, credentials_sealed, credential_hint, created_at, updated_at`,
        [id, next.name ?? current.name, next.region ?? current.region, next.baseUrl ?? current.base_url, consumerKey, sealed, hint],
      );
      assignedAccounts.clear();
      const updated = result.rows[0];
      if (!updated) throw new AccountNotFoundError(id);
      return toAccount(updated);
    },
    async remove(id) {
      const users = await platformsOf(id);
      if (users.length > 0) throw new AccountInUseError(id, users);
      const removed = (await db.query('DELETE FROM proctoring_accounts WHERE id = $1', [id])).rowCount > 0;
      assignedAccounts.clear();
      return removed;
    },
    async target(id) {
      const found = await row(id);
      if (!found) return undefined;
      return {
        accountId: found.id,
        baseUrl: found.base_url,
        region: found.region,
        credentials: sealedCredentials.parse(JSON.parse(box.open(found.credentials_sealed))),
        version: new Date(found.updated_at).getTime(),
      };
    },
    async accountOf(platform) {
      // Every launch asks: reused for a few seconds (db/read-cache.ts); every change of accounts clears it.
      const found = await assignedAccounts.get(JSON.stringify([platform.issuer, platform.clientId]), async () => {
        const { rows } = await db.query<{ id: string; updated_at: Date }>(
          `SELECT a.id, a.updated_at FROM platform_proctoring_accounts p JOIN proctoring_accounts a ON a.id = p.account_id
           WHERE p.issuer = $1 AND p.client_id = $2`,
          [platform.issuer, platform.clientId],
        );
        const row = rows[0];
        return row ? { accountId: row.id, version: new Date(row.updated_at).getTime() } : { accountId: DEFAULT_ACCOUNT_ID, version: 0 };
      });
      return { ...found };
    },
    async assign(platform, accountId) {
      const previous = (await this.accountOf(platform)).accountId;
      if (accountId === DEFAULT_ACCOUNT_ID) {
        await db.query('DELETE FROM platform_proctoring_accounts WHERE issuer = $1 AND client_id = $2', [platform.issuer, platform.clientId]);
        assignedAccounts.clear();
        return { previous };
      }
      if (!(await row(accountId))) throw new AccountNotFoundError(accountId);
      await db.query(
        `INSERT INTO platform_proctoring_accounts (issuer, client_id, account_id) VALUES ($1, $2, $3)
         ON CONFLICT (issuer, client_id) DO UPDATE SET account_id = EXCLUDED.account_id, updated_at = now()`,
        [platform.issuer, platform.clientId, accountId],
      );
      assignedAccounts.clear();
      return { previous };
    },
    async assignments() {
      const { rows } = await db.query<{ issuer: string; client_id: string; account_id: string }>(
        'SELECT issuer, client_id, account_id FROM platform_proctoring_accounts ORDER BY issuer, client_id',
      );
      return rows.map((r) => ({ issuer: r.issuer, clientId: r.client_id, accountId: r.account_id }));
    },
  };
}

/** Re-seals every account's credentials with the newest key (key rotation); returns how many were rewritten. */
export async function resealAccounts(tx: Queryable, box: SecretBox): Promise<number> {
  const { rows } = await tx.query<{ id: string; credentials_sealed: string }>('SELECT id, credentials_sealed FROM proctoring_accounts ORDER BY id FOR UPDATE');
  let count = 0;
  for (const account of rows) {
    if (box.isCurrent(account.credentials_sealed)) continue;
    await tx.query('UPDATE proctoring_accounts SET credentials_sealed = $2 WHERE id = $1', [account.id, box.seal(box.open(account.credentials_sealed))]);
    count++;
  }
  return count;
}
