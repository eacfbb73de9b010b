import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { runCliHere, tempDataDir } from '../../helpers/cli.js';

/** The administrators' CLI as `npm run cli -- …` runs it, on its own embedded database. */
describe('platform CLI', () => {
  const data = tempDataDir('cli');
  after(() => data.remove());
  const cli = (...args: string[]) => runCliHere(data.dir, args);

  it('adds, lists and removes a platform with several deployments', async () => {
    const added = (await cli(
      'platform', 'add',
      '--issuer', 'https://moodle.example.edu',
      '--client-id', 'client-1',
      '--auth-url', 'https://moodle.example.edu/mod/lti/auth.php',
      '--token-url', 'https://moodle.example.edu/mod/lti/token.php',
      '--jwks-url', 'https://moodle.example.edu/mod/lti/certs.php',
      '--deployment-id', '1',
      '--deployment-id', '2',
    ));
    assert.equal(added.status, 0, added.stderr);
    const listed = await cli('platform', 'list', '--json');
    assert.equal(listed.status, 0, listed.stderr);
    const platforms = JSON.parse(listed.stdout) as Array<{ issuer: string; clientId: string; deploymentIds: string[]; keyMethod: string }>;
    assert.equal(platforms.length, 1);
    assert.deepEqual(platforms[0]!.deploymentIds, ['1', '2']);
    assert.equal(platforms[0]!.keyMethod, 'JWK_SET');
    const removed = await cli('platform', 'remove', '--issuer', 'https://moodle.example.edu', '--client-id', 'client-1');
    assert.equal(removed.status, 0, removed.stderr);
    assert.deepEqual(JSON.parse((await cli('platform', 'list', '--json')).stdout), []);
  });

  it('refuses a bad URL with a clear message', async () => {
    const result = await cli('platform', 'add', '--issuer', 'not a url', '--client-id', 'c', '--auth-url', 'https://a/x', '--token-url', 'https://a/y', '--jwks-url', 'https://a/z', '--deployment-id', '1');
    assert.notEqual(result.status, 0);
    assert.match(result.stderr, /Issuer must be an absolute https URL such as https:\/\/canvas\.instructure\.com \(got "not a url"\)/);
  });

  it('prints a single-use registration link', async () => {
    const result = await cli('platform', 'register-link', '--ttl', '3600');
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout.trim(), /^https:\/\/proctor\.example\.edu\/lti\/register\?link=[A-Za-z0-9_-]{20,}$/);
    const audit = await cli('audit', '--json');
    assert.equal(audit.status, 0, audit.stderr);
    const entries = JSON.parse(audit.stdout) as Array<{ action: string; source: string; changes: Array<{ field: string }> }>;
    const issued = entries.find((entry) => entry.action === 'platform.register_link');
    assert.ok(issued, 'the link is in the audit log, as when the console issues one');
    assert.equal(issued.source, 'cli');
    assert.deepEqual(issued.changes.map((change) => change.field), ['expiresAt']);
  });

  it('lists and lifts console sign-in lockouts (audited)', async () => {
    const { openDatabase } = await import('../../../src/db/index.js');
    const db = await openDatabase({ dataDir: data.dir });
    try {
      await db.query("INSERT INTO admin_sign_in_failures (address, failures, last_address) VALUES ('2001:db8:7::/56', 9, '2001:db8:7:1::5'), ('*', 9, NULL)");
    } finally {
      await db.close();
    }
    const listed = await cli('admin', 'lockouts');
    assert.equal(listed.status, 0, listed.stderr);
    assert.match(listed.stdout, /LOCKED +2001:db8:7::\/56 \(last 2001:db8:7:1::5\): 9 wrong/);
    assert.match(listed.stdout, /counting +all networks together/);
    assert.notEqual((await cli('admin', 'unlock')).status, 0, 'a network or --all is needed');
    const lifted = await cli('admin', 'unlock', '2001:db8:7::/56');
    assert.equal(lifted.status, 0, lifted.stderr);
    assert.match(lifted.stdout, /Lifted the lockout of 2001:db8:7::\/56/);
    assert.equal((await cli('admin', 'unlock', '--all')).status, 0);
    assert.match((await cli('admin', 'lockouts')).stdout, /No wrong password/);
    assert.match((await cli('audit', '--search', 'admin.sign_in_unlock')).stdout, /admin\.sign_in_unlock {2}2001:db8:7::\/56/);
  });
});
