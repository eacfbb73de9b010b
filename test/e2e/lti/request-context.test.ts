// Serving logins, launches and session pages runs no AsyncLocalStorage. On Node 20 an AsyncLocalStorage is
// built on async hooks: once one runs, every promise of the process pays for a hook until it exits. Request
// context (the request id of log lines, the LTI context of ltijs's callbacks) is passed explicitly instead.
import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { launchAs, pressHubButton } from '../../helpers/launches.js';
import { authorize, postIdToken } from '../../helpers/lti-flow.js';

const entered: string[] = [];
const { run, enterWith } = AsyncLocalStorage.prototype;
// Node 24's run() enters and leaves through enterWith: only the outermost call is recorded.
let inside = 0;
AsyncLocalStorage.prototype.run = function (this: AsyncLocalStorage<unknown>, ...args: Parameters<typeof run>) {
  if (inside === 0) entered.push(new Error('AsyncLocalStorage.run').stack ?? 'run');
  inside += 1;
  try {
    return run.apply(this, args);
  } finally {
    inside -= 1;
  }
} as typeof run;
AsyncLocalStorage.prototype.enterWith = function (this: AsyncLocalStorage<unknown>, store: unknown) {
  if (inside === 0) entered.push(new Error('AsyncLocalStorage.enterWith').stack ?? 'enterWith');
  enterWith.call(this, store);
};

describe('request context without AsyncLocalStorage', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    AsyncLocalStorage.prototype.run = run;
    AsyncLocalStorage.prototype.enterWith = enterWith;
    await app.close();
  });

  it('the recorder sees a run and an enterWith (it can fail)', () => {
    const storage = new AsyncLocalStorage<number>();
    storage.run(1, () => undefined);
    assert.equal(entered.length, 1);
    storage.enterWith(2);
    assert.equal(entered.length, 2);
    storage.disable();
    entered.length = 0;
  });

  it("students' and instructors' launches, ltijs's own routes and session pages run none", async () => {
    const student = await launchAs(app, { user: 'student', flavor: 'canvas', presentation: 'window' });
    assert.equal(student.response.status, 302);
    const framed = await launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'iframe' });
    assert.equal(framed.response.status, 200);
    const instructor = await launchAs(app, { user: 'instructor', flavor: 'canvas', presentation: 'window' });
    assert.equal((await pressHubButton(instructor, 'review')).status, 302);
    // A login and launch down ltijs's own routes (a target link URI with a query string).
    const auth = await authorize(app, { user: 'student', flavor: 'moodle', presentation: 'window' }, undefined, (params) => {
      params.target_link_uri = `${params.target_link_uri}?via=ltijs`;
    });
    assert.equal((await postIdToken(auth, auth.idToken)).status, 302);
    assert.deepEqual(entered, []);
  });
});
