// The CLI while the tool runs: on the embedded database the command is carried out by the running tool (which
// alone may open DATA_DIR), on PostgreSQL by the CLI itself; either way the running tool sees the change at once
// and it survives a restart. A lock whose tool does not answer is refused with a message, never a hang.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../../src/db/index.js';
import { tempDataDir } from '../../helpers/cli.js';
import { entryArgs } from '../../helpers/entry-args.js';
import { freePort } from '../../helpers/ports.js';

const ISSUER = 'https://moodle.running.example.edu';
const MOVING_ISSUER = 'https://moodle.moving.example.edu';

describe('CLI against a running tool', () => {
  const data = tempDataDir('running');
  const schema = `cli_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  let port: number;
  let baseUrl: string;
  let tool: ChildProcess | undefined;
  let toolOutput = '';

  const env = () => ({
    PATH: process.env.PATH ?? '',
    DATA_DIR: data.dir,
    PORT: String(port),
    LOG_LEVEL: 'warn',
    SHUTDOWN_DELAY_SECONDS: '0',
    // On a real database the sandbox (demo LMS and emulator) only starts when asked for.
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL, DATABASE_SCHEMA: schema, SANDBOX: '1' } : {}),
  });
  const cliWithInput = (input: string, ...args: string[]) =>
    spawnSync(process.execPath, [...entryArgs('src/cli/index.ts'), ...args], { env: env(), encoding: 'utf8', timeout: 120_000, input });
  const cli = (...args: string[]) => cliWithInput('', ...args);

  async function startTool(): Promise<void> {
    toolOutput = '';
    tool = spawn(process.execPath, entryArgs('src/main.ts'), { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    tool.stdout?.on('data', (chunk: Buffer) => (toolOutput += chunk.toString()));
    tool.stderr?.on('data', (chunk: Buffer) => (toolOutput += chunk.toString()));
    const deadline = Date.now() + 120_000;
    for (;;) {
      assert.equal(tool.exitCode, null, `the tool ended: ${toolOutput}`);
      if (/proctor-lti is running|"msg":"proctor-lti started"/.test(toolOutput)) {
        const ready = await fetch(`${baseUrl}/readyz`).catch(() => undefined);
        if (ready?.ok) return;
      }
      assert.ok(Date.now() < deadline, `the tool did not start: ${toolOutput}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  const toolRunning = () => tool !== undefined && tool.exitCode === null && tool.signalCode === null;

  /** Starts the tool again when a test before this one stopped it. */
  async function ensureTool(): Promise<void> {
    if (!toolRunning()) await startTool();
  }

  async function stopTool(): Promise<void> {
    if (!tool || !toolRunning()) return;
    const exited = new Promise((resolve) => tool?.once('exit', resolve));
    tool.kill('SIGTERM');
    await exited;
  }

  before(async () => {
    port = await freePort();
    baseUrl = `http://localhost:${port}`;
    await startTool();
  });
  after(async () => {
    await stopTool();
    if (process.env.DATABASE_URL) {
      const db = await openDatabase({ url: process.env.DATABASE_URL, dataDir: 'memory' });
      await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => db.close());
    }
    data.remove();
  });

  it('adds a platform that the running tool accepts at once, and that survives a restart', async () => {
    await ensureTool();
    const url = `${baseUrl}/lti/login?${new URLSearchParams({ iss: ISSUER, client_id: 'running-1', login_hint: 'u1', target_link_uri: `${baseUrl}/lti/launch` })}`;
    // A kept-alive connection to the tool before its restart fails once: ask again on a new one.
    const login = () => fetch(url, { redirect: 'manual' }).catch(() => fetch(url, { redirect: 'manual' }));
    assert.equal((await login()).status, 400, 'unknown before');

    const added = cli('platform', 'add', '--issuer', ISSUER, '--client-id', 'running-1', '--auth-url', `${ISSUER}/mod/lti/auth.php`, '--token-url', `${ISSUER}/mod/lti/token.php`, '--jwks-url', `${ISSUER}/mod/lti/certs.php`, '--deployment-id', '3');
    assert.equal(added.status, 0, added.stderr);
    assert.match(added.stdout, /Registered https:\/\/moodle\.running\.example\.edu/);

    const audit = cli('audit', '--json', '--search', ISSUER);
    assert.equal(audit.status, 0, audit.stderr);
    const [entry] = JSON.parse(audit.stdout) as Array<{ action: string; source: string; actor: string; remoteAddress: string }>;
    assert.deepEqual([entry?.action, entry?.source, entry?.actor, entry?.remoteAddress], ['platform.add', 'cli', userInfo().username, hostname()]);

    const refused = cli('platform', 'add', '--issuer', ISSUER, '--client-id', 'running-2', '--auth-url', `${ISSUER}/a`, '--token-url', `${ISSUER}/t`, '--jwks-url', `${ISSUER}/j`);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /Nothing was registered:\n.*At least one deployment id is required/);

    const redirected = await login();
    assert.equal(redirected.status, 302, 'the running tool knows the platform');
    assert.match(redirected.headers.get('location') ?? '', /^https:\/\/moodle\.running\.example\.edu\/mod\/lti\/auth\.php\?/);

    await stopTool();
    const listed = cli('platform', 'list', '--json');
    assert.equal(listed.status, 0, listed.stderr);
    assert.ok((JSON.parse(listed.stdout) as Array<{ issuer: string }>).some((p) => p.issuer === ISSUER), 'kept after the tool stopped');
    await startTool();
    assert.equal((await login()).status, 302, 'and after a restart');
  });

  it("prints links with the running tool's own URL", async () => {
    await ensureTool();
    const link = cli('platform', 'register-link');
    assert.equal(link.status, 0, link.stderr);
    assert.match(link.stdout.trim(), new RegExp(`^http://localhost:${port}/lti/register\\?link=[A-Za-z0-9_-]{20,}$`));
  });

  it('through the tool, the CLI process loads neither a database driver nor ltijs', { skip: Boolean(process.env.DATABASE_URL) && 'on PostgreSQL the CLI connects itself' }, async () => {
    await ensureTool();
    const log = join(data.dir, 'modules.log');
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--import', './test/helpers/record-modules.mjs', 'src/cli/index.ts', 'platform', 'list'], {
      env: { ...env(), MODULE_LOG: log },
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(result.status, 0, result.stderr);
    const loaded = readFileSync(log, 'utf8').split('\n');
    assert.ok(loaded.some((url) => url.includes('/src/control/client.')), 'the log records the CLI\'s own modules');
    for (const heavy of ['@electric-sql/pglite', '/node_modules/ltijs/', '/node_modules/pg/', '/node_modules/umzug/', '/src/db/', '/src/lti/provider.']) {
      assert.deepEqual(loaded.filter((url) => url.includes(heavy)), [], `${heavy} is not loaded`);
    }
  });

  it('keeps account credentials read from standard input out of every answer, and moves a platform', async () => {
    await ensureTool();
    const platform = cli('platform', 'add', '--issuer', MOVING_ISSUER, '--client-id', 'moving-1', '--auth-url', `${MOVING_ISSUER}/a`, '--token-url', `${MOVING_ISSUER}/t`, '--jwks-url', `${MOVING_ISSUER}/j`, '--deployment-id', '3');
    assert.equal(platform.status, 0, platform.stderr);
    const added = cliWithInput('eu-secret-value-4321\n', 'account', 'add', '--id', 'eu-campus', '--name', 'EU campus', '--region', 'EU', '--base-url', 'https://eu.proctoring.example.com', '--consumer-key', 'eu-key', '--secret', '-');
    assert.equal(added.status, 0, added.stderr);
    const used = cli('account', 'use', '--issuer', MOVING_ISSUER, '--client-id', 'moving-1', '--account', 'eu-campus');
    assert.equal(used.status, 0, used.stderr);
    const listed = cli('account', 'list');
    assert.match(listed.stdout, /eu-campus {2}"EU campus" {2}region EU {2}https:\/\/eu\.proctoring\.example\.com {2}consumer key eu-key \+ secret …4321/);
    assert.match(listed.stdout, /used by https:\/\/moodle\.moving\.example\.edu \(client id moving-1\)/);
    assert.equal(`${listed.stdout}${cli('audit', '--json').stdout}`.includes('eu-secret-value'), false, 'never shown, never audited');

    const unknownPlatform = cli('account', 'use', '--issuer', MOVING_ISSUER, '--client-id', 'nope', '--account', 'eu-campus');
    assert.equal(unknownPlatform.status, 1);
    assert.match(unknownPlatform.stderr, /No platform https:\/\/moodle\.moving\.example\.edu is registered with client id nope; its registered client ids are/);

    const registered = cli('platform', 'add', '--issuer', MOVING_ISSUER, '--client-id', 'moving-3', '--auth-url', `${MOVING_ISSUER}/a`, '--token-url', `${MOVING_ISSUER}/t`, '--jwks-url', `${MOVING_ISSUER}/j`, '--deployment-id', '9');
    assert.equal(registered.status, 0, registered.stderr);
    const move = ['platform', 'move', '--from-issuer', MOVING_ISSUER, '--from-client-id', 'moving-1', '--to-issuer', MOVING_ISSUER, '--to-client-id', 'moving-3'];
    const dry = cli(...move, '--dry-run');
    assert.equal(dry.status, 0, dry.stderr);
    assert.match(dry.stdout, /Would move .*deployments 3 → 9.*proctoring account: eu-campus/s);
    assert.match(dry.stdout, /students keep their ids \(same issuer\): 0 accommodation\(s\), 0 attempt\(s\) \(0 in progress\) follow them/);
    const moved = cli(...move);
    assert.equal(moved.status, 0, moved.stderr);
    assert.match(cli('account', 'list').stdout, /used by https:\/\/moodle\.moving\.example\.edu \(client id moving-3\)/);
  });

  it('refuses, naming the console, when the tool holding the data directory does not answer', { skip: Boolean(process.env.DATABASE_URL) && 'PostgreSQL needs no lock' }, async () => {
    await stopTool();
    const deadPort = await freePort();
    const lock = join(data.dir, 'proctor-lti.lock');
    writeFileSync(
      lock,
      JSON.stringify({ pid: process.pid, hostname: hostname(), kind: 'tool', startedAt: new Date().toISOString(), control: { port: deadPort, token: 'x', publicUrl: `http://localhost:${port}` } }),
      { mode: 0o600 },
    );
    try {
      const started = Date.now();
      const refused = cli('platform', 'list');
      assert.equal(refused.status, 1);
      assert.match(refused.stderr, /does not answer on its control port/);
      assert.match(refused.stderr, new RegExp(`http://localhost:${port}/admin`));
      assert.ok(Date.now() - started < 60_000, 'no hang');
    } finally {
      // The lock names this live process: left behind, it would keep the tool from starting again.
      rmSync(lock, { force: true });
    }
  });
});
