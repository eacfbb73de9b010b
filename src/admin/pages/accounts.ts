import type { Request, Response } from 'express';
import { z } from 'zod';
import { parseBody, textField } from '../../http/request-input.js';
import { translatorOf } from '../../i18n/middleware.js';
import { wording } from '../../i18n/index.js';
import { REGIONS } from '../../config.js';
import { platformKey } from '../../lti/identifiers.js';
import type { FieldProblem } from '../../lti/platform-input.js';
import type { PlatformSummary } from '../../lti/provider.js';
import type { ConnectionTarget, ConnectionTestResult } from '../../proctoring/account-clients.js';
import { AccountInputError, DEFAULT_ACCOUNT_ID, parseAccountChange, parseAccountInput, type ProctoringAccount } from '../../proctoring/accounts.js';
import { accountChange, accountChanges, ACCOUNT_FORM, blankAccountForm, accountFormOf, labelled, newAccountInput, type AccountForm } from '../account-form.js';
import { textOf } from '../i18n.js';
import { adminPage } from '../page.js';
import type { AdminContext } from '../registry.js';
import { describePlatform, findPlatform, platformKeyOf } from './platforms.js';

const CHOSEN_ACCOUNT_FORM = z.object({ accountId: textField });

interface EditState {
  form?: AccountForm;
  problems?: FieldProblem[];
  /** A connection test's answer; `notSaved`: the test of a save, which the service refused (nothing changed). */
  test?: ConnectionTestResult & { notSaved?: boolean };
}

/** The platform's account (undefined: the environment's default), and the other platforms sharing it. */
async function accountOfPlatform(context: AdminContext, platform: PlatformSummary) {
  const { accountId } = await context.accounts.accountOf(platform);
  if (accountId === DEFAULT_ACCOUNT_ID) return { account: undefined, sharedWith: [] };
  const account = await context.accounts.get(accountId);
  const sharedWith = (await context.accounts.assignments()).filter((a) => a.accountId === accountId && !(a.issuer === platform.issuer && a.clientId === platform.clientId));
  return { account, sharedWith };
}

/** A suggested id for a platform's first own account: its name as a slug. */
const suggestedId = (platform: PlatformSummary) =>
  platform.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40).replace(/-+$/, '') || 'campus';

async function renderEdit(context: AdminContext, req: Request, res: Response, platform: PlatformSummary, state: EditState = {}) {
  const { account, sharedWith } = await accountOfPlatform(context, platform);
  const others = (await context.accounts.list()).filter((a) => a.id !== account?.id);
  const form = state.form ?? (account ? accountFormOf(account) : { ...blankAccountForm(), id: suggestedId(platform) });
  context.render(req, res, 'admin/accounts/edit', {
    title: textOf(res)('admin:accounts.pageTitle', { name: platform.name }),
    platform,
    key: platformKey(platform.issuer, platform.clientId),
    account,
    sharedWith,
    others,
    form,
    regions: REGIONS,
    problems: state.problems ?? [],
    test: state.test,
    defaultDescription: context.config.sandbox ? textOf(res)('admin:accounts.edit.sandboxDefault') : (context.config.proctoring.baseUrl ?? ''),
  });
}

/**
 * Proctoring accounts per platform: each platform uses its own account of the proctoring service (region,
 * base URL, credentials) or the environment's default one. Credentials are write-only (last four characters
 * shown); "Test connection" calls the service and explains its answer.
 */
export const accountsPage = adminPage(
  { id: 'accounts', path: '/accounts', navOrder: 30 },
  (routes, context) => {
    routes.get('/', async (req, res) => {
      const [platforms, accounts, assignments] = await Promise.all([context.lti.platforms.list(), context.accounts.list(), context.accounts.assignments()]);
      const byId = new Map(accounts.map((a) => [a.id, a]));
      context.render(req, res, 'admin/accounts/index', {
        title: textOf(res)('admin:accounts.title'),
        platforms: platforms.map((p) => {
          const assigned = assignments.find((a) => a.issuer === p.issuer && a.clientId === p.clientId);
          return { ...p, key: platformKey(p.issuer, p.clientId), account: assigned ? byId.get(assigned.accountId) : undefined };
        }),
        accounts: accounts.map((a) => ({ ...a, users: assignments.filter((u) => u.accountId === a.id).length })),
      });
    });

    routes.get('/:key', async (req, res) => {
      await renderEdit(context, req, res, await findPlatform(context, platformKeyOf(req)));
    });

    routes.post('/:key', async (req, res) => {
      const platform = await findPlatform(context, platformKeyOf(req));
      const form = parseBody(ACCOUNT_FORM, req);
      const { account } = await accountOfPlatform(context, platform);
      const refuse = async (problems: FieldProblem[]) => {
        res.status(400);
        await renderEdit(context, req, res, platform, { form: { ...form, secret: '', apiKey: '' }, problems: problems.map((problem) => labelled(textOf(res), problem)) });
      };
      const refuseByService = async (result: ConnectionTestResult) => {
        res.status(400);
        const test = { ...result, message: result.words(translatorOf(req, res)), notSaved: true };
        await renderEdit(context, req, res, platform, { form: { ...form, secret: '', apiKey: '' }, test });
      };
      let tested = false;
      try {
        if (account) {
          const change = await accountChange(form, account, context.accounts);
          if (!change.ok) return await refuse(change.problems);
          // Where or as whom the account connects changes: the service must accept the new values before they replace the old ones.
          const candidate = await connectionAfter(context, account, change.change);
          if (candidate) {
            const result = await context.accountClients.testCandidate(account.id, candidate);
            if (!result.ok) return await refuseByService(result);
            tested = true;
          }
          const updated = await context.accounts.update(account.id, change.change);
          const changes = accountChanges(account, updated, change.credentials);
          if (changes.length > 0) await context.recordChange(req, { action: 'account.update', target: updated.id, changes });
        } else {
          const input = newAccountInput(form);
          const { fields, credentials } = parseAccountInput(input);
          if (await context.accounts.get(fields.id)) return await refuse([{ field: 'id', message: `an account '${fields.id}' exists already: choose another id, or change that one` }]);
          const result = await context.accountClients.testCandidate(fields.id, { baseUrl: fields.baseUrl, region: fields.region, credentials });
          if (!result.ok) return await refuseByService(result);
          tested = true;
          const created = await context.accounts.create(input);
          await context.recordChange(req, { action: 'account.add', target: created.id, changes: accountChanges(undefined, created, true) });
          await assign(context, req, platform, created.id);
        }
      } catch (error) {
        if (error instanceof AccountInputError) return await refuse(error.problems);
        throw error;
      }
      res.redirect(303, `/admin/accounts/${platformKeyOf(req)}?done=${tested ? 'account-tested' : 'account-saved'}`);
    });

    routes.post('/:key/use', async (req, res) => {
      const platform = await findPlatform(context, platformKeyOf(req));
      const { accountId } = parseBody(CHOSEN_ACCOUNT_FORM, req);
      if (accountId !== DEFAULT_ACCOUNT_ID && !(await context.accounts.get(accountId))) {
        res.status(400);
        await renderEdit(context, req, res, platform, { problems: [{ field: 'accountId', message: textOf(res)('admin:accounts.problems.chooseListed') }] });
        return;
      }
      await assign(context, req, platform, accountId);
      res.redirect(303, `/admin/accounts/${platformKeyOf(req)}?done=account-chosen`);
    });

    routes.post('/:key/remove', async (req, res) => {
      const platform = await findPlatform(context, platformKeyOf(req));
      const { account, sharedWith } = await accountOfPlatform(context, platform);
      if (account) {
        await assign(context, req, platform, DEFAULT_ACCOUNT_ID);
        // An account no other platform uses goes with it: its credentials are not kept around.
        if (sharedWith.length === 0 && (await context.accounts.remove(account.id))) {
          await context.recordChange(req, { action: 'account.remove', target: account.id, changes: accountRemoval(account) });
        }
      }
      res.redirect(303, `/admin/accounts/${platformKeyOf(req)}?done=account-removed`);
    });

    routes.post('/:key/test', async (req, res) => {
      const platform = await findPlatform(context, platformKeyOf(req));
      const { account } = await accountOfPlatform(context, platform);
      const accountId = account?.id ?? DEFAULT_ACCOUNT_ID;
      let test: ConnectionTestResult;
      try {
        const result = await context.accountClients.testConnection(accountId);
        test = { ...result, message: result.words(translatorOf(req, res)) };
      } catch (error) {
        context.loggerOf(req).warn({ err: error, accountId }, 'proctoring connection test could not run');
        const words = wording('admin:accounts.edit.testNotRun', { reason: error instanceof Error ? error.message : String(error) });
        test = { ok: false, accountId, baseUrl: account?.baseUrl ?? '', code: 'not_run', message: words(translatorOf(req, res)), words };
      }
      await renderEdit(context, req, res, platform, { test });
    });
  },
);

/**
 * Where and as whom a saved account would connect after a change, when the change touches that (base URL,
 * region or credentials); undefined when it does not (a new name). Throws AccountInputError for a wrong field.
 */
async function connectionAfter(context: AdminContext, account: ProctoringAccount, change: Record<string, string | undefined>): Promise<ConnectionTarget | undefined> {
  const { fields, credentials } = parseAccountChange(change);
  const baseUrl = fields.baseUrl ?? account.baseUrl;
  const region = fields.region ?? account.region;
  if (baseUrl === account.baseUrl && region === account.region && !credentials) return undefined;
  const saved = await context.accounts.target(account.id);
  if (!saved) return undefined;
  return { baseUrl, region, credentials: credentials ?? saved.credentials };
}

async function assign(context: AdminContext, req: Request, platform: PlatformSummary, accountId: string): Promise<void> {
  const { previous } = await context.accounts.assign(platform, accountId);
  if (previous !== accountId) await context.recordChange(req, { action: 'platform.account', target: describePlatform(platform), changes: [{ field: 'account', old: previous, new: accountId }] });
}

const accountRemoval = (account: ProctoringAccount) => [
  { field: 'name', old: account.name },
  { field: 'region', old: account.region },
  { field: 'baseUrl', old: account.baseUrl },
];
