import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { runCliHere, tempDataDir } from '../../helpers/cli.js';

/** LMS-supplied text never drives the administrator's terminal; link lifetimes stay in range. */
describe('platform CLI output and limits', () => {
  const data = tempDataDir('cli-terminal');
  after(() => data.remove());
  const cli = (...args: string[]) => runCliHere(data.dir, args);

  it('escapes control characters and bidi overrides in every platform output', async () => {
    const hostile = 'client\u001b]0;pwned\u0007\u001b[2J\u009b31m\u202e';
    const added = (await cli(
      'platform', 'add',
      '--issuer', 'https://lms.example.edu',
      '--client-id', hostile,
      '--name', 'LMS \u001b[31mred\u001b[0m',
      '--auth-url', 'https://lms.example.edu/auth',
      '--token-url', 'https://lms.example.edu/token',
      '--jwks-url', 'https://lms.example.edu/jwks',
      '--deployment-id', 'd\u001b[1m1',
    ));
    assert.equal(added.status, 0, added.stderr);
    // eslint-disable-next-line no-control-regex
    const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
    assert.doesNotMatch(added.stdout, CONTROL);
    const listed = await cli('platform', 'list');
    assert.equal(listed.status, 0, listed.stderr);
    assert.doesNotMatch(listed.stdout, CONTROL);
    assert.match(listed.stdout, /client\\x1b\]0;pwned\\x07\\x1b\[2J\\x9b31m\\u\{202e\}/);
    assert.match(listed.stdout, /LMS \\x1b\[31mred/);
    const json = await cli('platform', 'list', '--json');
    assert.doesNotMatch(json.stdout, CONTROL);
    assert.equal((JSON.parse(json.stdout) as Array<{ clientId: string }>)[0]?.clientId, hostile, 'JSON keeps the exact value, escaped');
  });

  it('bounds --ttl like REGISTRATION_LINK_TTL_SECONDS (60 s to 30 days)', async () => {
    for (const ttl of ['59', '2592001', '157680000000']) {
      const result = await cli('platform', 'register-link', '--ttl', ttl);
      assert.notEqual(result.status, 0, ttl);
      assert.match(result.stderr, /from 60 to 2592000/);
    }
    assert.equal((await cli('platform', 'register-link', '--ttl', '2592000')).status, 0);
  });
});
