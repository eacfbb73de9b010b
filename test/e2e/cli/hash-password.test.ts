import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { isPasswordHash } from '../../../src/secrets/password.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { csrfFrom, signedInAgent } from '../../helpers/admin.js';
import { entryArgs } from '../../helpers/entry-args.js';

const PASSWORD = 'a long passphrase only I know';

/** `proctor-lti admin hash-password` in its own process, with `input` on standard input. */
function hashPasswordCli(input: string, args: string[] = []) {
  return spawnSync(process.execPath, [...entryArgs('src/cli/index.ts'), 'admin', 'hash-password', ...args], {
    env: { PATH: process.env.PATH ?? '' },
    input,
    encoding: 'utf8',
    timeout: 120_000,
  });
}

describe('proctor-lti admin hash-password', () => {
  let app: TestApp | undefined;
  let hash = '';
  before(() => {
    const result = hashPasswordCli(`${PASSWORD}\n`);
    assert.equal(result.status, 0, result.stderr);
    hash = result.stdout.trim();
  });
  after(async () => {
    await app?.close();
  });

  it('prints a scrypt hash, and nothing of the password', () => {
    assert.ok(isPasswordHash(hash), hash);
    assert.ok(!hash.includes(PASSWORD));
  });

  it('the printed hash, as ADMIN_PASSWORD, signs in with the password and refuses another', async () => {
    app = await startTestApp({ ADMIN_PASSWORD: hash });
    await signedInAgent(app, PASSWORD);
    const agent = supertest.agent(app.baseUrl);
    const form = await agent.get('/admin/sign-in').expect(200);
    const refused = await agent.post('/admin/sign-in').type('form').send({ _csrf: csrfFrom(form.text), password: `${PASSWORD}!` });
    assert.equal(refused.status, 401);
  });

  const refusals = [
    { name: 'the password as an argument', input: '', args: [PASSWORD], message: /never as an argument/ },
    { name: 'a password shorter than 12 characters', input: 'short\n', args: [], message: /at least 12 characters/ },
    { name: 'no password at all', input: '', args: [], message: /at least 12 characters/ },
  ];
  for (const refusal of refusals) {
    it(`refuses ${refusal.name}, printing no hash`, () => {
      const result = hashPasswordCli(refusal.input, refusal.args);
      assert.equal(result.status, 1);
      assert.equal(result.stdout, '');
      assert.match(result.stderr, refusal.message);
    });
  }
});
