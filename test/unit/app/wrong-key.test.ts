// A replica started with an ENCRYPTION_KEY that does not open its database's data stops at start-up, saying
// so (on stderr, and as a fatal JSON log line), instead of reporting ready and failing every roster and account.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { tempDataDir } from '../../helpers/cli.js';
import { startToolProcess } from '../../helpers/tool-process.js';

const RIGHT = 'the-right-key-0123456789-abcdefghijklmnopqrstuvwxyz';
const WRONG = 'a-wrong-key-0123456789-abcdefghijklmnopqrstuvwxyz';

describe('a wrong ENCRYPTION_KEY at start-up', { timeout: 300_000 }, () => {
  const data = tempDataDir('wrong-key');
  after(() => data.remove());
  const start = (key: string) => startToolProcess({ NODE_ENV: 'development', SANDBOX: '1', DATA_DIR: data.dir, ENCRYPTION_KEY: key });

  it('stops the replica with a message naming the problem; the right key, or the new key before the old one, starts', async () => {
    const first = await start(RIGHT);
    assert.equal(await first.stop(), 0, first.output());

    const wrong = await start(WRONG);
    assert.equal(await wrong.exited, 1, 'exits 1');
    const output = wrong.output();
    assert.match(output, /Cannot start: ENCRYPTION_KEY does not open the data of this database/);
    assert.match(output, /"level":60.*"msg":"wrong encryption key: not starting"/);
    assert.ok(!output.includes(RIGHT) && !output.includes(WRONG), 'no key in the output');
    assert.ok(!/\n\s+at /.test(output), 'a message, not a stack trace');

    const rotating = await start(`${WRONG},${RIGHT}`);
    assert.equal((await fetch(`${rotating.baseUrl}/readyz`)).status, 200, 'a new key listed before the one in use starts');
    assert.equal(await rotating.stop(), 0, rotating.output());
  });
});
