// The emulator's session store: bounded (the oldest go first), expired sessions forgotten once they have been
// kept their while, and a launch costing the same with thousands of sessions stored as with a few.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createSessionStore } from '../../../src/sandbox/emulator/sessions.js';
import { launchpadRequest } from '../../helpers/proctoring.js';
import { sleep } from '../../helpers/wait.js';

const session = (expireSeconds = 3600) => ({ kind: 'launchpad' as const, body: launchpadRequest(), account: 'acct', expireSeconds });

describe('emulator session store', () => {
  it('keeps at most `max` sessions, dropping the oldest first', () => {
    const store = createSessionStore({ max: 3 });
    const tokens = Array.from({ length: 5 }, () => store.create(session()).token);
    assert.equal(store.list().length, 3);
    assert.equal(store.get(tokens[0]!), undefined);
    assert.equal(store.get(tokens[1]!), undefined);
    assert.deepEqual(store.list().map((s) => s.token), tokens.slice(2));
  });

  it('forgets sessions expired for longer than they are kept, on a later launch', async () => {
    const store = createSessionStore({ keepExpiredMs: 20 });
    const expired = store.create(session(0)).token;
    const live = store.create(session()).token;
    assert.ok(store.get(expired), 'kept a while to say "link expired"');
    await sleep(60);
    store.create(session());
    assert.equal(store.get(expired), undefined);
    assert.ok(store.get(live));
  });

  it('a launch does not look through every stored session', () => {
    const store = createSessionStore({ max: 20_000 });
    for (let i = 0; i < 20_000; i++) store.create(session());
    const visits = { count: 0 };
    const iterate = Map.prototype[Symbol.iterator];
    Map.prototype[Symbol.iterator] = function (this: Map<unknown, unknown>) {
      visits.count += 1;
      return iterate.call(this);
    };
    try {
      for (let i = 0; i < 100; i++) store.create(session());
    } finally {
      Map.prototype[Symbol.iterator] = iterate;
    }
    assert.ok(visits.count <= 1, `${visits.count} full walks over the sessions in 100 launches`);
  });
});
