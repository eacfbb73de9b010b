import type { Request, Response } from 'express';
import { z } from 'zod';
import { parseBody, parseQuery, trimmedField } from '../../http/request-input.js';
import { DEFAULT_ACCOUNT_ID } from '../../proctoring/accounts.js';
import { webhookErrorInWords } from '../../webhooks/errors.js';
import { UNMATCHED_REASONS } from '../../webhooks/matching.js';
import type { SubscriptionListing, SubscriptionTarget } from '../../webhooks/subscriptions.js';
import { textOf, type Translate } from '../i18n.js';
import { translatorOf } from '../../i18n/middleware.js';
import type { Wording } from '../../i18n/index.js';
import { adminPage } from '../page.js';

/** Unmatched deliveries shown per page. */
export const UNMATCHED_PAGE_SIZE = 50;

const LIST_QUERY = z.object({ page: z.coerce.number().int().min(1).max(10_000).catch(1) });
/** After "Subscribe" found this tool already subscribed: which account, which version. */
const ALREADY_QUERY = z.object({
  done: z.string().optional().catch(undefined),
  account: z.string().max(100).optional().catch(undefined),
  version: z.enum(['2', '3']).optional().catch(undefined),
});
const SUBSCRIBE_FORM = z.object({ account: trimmedField, version: trimmedField });
const SUBSCRIPTION = z.object({ account: trimmedField, id: trimmedField.transform((id) => id.slice(0, 200)) });

interface AccountSection {
  ref: string;
  label: string;
  listing?: SubscriptionListing;
  /** Why the service's list could not be read, in words. */
  error?: string;
}

/** Where a subscription sends, in the administrator's language (keys of `admin:webhooks.targets`). */
const TARGET_KEYS: Readonly<Record<SubscriptionTarget, string>> = {
  'this-tool': 'thisTool',
  'this-tool-unknown': 'thisToolUnknown',
  elsewhere: 'elsewhere',
};
/** Why a delivery matched nothing (the codes of src/webhooks/matching.ts), in the administrator's language. */
const REASON_KEYS: Readonly<Record<string, string>> = {
  unmatched_unknown_attempt: 'unknownAttempt',
  unmatched_attempt_of_another_account: 'attemptOfAnotherAccount',
  unmatched_no_attempt_or_user: 'noAttemptOrUser',
  unmatched_unknown_user_or_exam: 'unknownUserOrExam',
  unmatched_ambiguous_user: 'ambiguousUser',
};
function unmatchedReason(t: Translate, problems: readonly string[]): string {
  const code = problems.find((problem) => REASON_KEYS[problem] && UNMATCHED_REASONS[problem]);
  return t(`admin:webhooks.reasons.${code ? REASON_KEYS[code] : 'none'}`);
}
const targetLabels = (t: Translate) => Object.fromEntries(Object.entries(TARGET_KEYS).map(([target, key]) => [target, t(`admin:webhooks.targets.${key}`)]));

/** Failures of a subscription call meant for the administrator (the service's answer, an unknown account). */
class ShownError extends Error {
  constructor(readonly words: Wording) {
    super('shown to the administrator');
  }
}

/**
 * Webhooks: per proctoring account (the environment's and each per-platform one) the subscriptions the service
 * lists, marked by where they send, with deliveries and refusals; subscribe (version 3, or 2) and unsubscribe
 * (after a confirmation page); deliveries that matched no attempt, with the reason, 50 per page.
 */
export const webhooksPage = adminPage(
  { id: 'webhooks', path: '/webhooks', navOrder: 70 },
  (routes, context) => {
    async function accountRefs(t: Translate): Promise<Array<{ ref: string; label: string }>> {
      const accounts = await context.accounts.list();
      return [
        { ref: DEFAULT_ACCOUNT_ID, label: t(context.config.sandbox ? 'admin:webhooks.sandboxAccount' : 'admin:webhooks.environmentAccount') },
        ...accounts.map((account) => ({ ref: account.id, label: t('admin:webhooks.accountLabel', { name: account.name, id: account.id, region: account.region }) })),
      ];
    }

    /** Runs a call to the service; its refusal (or an unknown account) becomes a ShownError with the cause in words. */
    async function explained<T>(work: () => Promise<T>): Promise<T> {
      try {
        return await work();
      } catch (error) {
        const words = webhookErrorInWords(error);
        if (words === undefined) throw error;
        throw new ShownError(words);
      }
    }

    async function render(req: Request, res: Response, locals: { failure?: { action: string; account: string; message: string } } = {}) {
      const { page } = parseQuery(LIST_QUERY, req);
      const t = textOf(res);
      const refs = await accountRefs(t);
      const sections: AccountSection[] = await Promise.all(
        refs.map(async ({ ref, label }) => {
          try {
            return { ref, label, listing: await explained(() => context.webhooks.list(ref)) };
          } catch (error) {
            if (!(error instanceof ShownError)) throw error;
            return { ref, label, error: error.words(translatorOf(req, res)) };
          }
        }),
      );
      const { deliveries, total } = await context.webhooks.unmatched({ limit: UNMATCHED_PAGE_SIZE, offset: (page - 1) * UNMATCHED_PAGE_SIZE });
      const asked = parseQuery(ALREADY_QUERY, req);
      const alreadyAccount = asked.done === 'webhook-already' ? refs.find((ref) => ref.ref === asked.account) : undefined;
      const already = alreadyAccount && asked.version ? t('admin:notices.webhookAlready', { account: alreadyAccount.label, version: asked.version }) : undefined;
      context.render(req, res, 'admin/webhooks/index', {
        title: t('admin:webhooks.title'),
        sections,
        targetLabels: targetLabels(t),
        unmatched: deliveries.map((delivery) => ({ ...delivery, reason: unmatchedReason(t, delivery.problems) })),
        unmatchedTotal: total,
        page,
        pages: Math.max(1, Math.ceil(total / UNMATCHED_PAGE_SIZE)),
        accountLabels: Object.fromEntries(refs.map(({ ref, label }) => [ref, label])),
        failure: locals.failure,
        already,
      });
    }

    async function knownAccount(t: Translate, ref: string): Promise<{ ref: string; label: string } | undefined> {
      return (await accountRefs(t)).find((account) => account.ref === ref);
    }

    routes.get('/', (req, res) => render(req, res));

    routes.post('/subscribe', async (req, res) => {
      const form = parseBody(SUBSCRIBE_FORM, req);
      const t = textOf(res);
      const account = await knownAccount(t, form.account);
      const version = form.version || '3';
      if (!account || (version !== '2' && version !== '3')) {
        res.status(400);
        await render(req, res, { failure: { action: t('admin:webhooks.actions.subscribing'), account: account?.label ?? t('admin:webhooks.unknownAccount'), message: t(account ? 'admin:webhooks.badVersion' : 'admin:webhooks.noSuchAccount') } });
        return;
      }
      try {
        const { created, record } = await explained(() => context.webhooks.subscribeOnce({ accountRef: account.ref, version }));
        if (!created) {
          res.redirect(303, `/admin/webhooks?${new URLSearchParams({ done: 'webhook-already', account: account.ref, version })}`);
          return;
        }
        await context.recordChange(req, {
          action: 'webhook.subscribe',
          target: `account ${account.ref}`,
          changes: [
            { field: 'subscription', new: record.upstreamId },
            { field: 'version', new: record.version },
          ],
        });
        res.redirect(303, '/admin/webhooks?done=webhook-subscribed');
      } catch (error) {
        if (!(error instanceof ShownError)) throw error;
        res.status(502);
        await render(req, res, { failure: { action: t('admin:webhooks.actions.subscribing'), account: account.label, message: error.words(translatorOf(req, res)) } });
      }
    });

    routes.get('/unsubscribe', async (req, res) => {
      const t = textOf(res);
      const chosen = parseQuery(SUBSCRIPTION, req);
      const account = await knownAccount(t, chosen.account);
      const id = chosen.id;
      if (!account || !id) {
        res.redirect(303, '/admin/webhooks');
        return;
      }
      let listing: SubscriptionListing;
      try {
        listing = await explained(() => context.webhooks.list(account.ref));
      } catch (error) {
        if (!(error instanceof ShownError)) throw error;
        res.status(502);
        await render(req, res, { failure: { action: t('admin:webhooks.actions.reading'), account: account.label, message: error.words(translatorOf(req, res)) } });
        return;
      }
      const subscription = listing.subscriptions.find((item) => item.upstreamId === id);
      context.render(req, res, 'admin/webhooks/unsubscribe', { title: t('admin:webhooks.unsubscribe.pageTitle'), account, id, subscription, targetLabels: targetLabels(t) });
    });

    routes.post('/unsubscribe', async (req, res) => {
      const chosen = parseBody(SUBSCRIPTION, req);
      const t = textOf(res);
      const account = await knownAccount(t, chosen.account);
      const id = chosen.id;
      if (!account || !id) {
        res.status(400);
        await render(req, res, { failure: { action: t('admin:webhooks.actions.unsubscribing'), account: account?.label ?? t('admin:webhooks.unknownAccount'), message: t(account ? 'admin:webhooks.noSubscription' : 'admin:webhooks.noSuchAccount') } });
        return;
      }
      try {
        const result = await explained(() => context.webhooks.unsubscribe({ accountRef: account.ref, id }));
        await context.recordChange(req, { action: 'webhook.unsubscribe', target: `account ${account.ref}`, changes: [{ field: 'subscription', old: result.upstreamId }] });
        res.redirect(303, '/admin/webhooks?done=webhook-unsubscribed');
      } catch (error) {
        if (!(error instanceof ShownError)) throw error;
        res.status(502);
        await render(req, res, { failure: { action: t('admin:webhooks.actions.unsubscribing'), account: account.label, message: error.words(translatorOf(req, res)) } });
      }
    });
  },
);

