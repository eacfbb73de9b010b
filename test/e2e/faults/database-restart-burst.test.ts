// The database stopped and started again while a class starts its exam: 200 candidate launches (200 different
// students, a few at a time) run against a PostgreSQL cluster this test creates itself, which is stopped once
// some launches have succeeded and started again a moment later. Every answer during the outage is the tool's
// 503 page; no request runs past a bound derived from the tool's own timeouts; the process stays up; every
// launch that failed succeeds when retried after the restart; and the attempts table holds exactly one attempt
// per student, the one the proctoring service was sent.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { DEFAULT_ACQUIRE_TIMEOUT_MS, QUERY_TIMEOUT_MS } from '../../../src/db/postgres.js';
import type { DemoLms } from '../../../src/sandbox/demo-lms/index.js';
import { capturedLog, startTestApp, type TestApp } from '../../helpers/app.js';
import { HttpLaunchError, httpCandidateLaunch } from '../../helpers/http-launch.js';
import { demoExam, emulator } from '../../helpers/launches.js';
import { migratedClusterDatabase, ownClusterUnavailable, startOwnCluster, type OwnCluster } from '../../helpers/pg-cluster.js';

const LAUNCHES = 200;
const CONCURRENCY = 8;
/** Launches that must have succeeded before the database is stopped, and failures seen before it is started again. */
const STOP_AFTER_SUCCESSES = 40;
const START_AFTER_FAILURES = 10;
const PROCTORING_TIMEOUT_MS = 10_000;
/**
 * The longest one request may take: waiting for a pooled connection, one query running into its deadline,
 * the Launch API's deadline, and a margin for a loaded machine. A request still open past it is a hang.
 */
const REQUEST_BOUND_MS = DEFAULT_ACQUIRE_TIMEOUT_MS + QUERY_TIMEOUT_MS + PROCTORING_TIMEOUT_MS + 10_000;

const unavailable = ownClusterUnavailable();
const INTERNALS = /ECONNREFUSED|ECONNRESET|terminat|connect ?ion|postgres|127\.0\.0\.1:\d{4,5}|timeout exceeded|"details"|at .*\.js:\d+/i;
const INCIDENT = /incident id: <code>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}<\/code>/;

type Outcome = { member: string; ok: true; attemptId?: string } | { member: string; ok: false; status?: number; text?: string; step: string; timedOut: boolean };

describe('the database stopped and started during a 200-launch burst', { timeout: 600_000, skip: unavailable ? `skipped: ${unavailable}` : false }, () => {
  let cluster: OwnCluster;
  let app: TestApp;
  let lms: DemoLms;
  const rejections: unknown[] = [];
  // The tool's errors, so that an answer other than the 503 page names its cause.
  const log = capturedLog('error');
  const unexpectedErrors = () =>
    log
      .entries()
      .filter((entry) => entry.code !== 'unavailable')
      .map((entry) => JSON.stringify(entry));
  const recordRejection = (reason: unknown) => rejections.push(reason);

  before(async () => {
    process.on('unhandledRejection', recordRejection);
    process.on('uncaughtException', recordRejection);
    cluster = await startOwnCluster();
    app = await startTestApp({ PROCTORING_TIMEOUT_MS: String(PROCTORING_TIMEOUT_MS) }, { db: await migratedClusterDatabase(cluster), logger: log.logger });
    lms = app.tool.sandbox!.demoLms;
    // About one generated learner in fifteen is inactive: a few more than needed.
    lms.setClass({ classSize: Math.ceil(LAUNCHES * 1.1) });
  });
  after(async () => {
    process.off('unhandledRejection', recordRejection);
    process.off('uncaughtException', recordRejection);
    await app?.close().catch(() => {});
    cluster?.destroy();
  });

  async function launchAs(member: string): Promise<Outcome> {
    const login = await lms.initiateLogin({ member, presentation: 'window' });
    try {
      const { proctoringUrl } = await httpCandidateLaunch(app.baseUrl, { login, stepTimeoutMs: REQUEST_BOUND_MS, timeoutMs: 10 * REQUEST_BOUND_MS });
      assert.match(proctoringUrl, /\/sandbox\/proctoring\/session\//);
      return { member, ok: true };
    } catch (error) {
      if (!(error instanceof HttpLaunchError)) throw error;
      const answer = error.details.answer;
      return { member, ok: false, status: answer?.status, text: answer?.text, step: error.message, timedOut: error.details.timedOut === true };
    }
  }

  it('answers 503 pages during the outage, never hangs, stays up, and loses or doubles no attempt', async (t) => {
    await httpCandidateLaunch(app.baseUrl, { user: 'student' });
    const exam = await demoExam(app);
    const named = new Set(lms.users.map((user) => user.id));
    const members = lms
      .members()
      .filter((person) => person.status === 'Active' && person.role === 'learner' && !named.has(person.id))
      .map((person) => person.id)
      .slice(0, LAUNCHES);
    assert.equal(members.length, LAUNCHES);
    const queue = [...members];
    const outcomes: Outcome[] = [];
    let successes = 0;
    let failures = 0;
    let phase: 'before' | 'stopping' | 'stopped' | 'starting' | 'started' = 'before';
    let restart: Promise<void> | undefined;

    const outage = async () => {
      phase = 'stopping';
      await cluster.stopInBackground();
      phase = 'stopped';
      while (failures < START_AFTER_FAILURES && queue.length > 0) await new Promise((resolve) => setTimeout(resolve, 50));
      phase = 'starting';
      await cluster.startInBackground();
      phase = 'started';
    };
    const worker = async () => {
      for (let member = queue.shift(); member !== undefined; member = queue.shift()) {
        const outcome = await launchAs(member);
        outcomes.push(outcome);
        if (outcome.ok) successes += 1;
        else failures += 1;
        if (phase === 'before' && successes >= STOP_AFTER_SUCCESSES) restart = outage();
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    await restart;
    assert.equal(phase, 'started', 'the database was stopped and started during the burst');

    const failed = outcomes.filter((o): o is Extract<Outcome, { ok: false }> => !o.ok);
    assert.equal(failed.filter((o) => o.timedOut).length, 0, `no request ran past ${REQUEST_BOUND_MS} ms: ${failed.filter((o) => o.timedOut).map((o) => o.step).join('; ')}`);
    assert.ok(failed.length >= START_AFTER_FAILURES, `launches failed during the outage (${failed.length})`);
    for (const failure of failed) {
      assert.equal(failure.status, 503, `${failure.step}; the tool's other errors: ${unexpectedErrors().join('\n') || 'none'}`);
      assert.match(failure.text ?? '', INCIDENT, 'the 503 page carries an incident id');
      assert.doesNotMatch(failure.text ?? '', INTERNALS, 'no internals in the page');
    }
    assert.deepEqual(rejections.map(String), [], 'no unhandled rejection or uncaught exception');
    assert.equal((await supertest(app.baseUrl).get('/healthz')).status, 200, 'the process is alive');

    t.diagnostic(`${successes} launches succeeded and ${failed.length} got the 503 page during the burst`);

    // Every student whose launch failed tries again, all at once, as soon as the database is back: each succeeds.
    const retried = await Promise.all(failed.map((failure) => launchAs(failure.member)));
    const stillFailing = retried.filter((o) => !o.ok);
    assert.deepEqual(
      stillFailing.map((o) => (o.ok ? '' : `${o.status ?? 'no answer'} ${o.step}`)),
      [],
      'every launch succeeds after the restart',
    );

    // One attempt per student, and it is the attempt the proctoring service was sent for that student.
    const sent = new Map<string, Set<string>>();
    for (const call of emulator(app).received) {
      const body = call.body as { attempt_id?: string; user_id?: string };
      if (call.endpoint !== '/v2/candidate/launch' || call.status !== 200 || !body.attempt_id || !body.user_id) continue;
      sent.set(body.user_id, (sent.get(body.user_id) ?? new Set()).add(body.attempt_id));
    }
    const rows = (await app.db.query<{ id: string; user_id: string; status: string }>('SELECT id, user_id, status FROM attempts WHERE exam_id = $1', [exam.id])).rows;
    const byUser = new Map<string, string[]>();
    for (const row of rows) byUser.set(row.user_id, [...(byUser.get(row.user_id) ?? []), row.id]);
    assert.equal(sent.size, members.length + 1, 'the service received a launch for every student (and the warm-up)');
    for (const [userId, attemptIds] of sent) {
      assert.equal(attemptIds.size, 1, `one attempt id sent for ${userId}`);
      assert.deepEqual(byUser.get(userId), [...attemptIds], `the attempts table holds exactly the attempt sent for ${userId}`);
    }
    assert.equal(rows.length, sent.size, 'no attempt the service never heard of');
    assert.ok(rows.every((row) => row.status === 'started'));
  });
});
