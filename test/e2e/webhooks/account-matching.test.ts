// A suspicion result is matched only to attempts launched through the proctoring account whose subscription
// received it: a delivery from another platform's account naming an attempt (or a candidate) of this one is kept
// unmatched with the reason, never attached to the attempt.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAttemptStore } from '../../../src/exams/attempts.js';
import { DEFAULT_ACCOUNT_ID } from '../../../src/proctoring/accounts.js';
import { unmatchedReason } from '../../../src/webhooks/matching.js';
import { startEmulator, type EmulatorServer } from '../../helpers/proctoring.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { emulator, launchAs } from '../../helpers/launches.js';

interface Attempt {
  id: string;
  userId: string;
  accountRef?: string;
}

const EU_ACCOUNT = { consumerKey: 'eu-campus-key', secret: 'eu-campus-secret-0001', region: 'EU', active: true };

describe('webhook matching stays within the proctoring account', () => {
  let app: TestApp;
  let eu: EmulatorServer;
  let euEmulator: EmulatorServer['emulator'];
  let platform: { issuer: string; clientId: string };
  let launched: { onDefault: Attempt; onEu: Attempt };

  const rowOf = async (deliveryId: string) =>
    (await app.db.query<{ attempt_id: string | null; problems: string[] }>('SELECT attempt_id, problems FROM webhook_deliveries WHERE id = $1', [deliveryId])).rows[0];
  const newestDelivery = async (subscriptionUrl: string) =>
    (
      await app.db.query<{ id: string; attempt_id: string | null; problems: string[] }>(
        'SELECT d.id, d.attempt_id, d.problems FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id WHERE s.receiver_url = $1 ORDER BY d.received_at DESC LIMIT 1',
        [subscriptionUrl],
      )
    ).rows[0];
  /** A student's candidate launch; returns the attempt it started (with the pseudonymous user id). */
  async function candidateLaunch(): Promise<Attempt> {
    const launched = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window' });
    assert.equal(launched.response.status, 302, launched.response.text.slice(0, 300));
    const row = (await app.db.query<{ id: string; user_id: string; account_ref: string | null }>("SELECT id, user_id, account_ref FROM attempts WHERE status = 'started' ORDER BY started_at DESC LIMIT 1")).rows[0];
    assert.ok(row);
    return { id: row.id, userId: row.user_id, accountRef: row.account_ref ?? undefined };
  }

  before(async () => {
    app = await startTestApp();
    await app.tool.afterListen();
    eu = await startEmulator({ accounts: [EU_ACCOUNT], region: 'EU' });
    const euBaseUrl = eu.base;
    euEmulator = eu.emulator;
    const registration = app.tool.sandbox!.demoLms.registration;
    platform = { issuer: registration.issuer, clientId: registration.clientId };
    await app.tool.accounts.create({ id: 'eu-campus', name: 'EU campus', region: 'EU', baseUrl: euBaseUrl, consumerKey: EU_ACCOUNT.consumerKey, secret: EU_ACCOUNT.secret });
    await app.tool.webhooks.subscriptions.subscribe({ accountRef: 'eu-campus' });
    // The same student launches once through each account: the attempts every test reports on.
    const onDefault = await candidateLaunch();
    await createAttemptStore(app.db).finish(onDefault.id, 'submitted');
    await app.tool.accounts.assign(platform, 'eu-campus');
    const onEu = await candidateLaunch();
    await createAttemptStore(app.db).finish(onEu.id, 'submitted');
    await app.tool.accounts.assign(platform, DEFAULT_ACCOUNT_ID);
    launched = { onDefault, onEu };
  });
  after(async () => {
    await eu?.close();
    await app.close();
  });

  it('records on each attempt the account its launch went through', () => {
    assert.equal(launched.onDefault.accountRef, DEFAULT_ACCOUNT_ID);
    assert.equal(launched.onEu.accountRef, 'eu-campus');
    assert.notEqual(launched.onEu.id, launched.onDefault.id);
  });

  /** The launched attempt of each account: the same student launched once through each. */
  async function launchedAttempts() {
    const ids = [launched.onDefault.id, launched.onEu.id];
    const rows = (await app.db.query<{ id: string; user_id: string; exam_id: string; account_ref: string }>('SELECT id, user_id, exam_id, account_ref FROM attempts WHERE id = ANY($1)', [ids])).rows;
    return ids.map((id) => rows.find((row) => row.id === id));
  }
  /** A candidate who has an attempt through one account only. */
  async function candidateOnlyOn(accountRef: string, userId: string) {
    const [first] = await launchedAttempts();
    return createAttemptStore(app.db).startOrResume({ examId: first!.exam_id, userId, isTest: false, accountRef });
  }

  const cases = [
    {
      name: "by attempt_id: the other account's attempt",
      code: 'unmatched_attempt_of_another_account',
      async ids() {
        const [onDefault, onEu] = await launchedAttempts();
        return { forEu: { attempt_id: onDefault!.id, user_id: onDefault!.user_id }, forDefault: { attempt_id: onEu!.id, user_id: onEu!.user_id } };
      },
    },
    {
      name: "by user_id: a candidate of the other account only",
      code: 'unmatched_unknown_user_or_exam',
      async ids() {
        const onDefault = await candidateOnlyOn(DEFAULT_ACCOUNT_ID, 'only-on-default');
        const onEu = await candidateOnlyOn('eu-campus', 'only-on-eu');
        return { forEu: { attempt_id: null, user_id: onDefault.userId }, forDefault: { attempt_id: null, user_id: onEu.userId } };
      },
    },
  ];
  for (const { name, ids, code } of cases) {
    it(`keeps a delivery on one account that names an attempt of another unmatched, with the reason (${name})`, async () => {
      const { forEu, forDefault } = await ids();
      const euSubscription = euEmulator.subscriptions()[0]!;
      const defaultSubscription = emulator(app).subscriptions()[0]!;

      // The EU account reports on the default account's attempt, and the default account on the EU one.
      const [fromEu] = await euEmulator.deliverWebhooks({ ...forEu, suspicion: 66 });
      assert.equal(fromEu?.status, 200);
      const euRow = (await newestDelivery(euSubscription.url))!;
      assert.equal(euRow.attempt_id, null, "not attached to the other account's attempt");
      assert.ok(euRow.problems.includes(code), euRow.problems.join(', '));

      const [fromDefault] = await emulator(app).deliverWebhooks({ ...forDefault, suspicion: 67 });
      assert.equal(fromDefault?.status, 200);
      const defaultRow = (await newestDelivery(defaultSubscription.url))!;
      assert.equal(defaultRow.attempt_id, null);
      assert.ok(defaultRow.problems.includes(code), defaultRow.problems.join(', '));

      const { deliveries } = await app.tool.webhooks.subscriptions.unmatched({ accountRef: 'eu-campus' });
      const listed = deliveries.find((d) => d.id === euRow.id);
      assert.ok(listed, "listed among the EU account's unmatched deliveries");
      assert.equal(listed.accountRef, 'eu-campus');
      assert.equal(deliveries.some((d) => d.id === defaultRow.id), false, "not among another account's");
      assert.match(unmatchedReason(listed.problems), code === 'unmatched_attempt_of_another_account' ? /launched through another proctoring account/ : /through this proctoring account/);
    });
  }

  it('matches each account\'s own attempt, by attempt_id and by user_id', async () => {
    const [defaultAttempt, euAttempt] = await launchedAttempts();
    const [own] = await emulator(app).deliverWebhooks({ attempt_id: defaultAttempt!.id, user_id: defaultAttempt!.user_id, suspicion: 11 });
    assert.equal(own?.status, 200);
    assert.equal((await newestDelivery(emulator(app).subscriptions()[0]!.url))?.attempt_id, defaultAttempt!.id);
    const onlyEu = await candidateOnlyOn('eu-campus', 'eu-by-user');
    const [euOwn] = await euEmulator.deliverWebhooks({ attempt_id: null, user_id: onlyEu.userId, suspicion: 12 });
    assert.equal(euOwn?.status, 200);
    const euRow = (await newestDelivery(euEmulator.subscriptions()[0]!.url))!;
    assert.equal((await rowOf(euRow.id))?.attempt_id, onlyEu.id, 'matched by user within its own account');
    const [euByAttempt] = await euEmulator.deliverWebhooks({ attempt_id: euAttempt!.id, user_id: euAttempt!.user_id, suspicion: 13 });
    assert.equal(euByAttempt?.status, 200);
    assert.equal((await newestDelivery(euEmulator.subscriptions()[0]!.url))?.attempt_id, euAttempt!.id);
  });
});
