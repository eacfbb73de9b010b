import { InvalidArgumentError, type Command } from 'commander';
import { forTerminal, jsonForTerminal } from '../text/control-characters.js';
import type { SubscriptionService } from '../webhooks/subscriptions.js';
import { recordChange } from './audit.js';
import type { Context, WithWebhooks } from './context.js';
import { err, fail, out } from './io.js';

interface AccountOptions {
  issuer?: string;
  clientId?: string;
  account?: string;
}

const version = (value: string) => {
  if (value !== '2' && value !== '3') throw new InvalidArgumentError('--version must be 2 or 3');
  return value;
};

const limit = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 500) throw new InvalidArgumentError('--limit must be a whole number from 1 to 500');
  return n;
};

/** `--issuer` + `--client-id` (the platform's account) or `--account`; neither: the environment's default account. */
function accountOptions(command: Command): Command {
  return command
    .option('--issuer <url>', "with --client-id: the account this platform uses (its own, or the environment's)")
    .option('--client-id <id>', 'with --issuer: the client id the LMS gave the tool')
    .option('--account <id>', "a proctoring account by id ('default': the environment's)");
}

/** The account the options name; a platform must be registered. Throws with a message for the administrator. */
async function accountOf(subscriptions: SubscriptionService, options: AccountOptions, db: Context['db']): Promise<string | undefined> {
  const platformGiven = options.issuer !== undefined || options.clientId !== undefined;
  if (platformGiven && options.account !== undefined) throw new Error('give either --issuer and --client-id, or --account');
  if (!platformGiven) return options.account;
  if (options.issuer === undefined || options.clientId === undefined) throw new Error('--issuer and --client-id go together');
  const { isRegisteredPlatform } = await import('../lti/store/registered-platforms.js');
  if (!(await isRegisteredPlatform(db, options.issuer, options.clientId))) {
    throw new Error(forTerminal(`no platform ${options.issuer} (client id ${options.clientId}) is registered (see \`proctor-lti platform list\`)`));
  }
  return subscriptions.accountOfPlatform({ issuer: options.issuer, clientId: options.clientId });
}

/** Runs a command's work; a refusal by the proctoring service (or an unknown account) is printed in words. */
async function explained(work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    const [{ webhookErrorInWords }, { translator, DEFAULT_LOCALE }] = await Promise.all([import('../webhooks/errors.js'), import('../i18n/index.js')]);
    const words = webhookErrorInWords(error);
    if (words === undefined) throw error;
    err(forTerminal(`Error: ${words(translator(DEFAULT_LOCALE))}`));
    fail();
  }
}

const when = (date: Date | undefined) => (date ? date.toISOString().replace('T', ' ').slice(0, 19) : 'never');

/** `webhooks subscribe|list|unsubscribe|unmatched`: suspicion-result subscriptions per proctoring account. */
export function addWebhookCommands(program: Command, withWebhooks: WithWebhooks): void {
  const webhooks = program
    .command('webhooks')
    .description("suspicion-result webhooks: the tool's receiver subscribed at the proctoring service, per proctoring account");

  accountOptions(webhooks.command('subscribe').description("subscribe the tool's receiver (a new unguessable URL with its own key) to suspicion results"))
    .option('--version <2|3>', 'the notification version: 3 (default) adds the candidate, submission and flags', version, '3')
    .action(async (options: AccountOptions & { version: '2' | '3' }) => {
      await withWebhooks(async (subscriptions, { db }) =>
        explained(async () => {
          const accountRef = (await accountOf(subscriptions, options, db)) ?? 'default';
          const record = await subscriptions.subscribe({ accountRef, version: options.version });
          await recordChange(db, {
            action: 'webhook.subscribe',
            target: `account ${accountRef}`,
            changes: [
              { field: 'subscription', new: record.upstreamId },
              { field: 'version', new: record.version },
            ],
          });
          out(forTerminal(`Subscribed this tool's receiver (account ${accountRef}, version ${record.version}); the service's id is ${record.upstreamId ?? '?'}.`));
          out(forTerminal(`Check it: proctor-lti webhooks list${accountRef === 'default' ? '' : ` --account ${accountRef}`}`));
        }),
      );
    });

  accountOptions(webhooks.command('list').description("the account's subscriptions at the service, marked by where they send, with deliveries and failures"))
    .option('--json', 'print JSON')
    .action(async (options: AccountOptions & { json?: boolean }) => {
      await withWebhooks(async (subscriptions, { db }) =>
        explained(async () => {
          const { TARGET_LABELS } = await import('../webhooks/subscriptions.js');
          const listing = await subscriptions.list((await accountOf(subscriptions, options, db)) ?? 'default');
          if (options.json) {
            out(jsonForTerminal(listing));
            return;
          }
          out(forTerminal(`${listing.account.label} (account ${listing.account.ref}): ${listing.subscriptions.length} subscription(s)`));
          for (const item of listing.subscriptions) {
            const local = item.local;
            out(forTerminal(`${item.upstreamId ?? '(no id)'}  version ${item.version ?? '?'}  → ${TARGET_LABELS[item.target]}${item.atService ? '' : ', NOT listed by the service any more'}`));
            out(forTerminal(`    ${item.url}`));
            if (local) {
              out(`    ${local.deliveries} delivery(ies), last ${when(local.lastDeliveryAt)}; ${local.failures} refused, last ${when(local.lastFailureAt)}${local.lastFailure ? ` (${forTerminal(local.lastFailure)})` : ''}`);
            }
          }
        }),
      );
    });

  accountOptions(webhooks.command('unsubscribe').description('end a subscription at the service (by the id `webhooks list` shows)'))
    .requiredOption('--id <id>', "the subscription's id at the service")
    .action(async (options: AccountOptions & { id: string }) => {
      await withWebhooks(async (subscriptions, { db }) =>
        explained(async () => {
          const accountRef = (await accountOf(subscriptions, options, db)) ?? 'default';
          const result = await subscriptions.unsubscribe({ accountRef, id: options.id });
          await recordChange(db, { action: 'webhook.unsubscribe', target: `account ${accountRef}`, changes: [{ field: 'subscription', old: result.upstreamId }] });
          out(forTerminal(`Unsubscribed ${result.upstreamId} (account ${accountRef})${result.local ? '' : '; it was not one of this tool\'s own'}: ${result.message || 'done'}`));
        }),
      );
    });

  accountOptions(webhooks.command('unmatched').description("deliveries that matched no attempt, newest first (every account's, unless one is named)"))
    .option('--limit <n>', 'how many (1–500)', limit, 50)
    .option('--json', 'print JSON')
    .action(async (options: AccountOptions & { limit: number; json?: boolean }) => {
      await withWebhooks(async (subscriptions, { db }) =>
        explained(async () => {
          const { unmatchedReason } = await import('../webhooks/matching.js');
          const accountRef = await accountOf(subscriptions, options, db);
          const { deliveries, total } = await subscriptions.unmatched({ accountRef, limit: options.limit });
          if (options.json) {
            out(jsonForTerminal({ total, deliveries: deliveries.map((d) => ({ ...d, reason: unmatchedReason(d.problems) })) }));
            return;
          }
          out(`${total} unmatched delivery(ies)${accountRef ? ` on account ${forTerminal(accountRef)}` : ''}${total > deliveries.length ? `, the newest ${deliveries.length} shown` : ''}.`);
          for (const d of deliveries) {
            out(forTerminal(`${when(d.receivedAt)}  account ${d.accountRef}  type ${d.webhookType ?? '?'}, version ${d.version}  attempt_id ${d.attemptRef ?? '—'}  user_id ${d.userRef ?? '—'}  result id ${d.externalId ?? '—'}`));
            out(forTerminal(`    ${unmatchedReason(d.problems)}`));
          }
        }),
      );
    });
}
