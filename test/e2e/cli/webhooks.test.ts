// `proctor-lti webhooks …` against a running tool and the Launch API emulator over HTTP: subscribe (v2/v3), list
// with the marks (this tool / this tool's address without a record / elsewhere), deliveries and failures,
// unsubscribe, unmatched deliveries with their reason; per-platform accounts; refusals in words; audit entries;
// control characters from the service or a delivery never reach the terminal raw.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startEmulator, type EmulatorServer } from '../../helpers/proctoring.js';
import { SANDBOX_API_KEY } from '../../helpers/hosted.js';
import { startRunningTool, type RunningTool } from '../../helpers/running-tool.js';

const EU_ACCOUNT = { consumerKey: 'eu-campus-key', secret: 'eu-campus-secret-0001', region: 'EU', active: true };
const SUSPENDED = { consumerKey: 'old-key', secret: 'old-secret-00000003', region: 'EU', active: false };

interface EmulatedSubscription {
  id: string;
  url: string;
  version: string;
}

describe('proctor-lti webhooks', () => {
  let tool: RunningTool;
  let eu: EmulatorServer;
  let euBaseUrl: string;
  let euEmulator: EmulatorServer['emulator'];
  let platform: { issuer: string; clientId: string };

  const ok = async (args: string[], input?: string) => {
    const result = await tool.cli(args, input);
    assert.equal(result.status, 0, `${args.join(' ')}: ${result.stderr}${result.stdout}`);
    return result.stdout;
  };
  const refused = async (args: string[]) => {
    const result = await tool.cli(args);
    assert.equal(result.status, 1, `${args.join(' ')} should fail: ${result.stdout}`);
    return result.stderr;
  };
  const sandboxSubscriptions = async () => (await (await fetch(`${tool.baseUrl}/sandbox/proctoring/_emulator/webhooks`)).json()) as EmulatedSubscription[];
  /** Subscribes a URL at the sandbox emulator directly, as another installation or another product would. */
  const subscribeElsewhere = async (url: string) => {
    const response = await fetch(`${tool.baseUrl}/sandbox/proctoring/v2/whks/subscribe/1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', api_key: SANDBOX_API_KEY },
      body: JSON.stringify({ type: '1', client: { url }, version: '2' }),
    });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    return (JSON.parse(text) as { id: string }).id;
  };
  const deliver = async (request: Record<string, unknown>) => {
    const response = await fetch(`${tool.baseUrl}/sandbox/proctoring/_emulator/webhooks/deliver`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });
    assert.equal(response.status, 200);
    return ((await response.json()) as { delivered: Array<{ url: string; status?: number }> }).delivered;
  };
  const auditEntries = async () => JSON.parse(await ok(['audit', '--json', '--search', 'webhook'])) as Array<{ action: string; source: string; target?: string; changes: Array<{ field: string; old?: string; new?: string }> }>;

  before(async () => {
    eu = await startEmulator({ accounts: [EU_ACCOUNT, SUSPENDED], region: 'EU' });
    euBaseUrl = eu.base;
    euEmulator = eu.emulator;
    tool = await startRunningTool('cli-webhooks');
    const platforms = JSON.parse(await ok(['platform', 'list', '--json'])) as Array<{ issuer: string; clientId: string }>;
    const demo = platforms.find((p) => p.issuer.endsWith('/sandbox/lms'));
    assert.ok(demo, 'the demo LMS is registered');
    platform = { issuer: demo.issuer, clientId: demo.clientId };
  });
  after(async () => {
    await tool?.stop();
    await eu?.close();
  });

  it('subscribes (version 2 on request), lists each mark with deliveries and failures, and audits the change', async () => {
    const before = await sandboxSubscriptions();
    assert.equal(before.length, 1, 'the sandbox subscribed its receiver at start-up');

    const subscribed = await ok(['webhooks', 'subscribe', '--version', '2']);
    assert.match(subscribed, /Subscribed this tool's receiver \(account default, version 2\); the service's id is [0-9a-f-]{36}\./);
    const atService = await sandboxSubscriptions();
    assert.equal(atService.length, 2);
    const v2 = atService.find((s) => s.version === '2')!;
    assert.match(v2.url, new RegExp(`^${tool.baseUrl}/webhooks/proctoring/[A-Za-z0-9_-]{32}$`));

    const foreignId = await subscribeElsewhere('https://other-product.example.com/hook');
    const strayId = await subscribeElsewhere(`${tool.baseUrl}/webhooks/proctoring/${'Z'.repeat(32)}`);

    // A result nobody launched: stored (unmatched) on both of this tool's subscriptions, refused on the stray one.
    const delivered = await deliver({ attempt_id: 'a0000000-0000-4000-8000-00000000000a', user_id: 'nobody-known' });
    assert.deepEqual(delivered.filter((d) => d.url.startsWith(tool.baseUrl)).map((d) => d.status).sort(), [200, 200, 401]);

    const listed = await ok(['webhooks', 'list']);
    assert.match(listed, /Sandbox account \(emulator\) \(account default\): 4 subscription\(s\)/);
    assert.match(listed, new RegExp(`${v2.id} {2}version 2 {2}→ this tool\\n {4}${tool.baseUrl}/webhooks/proctoring/\\S+\\n {4}1 delivery\\(ies\\), last \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d; 0 refused, last never`));
    assert.match(listed, new RegExp(`${foreignId} {2}version 2 {2}→ another receiver\\n {4}https://other-product\\.example\\.com/hook`));
    assert.match(listed, new RegExp(`${strayId} {2}version 2 {2}→ this tool's address, but no record here`));
    const json = JSON.parse(await ok(['webhooks', 'list', '--json'])) as { subscriptions: Array<{ upstreamId: string; target: string; local?: { deliveries: number } }> };
    assert.deepEqual(json.subscriptions.map((s) => s.target).sort(), ['elsewhere', 'this-tool', 'this-tool', 'this-tool-unknown']);

    const [entry] = await auditEntries();
    assert.equal(entry?.action, 'webhook.subscribe');
    assert.equal(entry?.source, 'cli');
    assert.deepEqual(entry?.changes.map((c) => [c.field, c.new]), [['subscription', v2.id], ['version', '2']]);
    assert.equal(JSON.stringify(await auditEntries()).includes('/webhooks/proctoring/'), false, 'the receiver URL is not recorded');
  });

  it('lists unmatched deliveries with what they carried and why, escaping control characters', async () => {
    // Two more unmatched results before the one looked at, so that the total counts past a page of one.
    for (const attemptId of ['b0000000-0000-4000-8000-000000000001', 'b0000000-0000-4000-8000-000000000002']) {
      await deliver({ attempt_id: attemptId, user_id: 'nobody-known' });
    }
    await deliver({ attempt_id: 'b0000000-0000-4000-8000-00000000000b', user_id: 'evil\u001b[2Jname', version: '3' });
    const listed = await ok(['webhooks', 'unmatched']);
    assert.match(listed, /^\d+ unmatched delivery\(ies\)\./);
    assert.match(listed, /account default {2}type 1, version 3 {2}attempt_id b0000000-0000-4000-8000-00000000000b {2}user_id evil\\x1b\[2Jname/);
    assert.match(listed, /It names an attempt_id this tool never launched .*: it is not matched by candidate/);
    assert.equal(listed.includes('\u001b'), false, 'no raw escape reaches the terminal');
    const json = JSON.parse(await ok(['webhooks', 'unmatched', '--json', '--limit', '1'])) as { total: number; deliveries: Array<{ reason: string; userRef: string }> };
    assert.equal(json.deliveries.length, 1);
    assert.ok(json.total >= 3);
    assert.equal(json.deliveries[0]!.userRef, 'evil\u001b[2Jname');
  });

  it('unsubscribes by the id the list shows, and audits it', async () => {
    const id = /the service's id is ([0-9a-f-]{36})\./.exec(await ok(['webhooks', 'subscribe', '--version', '2']))?.[1];
    assert.ok(id, 'subscribed');
    assert.match(await ok(['webhooks', 'list']), new RegExp(`${id} {2}version 2 {2}→ this tool\\n`));
    const out = await ok(['webhooks', 'unsubscribe', '--id', id]);
    assert.match(out, new RegExp(`Unsubscribed ${id} \\(account default\\)`));
    assert.equal((await sandboxSubscriptions()).some((s) => s.id === id), false, 'gone at the service');
    assert.equal((await ok(['webhooks', 'list'])).includes(id), false);
    const [entry] = await auditEntries();
    assert.deepEqual([entry?.action, entry?.changes[0]?.field, entry?.changes[0]?.old], ['webhook.unsubscribe', 'subscription', id]);
  });

  it("uses a platform's own proctoring account when the platform options name it", async () => {
    await ok(['account', 'add', '--id', 'eu-campus', '--name', 'EU campus', '--region', 'EU', '--base-url', euBaseUrl, '--consumer-key', EU_ACCOUNT.consumerKey, '--secret', '-'], `${EU_ACCOUNT.secret}\n`);
    await ok(['account', 'use', '--issuer', platform.issuer, '--client-id', platform.clientId, '--account', 'eu-campus']);
    const platformOptions = ['--issuer', platform.issuer, '--client-id', platform.clientId];
    assert.match(await ok(['webhooks', 'subscribe', ...platformOptions]), /\(account eu-campus, version 3\)/);
    const atEu = euEmulator.subscriptions();
    assert.equal(atEu.length, 1);
    assert.equal(atEu[0]!.account, EU_ACCOUNT.consumerKey);
    assert.match(atEu[0]!.url, new RegExp(`^${tool.baseUrl}/webhooks/proctoring/[A-Za-z0-9_-]{32}$`));
    const listed = await ok(['webhooks', 'list', ...platformOptions]);
    assert.match(listed, /EU campus \(eu-campus, EU\) \(account eu-campus\): 1 subscription\(s\)/);
    assert.match(listed, new RegExp(`${atEu[0]!.id} {2}version 3 {2}→ this tool`));
    assert.equal(await ok(['webhooks', 'list', '--account', 'eu-campus']), listed);
    assert.match(await ok(['webhooks', 'unmatched', '--account', 'eu-campus']), /^0 unmatched delivery\(ies\) on account eu-campus\./);
  });

  it('refuses in words: an account the service refuses, an unknown account or platform, wrong options', async () => {
    await ok(['account', 'add', '--id', 'suspended', '--name', 'Old', '--region', 'EU', '--base-url', euBaseUrl, '--consumer-key', SUSPENDED.consumerKey, '--secret', '-'], `${SUSPENDED.secret}\n`);
    const inactive = await refused(['webhooks', 'subscribe', '--account', 'suspended']);
    assert.match(inactive, /^Error: .*not active/m);
    assert.equal(inactive.includes(SUSPENDED.secret), false);
    assert.match(await refused(['webhooks', 'list', '--account', 'nope']), /No proctoring account “nope” is configured\./);
    assert.match(await refused(['webhooks', 'list', '--issuer', 'https://unknown.example.edu', '--client-id', 'x']), /no platform https:\/\/unknown\.example\.edu \(client id x\) is registered/);
    assert.match(await refused(['webhooks', 'list', '--issuer', platform.issuer]), /--issuer and --client-id go together/);
    assert.match(await refused(['webhooks', 'subscribe', '--version', '4']), /--version must be 2 or 3/);
    assert.match(await refused(['webhooks', 'unsubscribe']), /required option '--id <id>' not specified/);
    assert.equal((await auditEntries()).filter((e) => e.target === 'account suspended').length, 0, 'a refused change is not audited');
  });
});
