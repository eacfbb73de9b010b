import { z } from 'zod';
import { trimmedField } from '../http/request-input.js';
import type { FieldProblem } from '../lti/platform-input.js';
import type { ProctoringAccount, ProctoringAccountStore } from '../proctoring/accounts.js';
import type { AuditChange } from './audit.js';
import type { Translate } from './i18n.js';

/**
 * The console's proctoring-account form: what it submits, and how that becomes the account store's input
 * (the same `create`/`update` and checks the CLI's `account add|update` use). Secrets are write-only: an
 * empty secret field keeps the saved one.
 */
export type CredentialKind = 'consumer_key' | 'api_key';

export interface AccountForm {
  id: string;
  name: string;
  region: string;
  baseUrl: string;
  credentialKind: CredentialKind;
  consumerKey: string;
  /** Never shown back: the form always renders it empty. */
  secret: string;
  apiKey: string;
}

/** The form fields' labels: keys of `admin:problems.labels`. */
export const ACCOUNT_FIELD_LABELS: Record<string, string> = {
  id: 'accountId',
  name: 'name',
  region: 'region',
  baseUrl: 'baseUrl',
  consumerKey: 'consumerKey',
  secret: 'secret',
  apiKey: 'apiKey',
};

/** The form as it is posted: every field trimmed, a missing one empty. */
export const ACCOUNT_FORM = z.object({
  id: trimmedField,
  name: trimmedField,
  region: trimmedField,
  baseUrl: trimmedField,
  credentialKind: trimmedField.transform((kind): CredentialKind => (kind === 'api_key' ? 'api_key' : 'consumer_key')),
  consumerKey: trimmedField,
  secret: trimmedField,
  apiKey: trimmedField,
}) satisfies z.ZodType<AccountForm>;

/** The form with nothing filled in. */
export const blankAccountForm = (): AccountForm => ACCOUNT_FORM.parse({});

/** The form as the page shows it for a saved account (secrets empty). */
export function accountFormOf(account: ProctoringAccount): AccountForm {
  return {
    id: account.id,
    name: account.name,
    region: account.region,
    baseUrl: account.baseUrl,
    credentialKind: account.credentialKind,
    consumerKey: account.consumerKey ?? '',
    secret: '',
    apiKey: '',
  };
}

/**
 * A problem in the administrator's language: the form's own problems (with a code) from the catalog; a problem
 * of the store (English, shared with the CLI) labelled with the form field's name: "Base URL: must be …".
 */
export function labelled(t: Translate, problem: FieldProblem): FieldProblem {
  if (problem.code) return { field: problem.field, message: t(`admin:accounts.problems.${problem.code}`) };
  const label = ACCOUNT_FIELD_LABELS[problem.field];
  return label ? { field: problem.field, message: `${t(`admin:problems.labels.${label}`)}: ${problem.message}` } : problem;
}

/** The fields for `store.create`: only the chosen kind's credentials. */
export function newAccountInput(form: AccountForm): Record<string, string | undefined> {
  const credentials = form.credentialKind === 'api_key' ? { apiKey: form.apiKey || undefined } : { consumerKey: form.consumerKey || undefined, secret: form.secret || undefined };
  return { id: form.id, name: form.name, region: form.region, baseUrl: form.baseUrl, ...credentials };
}

/**
 * The change for `store.update`. Credentials are replaced only when a secret or API key is typed, or the
 * consumer key changes (then an empty secret keeps the saved one, read from the store, never from the form).
 * `credentials` says whether the change replaces them.
 */
export async function accountChange(
  form: AccountForm,
  saved: ProctoringAccount,
  store: Pick<ProctoringAccountStore, 'target'>,
): Promise<{ ok: true; change: Record<string, string | undefined>; credentials: boolean } | { ok: false; problems: FieldProblem[] }> {
  const change: Record<string, string | undefined> = { name: form.name, region: form.region, baseUrl: form.baseUrl };
  if (form.credentialKind === 'api_key') {
    if (form.apiKey) return { ok: true, change: { ...change, apiKey: form.apiKey }, credentials: true };
    if (saved.credentialKind === 'api_key') return { ok: true, change, credentials: false };
    return { ok: false, problems: [{ field: 'apiKey', message: 'required to change this account to a ready API key (or keep consumer key and secret)', code: 'apiKeyRequired' }] };
  }
  const keyChanged = form.consumerKey !== (saved.consumerKey ?? '');
  if (!form.secret && !keyChanged && saved.credentialKind === 'consumer_key') return { ok: true, change, credentials: false };
  let secret = form.secret || undefined;
  if (!secret && saved.credentialKind === 'consumer_key') {
    const target = await store.target(saved.id);
    if (target && 'secret' in target.credentials) secret = target.credentials.secret;
  }
  return { ok: true, change: { ...change, consumerKey: form.consumerKey || undefined, secret }, credentials: true };
}

/** Old → new of an account for the audit log; credentials only as "(changed)". */
export function accountChanges(before: ProctoringAccount | undefined, after: ProctoringAccount, credentialsTouched: boolean): AuditChange[] {
  const changes: AuditChange[] = (['name', 'region', 'baseUrl'] as const)
    .filter((field) => before?.[field] !== after[field])
    .map((field) => ({ field, old: before?.[field], new: after[field] }));
  if (credentialsTouched || !before) changes.push({ field: 'credentials', old: before ? '(saved)' : undefined, new: before ? '(changed)' : '(set)' });
  return changes;
}
