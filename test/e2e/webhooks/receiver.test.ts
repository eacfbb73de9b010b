import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAttemptStore } from '../../../src/exams/attempts.js';
import { SANDBOX_ACCOUNT } from '../../../src/sandbox/index.js';
import { deliveryBody, sampleData, type StoredSubscription } from '../../../src/sandbox/emulator/webhooks.js';
import { DEFAULT_ACCOUNT_REF } from '../../../src/webhooks/accounts.js';
import { UNMATCHED_REASONS, unmatchedReason } from '../../../src/webhooks/matching.js';
import { MAX_DELIVERY_BYTES } from '../../../src/webhooks/routes.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { demoExam, emulator } from '../../helpers/launches.js';

describe('webhook receiver', () => {
  let app: TestApp;
  let subscription: StoredSubscription;
  let localId: string;
  let examId: string;

  const store = () => app.tool.webhooks.store;
  const post = (id: string, body: string) =>
    fetch(`${app.baseUrl}/webhooks/proctoring/${id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const rows = async () =>
    (await app.db.query<{ id: string; subscription_id: string; verified_by: string; attempt_id: string | null; matched_by: string | null; problems: string[]; suspicion: number | null; data: unknown; data_raw: string }>(
      'SELECT * FROM webhook_deliveries ORDER BY received_at',
    )).rows;
  const count = async () => (await rows()).length;
  const newAttempt = (userId: string) => createAttemptStore(app.db).startOrResume({ examId, userId, isTest: false });
  const body = (data: Record<string, unknown>, options: Parameters<typeof deliveryBody>[3] = {}) => deliveryBody(subscription, SANDBOX_ACCOUNT.secret, data, options);

  before(async () => {
    app = await startTestApp();
    await app.tool.afterListen();
    const subscriptions = emulator(app).subscriptions();
    assert.equal(subscriptions.length, 1, 'sandbox start-up subscribes the receiver once');
    subscription = subscriptions[0]!;
    assert.equal(subscription.version, '3');
    assert.match(subscription.key ?? '', /^[A-Za-z0-9_-]{40}$/);
    localId = subscription.url.split('/').at(-1)!;
    assert.equal(subscription.url, `${app.baseUrl}/webhooks/proctoring/${localId}`);
    examId = (await demoExam(app)).id;
  });
  after(async () => {
    await app.close();
  });

  it('stores a delivery proven by api_key and matches it to the attempt by attempt_id', async () => {
    const attempt = await newAttempt('user-api-key');
    const response = await post(localId, body(sampleData('3', { attemptId: attempt.id, userId: 'user-api-key' }, { suspicion: 42 })));
    assert.equal(response.status, 200);
    const answer = (await response.json()) as { status: string; id: string };
    assert.equal(answer.status, 'stored');
    const row = (await rows()).find((r) => r.id === answer.id)!;
    assert.equal(row.verified_by, 'api_key');
    assert.equal(row.attempt_id, attempt.id);
    assert.equal(row.matched_by, 'attempt_id');
    assert.equal(row.suspicion, 42);
  });

  it('stores a delivery proven by its signature alone, computed over the raw bytes of data', async () => {
    const attempt = await newAttempt('user-signature');
    const raw = body(sampleData('3', { attemptId: attempt.id, userId: 'user-signature' }), { omitApiKey: true });
    assert.equal('api_key' in (JSON.parse(raw) as object), false);
    const response = await post(localId, raw);
    assert.equal(response.status, 200);
    const row = (await rows()).find((r) => r.attempt_id === attempt.id)!;
    assert.equal(row.verified_by, 'signature');
    assert.equal(row.data_raw, /"data":(.*)\}$/.exec(raw)![1], 'the data is kept exactly as received');
  });

  it('refuses the same delivery re-serialised (the signature no longer verifies) and stores nothing', async () => {
    const attempt = await newAttempt('user-reserialised');
    const raw = body(sampleData('3', { attemptId: attempt.id, userId: 'user-reserialised' }), { omitApiKey: true });
    const reserialised = JSON.stringify(JSON.parse(raw));
    assert.notEqual(reserialised, raw);
    const before = await count();
    assert.equal((await post(localId, reserialised)).status, 401);
    assert.equal(await count(), before);
    assert.equal((await post(localId, raw)).status, 200, 'the original bytes verify');
  });

  it('refuses a wrong key without a valid signature, a bad signature, and a body with neither; counts them as failures', async () => {
    const data = sampleData('3', { attemptId: 'b7a0c2de-0000-4000-8000-000000000001', userId: 'nobody' });
    const before = await count();
    const failuresBefore = (await store().get(localId))!.failures;
    for (const raw of [body(data, { apiKey: 'wrong-key', badSignature: true }), body(data, { omitApiKey: true, badSignature: true }), JSON.stringify({ type: 1, data })]) {
      const response = await post(localId, raw);
      assert.equal(response.status, 401);
      assert.deepEqual(await response.json(), { error: 'unauthorized' });
    }
    assert.equal(await count(), before);
    const after = (await store().get(localId))!;
    assert.equal(after.failures, failuresBefore + 3);
    assert.equal(after.lastFailure, 'neither api_key nor signature');
  });

  it('refuses deliveries to a subscription that does not exist or was removed', async () => {
    const raw = body(sampleData('2', { attemptId: 'x', userId: 'y' }));
    const before = await count();
    assert.equal((await post('A'.repeat(32), raw)).status, 401);
    assert.equal((await post('short', raw)).status, 401);
    // A second subscription: the first one's key is not its key.
    const other = await app.tool.webhooks.subscriptions.subscribe({ accountRef: DEFAULT_ACCOUNT_REF, version: '2' });
    assert.equal((await post(other.id, body(sampleData('2', { attemptId: 'x', userId: 'y' }), { badSignature: true }))).status, 401);
    await app.tool.webhooks.subscriptions.unsubscribe({ accountRef: DEFAULT_ACCOUNT_REF, id: other.upstreamId! });
    const otherAtEmulator = { ...subscription, key: undefined };
    assert.equal((await post(other.id, deliveryBody(otherAtEmulator, SANDBOX_ACCOUNT.secret, sampleData('2', { attemptId: 'x', userId: 'y' })))).status, 401, 'removed');
    assert.equal(await count(), before);
  });

  it('refuses an oversized body with 413 and stores nothing', async () => {
    const before = await count();
    const data = { ...sampleData('3', { attemptId: 'x', userId: 'y' }), padding: 'x'.repeat(MAX_DELIVERY_BYTES) };
    const response = await post(localId, body(data));
    assert.equal(response.status, 413);
    assert.equal(await count(), before);
    assert.match((await store().get(localId))!.lastFailure ?? '', /larger than 65536 bytes/);
  });

  it('refuses bodies that are not a JSON object with 400', async () => {
    for (const raw of ['not json', '[1,2]', '"text"', `{"api_key":"${subscription.key}","api_key":"${subscription.key}","data":{}}`]) {
      assert.equal((await post(localId, raw)).status, 400, raw);
    }
  });

  it('stores a replayed delivery once', async () => {
    const attempt = await newAttempt('user-replay');
    const raw = body(sampleData('3', { attemptId: attempt.id, userId: 'user-replay' }));
    const first = (await (await post(localId, raw)).json()) as { status: string; id: string };
    const second = (await (await post(localId, raw)).json()) as { status: string; id: string };
    assert.equal(first.status, 'stored');
    assert.deepEqual(second, { status: 'duplicate', id: first.id });
    assert.equal((await rows()).filter((r) => r.attempt_id === attempt.id).length, 1);
  });

  it('stores 100 different deliveries, each sent three times at once, exactly once each', async () => {
    const before = await count();
    const bodies = Array.from({ length: 100 }, (_, i) => body(sampleData('3', { attemptId: `c0000000-0000-4000-8000-${String(i).padStart(12, '0')}`, userId: `burst-${i}` })));
    const responses = await Promise.all(bodies.flatMap((raw) => [post(localId, raw), post(localId, raw), post(localId, raw)]));
    assert.deepEqual([...new Set(responses.map((r) => r.status))], [200]);
    const answers = (await Promise.all(responses.map((r) => r.json()))) as { status: string }[];
    assert.equal(answers.filter((a) => a.status === 'stored').length, 100);
    assert.equal(await count(), before + 100);
  });

  it('keeps deliveries that match no attempt and lists them for administrators; matches by user and exam otherwise', async () => {
    const raw = body(sampleData('3', { userId: 'user-unknown' }));
    const stored = (await (await post(localId, raw)).json()) as { id: string };
    const { deliveries: unmatched } = await app.tool.webhooks.subscriptions.unmatched();
    const listed = unmatched.find((d) => d.id === stored.id);
    assert.ok(listed, 'listed as unmatched');
    assert.equal(listed.userRef, 'user-unknown');
    assert.ok(listed.problems.includes('unmatched_unknown_user_or_exam'));

    const attempt = await newAttempt('user-by-exam');
    const byUser = (await (await post(localId, body(sampleData('3', { userId: 'user-by-exam' })))).json()) as { id: string };
    const row = (await rows()).find((r) => r.id === byUser.id)!;
    assert.equal(row.attempt_id, attempt.id);
    assert.equal(row.matched_by, 'user_exam');
  });

  it('never matches a delivery naming an attempt_id the tool does not know by its user_id: it stays unmatched, with the reason', async () => {
    const attempt = await newAttempt('user-real-result');
    const submitted = Math.floor(Date.now() / 1000) - 60;
    const real = (await (await post(localId, body(sampleData('3', { attemptId: attempt.id, userId: 'user-real-result' }, { suspicion: 12, date: submitted })))).json()) as { id: string };
    const stray = (await (await post(localId, body(sampleData('3', { attemptId: 'c0000000-0000-4000-8000-0000000000aa', userId: 'user-real-result' }, { suspicion: 95, date: submitted + 30 })))).json()) as { id: string };
    const strayRow = (await rows()).find((r) => r.id === stray.id)!;
    assert.equal(strayRow.attempt_id, null, 'not attached to the candidate\'s attempt');
    assert.equal(strayRow.matched_by, null);
    assert.deepEqual(strayRow.problems.filter((p) => p.startsWith('unmatched_')), ['unmatched_unknown_attempt']);
    const { deliveries: unmatched } = await app.tool.webhooks.subscriptions.unmatched();
    const listed = unmatched.find((d) => d.id === stray.id);
    assert.ok(listed, 'listed as unmatched');
    assert.equal(unmatchedReason(listed.problems), UNMATCHED_REASONS.unmatched_unknown_attempt);
    const shown = (await store().forExam(examId)).filter((d) => d.attemptId === attempt.id);
    assert.deepEqual(shown.map((d) => [d.id, d.suspicion]), [[real.id, 12]], 'the hub shows the real result only');
  });

  it('never fails on odd data: other version, missing and unknown fields, NUL characters, data that is not an object', async () => {
    const attempt = await newAttempt('user-odd');
    const odd = [
      { id: 'v2-shape', attempt_id: attempt.id, suspicion: '31' },
      { attempt_id: attempt.id, user_id: 'user-odd', flags: { unfocus: 'lots', new_flag: 4 }, submission_data: { date: 'yesterday', code: 9, message: 'Odd\u0000' }, extra: { nested: [1, '\u0000'] } },
      'just text',
      { id: 'x', suspicion: 250, attempt_id: 12 },
    ];
    for (const data of odd) {
      const response = await post(localId, body(data as Record<string, unknown>));
      assert.equal(response.status, 200, JSON.stringify(data));
    }
    const stored = (await rows()).slice(-4);
    assert.ok(stored[0]!.problems.includes('version_2_data_on_version_3_subscription'));
    assert.equal(stored[0]!.suspicion, 31);
    assert.ok(stored[1]!.problems.includes('missing_id'));
    assert.ok(stored[1]!.problems.includes('missing_suspicion'));
    assert.ok(stored[1]!.problems.includes('flag_not_a_number:unfocus'));
    assert.ok(stored[1]!.problems.includes('submission_date_invalid'));
    assert.ok(stored[1]!.problems.some((p) => p.startsWith('extra_fields:extra')));
    assert.deepEqual((stored[1]!.data as { extra: unknown }).extra, { nested: [1, '\uFFFD'] }, 'unknown fields are kept');
    assert.ok(stored[2]!.problems.includes('data_not_an_object'));
    assert.equal(stored[3]!.suspicion, 100);
    assert.ok(stored[3]!.problems.includes('suspicion_out_of_range'));
  });

  it('emulator faults: duplicates are stored once, an earlier result arriving late does not replace the later one', async () => {
    const attempt = await newAttempt('user-faults');
    const deliver = (request: Record<string, unknown>) =>
      fetch(`${app.baseUrl}/sandbox/proctoring/_emulator/webhooks/deliver`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ attempt_id: attempt.id, user_id: 'user-faults', ...request }) });
    const duplicate = (await (await deliver({ fault: 'duplicate', suspicion: 12 })).json()) as { delivered: { status: number }[] };
    assert.deepEqual(duplicate.delivered.map((d) => d.status), [200, 200]);
    assert.equal((await rows()).filter((r) => r.attempt_id === attempt.id).length, 1);

    await deliver({ fault: 'out_of_order', suspicion: 80 });
    const results = await store().forExam(examId);
    const latest = results.find((r) => r.attemptId === attempt.id)!;
    assert.equal(latest.suspicion, 80, 'the later calculation wins although it arrived first');

    const refused = (await (await deliver({ fault: 'bad_signature' })).json()) as { delivered: { status: number }[] };
    assert.deepEqual(refused.delivered.map((d) => d.status), [401]);
    const signed = (await (await deliver({ fault: 'signature_only', version: '2', suspicion: 5 })).json()) as { delivered: { status: number }[] };
    assert.deepEqual(signed.delivered.map((d) => d.status), [200]);
  });
});
