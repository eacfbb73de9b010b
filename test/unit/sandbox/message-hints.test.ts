// The demo LMS's single-use message hints: kept for their time to live, refused once used or expired, and
// bounded when the launch form is flooded.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMessageHints, type PendingLaunch } from '../../../src/sandbox/demo-lms/hints.js';

const ISSUER = 'http://lms.test/sandbox/lms';
const TTL_SECONDS = 300;

function launchOf(userId: string, flavor: PendingLaunch['flavor'] = 'moodle'): PendingLaunch {
  return { user: 'student', userId, flavor, kind: 'resource', linkId: 'exam-1', presentation: 'iframe' };
}

function hintsWithClock(start = 1_000_000) {
  const clock = { now: start };
  const hints = createMessageHints({ issuer: ISSUER, now: () => clock.now, ttlSeconds: TTL_SECONDS });
  return { hints, clock };
}

async function userOf(hints: ReturnType<typeof createMessageHints>, hint: string): Promise<string> {
  const consumed = await hints.consume(hint);
  assert.ok(consumed.ok, `hint refused: ${consumed.ok ? '' : consumed.reason}`);
  return consumed.launch.userId;
}

describe('demo LMS message hints', () => {
  for (const flavor of ['moodle', 'canvas'] as const) {
    it(`answers each ${flavor} hint once, with its own launch`, async () => {
      const { hints } = hintsWithClock();
      const first = await hints.issue(launchOf('u1', flavor));
      const second = await hints.issue(launchOf('u2', flavor));
      assert.equal(await userOf(hints, second), 'u2');
      assert.equal(await userOf(hints, first), 'u1');
      assert.deepEqual(await hints.consume(first), { ok: false, reason: 'unknown-or-used' });
    });
  }

  it('drops hints whose time has passed when later ones are issued, and keeps those still live', async () => {
    const { hints, clock } = hintsWithClock();
    const old = await hints.issue(launchOf('old'));
    clock.now += (TTL_SECONDS - 10) * 1000;
    const younger = await hints.issue(launchOf('younger'));
    clock.now += 20 * 1000;
    // Issuing prunes: the old hint is gone (not merely refused as expired), the younger one still answers.
    await hints.issue(launchOf('newest'));
    assert.deepEqual(await hints.consume(old), { ok: false, reason: 'unknown-or-used' });
    assert.equal(await userOf(hints, younger), 'younger');
  });

  it('refuses an expired hint that nothing pruned', async () => {
    const { hints, clock } = hintsWithClock();
    const hint = await hints.issue(launchOf('late'));
    clock.now += (TTL_SECONDS + 1) * 1000;
    assert.deepEqual(await hints.consume(hint), { ok: false, reason: 'expired' });
  });

  it('refuses an expired hint left behind a live one when the clock stepped back', async () => {
    const { hints, clock } = hintsWithClock();
    const first = await hints.issue(launchOf('first'));
    clock.now -= 60 * 1000;
    const second = await hints.issue(launchOf('second'));
    // The second entry expires before the first, which pruning stops at.
    clock.now += (TTL_SECONDS + 50) * 1000;
    await hints.issue(launchOf('third'));
    assert.deepEqual(await hints.consume(second), { ok: false, reason: 'expired' });
    assert.equal(await userOf(hints, first), 'first');
  });

  it('keeps at most 10,000 pending launches, dropping the oldest first', async () => {
    const { hints } = hintsWithClock();
    const issued: string[] = [];
    for (let n = 0; n < 10_001; n++) issued.push(await hints.issue(launchOf(`u${n}`)));
    assert.deepEqual(await hints.consume(issued[0]!), { ok: false, reason: 'unknown-or-used' });
    assert.equal(await userOf(hints, issued[1]!), 'u1');
    assert.equal(await userOf(hints, issued[10_000]!), 'u10000');
  });

  it('refuses a missing, oversized or malformed hint', async () => {
    const { hints } = hintsWithClock();
    assert.deepEqual(await hints.consume(undefined), { ok: false, reason: 'missing' });
    assert.deepEqual(await hints.consume('x'.repeat(4097)), { ok: false, reason: 'malformed' });
    assert.deepEqual(await hints.consume('{not json'), { ok: false, reason: 'malformed' });
    assert.deepEqual(await hints.consume('a.b.c'), { ok: false, reason: 'malformed' });
  });
});
