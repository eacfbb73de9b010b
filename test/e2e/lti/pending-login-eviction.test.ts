import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import supertest from 'supertest';
import { startTestApp, type TestApp } from '../../helpers/app.js';

const CAP = 100;

describe('a full pending-login cap evicts the oldest login of the network holding the most', () => {
  let app: TestApp;

  before(async () => {
    app = await startTestApp({ TRUST_PROXY_HOPS: '1', MAX_PENDING_LOGINS: String(CAP) });
  });
  after(async () => {
    await app.close();
  });
  beforeEach(async () => {
    await app.db.query('DELETE FROM lti_login_states');
  });

  const login = async (client: string) => {
    const initiation = await app.tool.sandbox!.demoLms.initiateLogin({ user: 'student', presentation: 'window' });
    return supertest(app.baseUrl).post(new URL(initiation.url).pathname).set('X-Forwarded-For', client).type('form').send(initiation.params);
  };
  const loginsFrom = async (clients: string[]) => {
    for (const client of clients) {
      const answer = await login(client);
      assert.equal(answer.status, 302, answer.text.slice(0, 300));
    }
  };
  const pending = async () =>
    (await app.db.query<{ state: string; client_network: string | null }>('SELECT state, client_network FROM lti_login_states WHERE consumed_at IS NULL ORDER BY created_at, state')).rows;

  it('a login from a new network gets its redirect, and only the biggest flood loses its oldest state', async () => {
    // One flood rotates addresses within an IPv6 /56; it counts as one network, as the rate limiter counts it.
    const flood = Array.from({ length: 60 }, (_, i) => `2001:db8:0:1${(i % 256).toString(16).padStart(2, '0')}::${i + 1}`);
    const smaller = Array.from({ length: 30 }, () => '203.0.113.20');
    const small = Array.from({ length: 10 }, () => '198.51.100.30');
    await loginsFrom([...flood.slice(0, 20), ...smaller, ...flood.slice(20), ...small]);
    const before = await pending();
    assert.equal(before.length, CAP);
    const floodNetworks = new Set(before.filter((row) => row.client_network?.includes(':')).map((row) => row.client_network));
    assert.equal(floodNetworks.size, 1, 'the /56 is one network');
    const oldestOfFlood = before.find((row) => row.client_network?.includes(':'));

    const newcomer = await login('192.0.2.77');
    assert.equal(newcomer.status, 302, newcomer.text.slice(0, 300));
    assert.match(String(newcomer.headers.location), /^https?:\/\//);

    const afterwards = await pending();
    assert.equal(afterwards.length, CAP, 'the cap holds');
    const gone = before.filter((row) => !afterwards.some((kept) => kept.state === row.state));
    assert.deepEqual(gone, [oldestOfFlood], "the flood's oldest login, no one else's");
    assert.equal(afterwards.filter((row) => row.client_network === '192.0.2.77').length, 1);
    assert.equal(afterwards.filter((row) => row.client_network === '203.0.113.20').length, 30, 'the older, smaller network keeps its logins');
  });

  it('a single network alone at the cap cannot grow past it', async () => {
    await loginsFrom(Array.from({ length: CAP }, () => '203.0.113.40'));
    const [oldest] = await pending();
    await loginsFrom(Array.from({ length: 5 }, () => '203.0.113.40'));
    const afterwards = await pending();
    assert.equal(afterwards.length, CAP);
    assert.ok(!afterwards.some((row) => row.state === oldest?.state), 'its own oldest login made room');
  });

  it('concurrent logins at a full cap exceed it by a handful at most', async () => {
    await loginsFrom(Array.from({ length: CAP }, (_, i) => `203.0.113.${50 + (i % 3)}`));
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => login(`192.0.2.${100 + i}`)));
    assert.deepEqual(answers.map((answer) => answer.status), answers.map(() => 302));
    assert.ok((await pending()).length <= CAP + 5);
  });
});
