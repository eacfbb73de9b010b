// A rolling restart behind the Compose file's Caddy (deploy/Caddyfile as `caddy adapt` reads it, with the
// replicas' addresses in TOOL_UPSTREAMS; the test adds a route to its demo LMS and turns the admin endpoint off):
// SIGTERM puts a replica in its lame duck, Caddy's active checks take it out, and no launch fails.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { rollingRestartSkip, rollingRestartUnderLoad } from '../../helpers/rolling-restart.js';

const present = spawnSync('caddy', ['version']).status === 0;

interface CaddyRoute {
  match?: unknown[];
  handle: Array<{ handler: string; routes?: CaddyRoute[] }>;
}

describe('rolling restart behind the Compose file’s Caddy', { skip: rollingRestartSkip('caddy', present), timeout: 600_000 }, () => {
  it('loses no launch while two replicas are restarted one at a time with SIGTERM', async (t) => {
    await rollingRestartUnderLoad(t, {
      async startBalancer(lbPort, lmsPort, replicas) {
        const folder = mkdtempSync(join(tmpdir(), 'proctor-lti-caddy-'));
        const env = { ...process.env, HOME: folder, XDG_DATA_HOME: folder, XDG_CONFIG_HOME: folder, PUBLIC_HOST: `http://127.0.0.1:${lbPort}`, TOOL_UPSTREAMS: replicas.map((replica) => `127.0.0.1:${replica.port}`).join(' ') };
        const adapted = spawnSync('caddy', ['adapt', '--config', 'deploy/Caddyfile', '--adapter', 'caddyfile'], { encoding: 'utf8', env });
        assert.equal(adapted.status, 0, adapted.stderr);
        const config = JSON.parse(adapted.stdout) as { admin?: unknown; logging?: unknown; apps: { http: { servers: Record<string, { routes: CaddyRoute[] }> } } };
        config.admin = { disabled: true };
        delete config.logging;
        const site = Object.values(config.apps.http.servers)[0]!.routes[0]!.handle[0]!.routes!;
        const proxyAt = site.findIndex((route) => route.handle.some((handler) => handler.handler === 'reverse_proxy'));
        assert.ok(proxyAt > 0, 'the Caddyfile proxies to the replicas');
        site.splice(proxyAt, 0, { match: [{ path: ['/sandbox/*'] }], handle: [{ handler: 'reverse_proxy', upstreams: [{ dial: `127.0.0.1:${lmsPort}` }] } as never] });
        const file = join(folder, 'caddy.json');
        writeFileSync(file, JSON.stringify(config));
        const child = spawn('caddy', ['run', '--config', file], { env, stdio: ['ignore', 'ignore', 'pipe'] });
        let output = '';
        child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
        const exited = new Promise((resolve) => child.once('exit', resolve));
        const deadline = Date.now() + 30_000;
        while (!(await fetch(`http://127.0.0.1:${lbPort}/healthz`).then((response) => response.ok, () => false))) {
          assert.equal(child.exitCode, null, `caddy ended: ${output}`);
          assert.ok(Date.now() < deadline, `caddy did not answer: ${output}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        return {
          // Caddy's own lines (health checks, proxy errors) and the requests it answered with an error.
          output: () => output.split('\n').filter((line) => !line.includes('"handled request"') || /"status":5\d\d/.test(line)).join('\n'),
          async stop() {
            child.kill('SIGTERM');
            await exited;
            rmSync(folder, { recursive: true, force: true });
          },
        };
      },
    });
  });
});
