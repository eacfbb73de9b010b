// `proctor-lti encryption check` and `proctor-lti secrets list|rotate|retire` as an administrator runs them.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { runCliInProcess, tempDataDir } from '../../helpers/cli.js';

const KEY = 'cli-secrets-key-0123456789-abcdefghijklmnopqrstuvwxyz';
const WRONG = 'cli-wrong-key-0123456789-abcdefghijklmnopqrstuvwxyz';

describe('the encryption and secrets commands', { timeout: 600_000 }, () => {
  const data = tempDataDir('cli-secrets');
  after(() => data.remove());
  const cli = (args: readonly string[], key = KEY) => runCliInProcess({ PATH: process.env.PATH ?? '', DATA_DIR: data.dir, PUBLIC_URL: 'https://proctor.example.edu', ENCRYPTION_KEY: key }, args);

  it('checks the key, rotates and retires the hosted-link key, rotates the pseudonym key and never retires it', async () => {
    const check = await cli(['encryption', 'check']);
    assert.equal(check.status, 0, check.stderr);
    assert.match(check.stdout, /ENCRYPTION_KEY opens the data of this database/);

    const wrong = await cli(['encryption', 'check'], WRONG);
    assert.equal(wrong.status, 1);
    assert.match(wrong.stderr, /ENCRYPTION_KEY does not open the data of this database/);

    const rotated = await cli(['secrets', 'rotate', 'hosted-links']);
    assert.equal(rotated.status, 0, rotated.stderr);
    assert.match(rotated.stdout, /hosted-link key is now version 2/);
    const pseudonyms = await cli(['secrets', 'rotate', 'pseudonyms']);
    assert.equal(pseudonyms.status, 0, pseudonyms.stderr);
    assert.match(pseudonyms.stdout, /pseudonym key is now version 2.*Existing ids do not change/);

    const listed = await cli(['secrets', 'list']);
    assert.equal(listed.status, 0, listed.stderr);
    assert.match(listed.stdout, /hosted-links: version 2, 1/);
    assert.match(listed.stdout, /pseudonyms: version 2, 1/);

    const refused = await cli(['secrets', 'retire', 'pseudonyms']);
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, /only hosted-links/);
    const retired = await cli(['secrets', 'retire', 'hosted-links']);
    assert.equal(retired.status, 0, retired.stderr);
    assert.match(retired.stdout, /1 older version\(s\) of the hosted-link key deleted/);
    assert.match((await cli(['secrets', 'list'])).stdout, /hosted-links: version 2 \(newest first\)/);

    const audit = await cli(['audit', '--limit', '10']);
    assert.match(audit.stdout, /secrets\.rotate/);
    assert.match(audit.stdout, /secrets\.retire/);
  });
});
