// A rolling restart behind nginx (deploy/nginx.conf as shipped, its TLS and addresses replaced): nginx has no
// active health checks, so a replica in its lame duck keeps getting requests until it stops listening, and the
// connections it then refuses are retried on the other replica. No launch fails.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { rollingRestartSkip, rollingRestartUnderLoad, type ReplicaAddress } from '../../helpers/rolling-restart.js';

const present = spawnSync('nginx', ['-v']).status === 0;

/** deploy/nginx.conf for this machine, inside a main configuration of its own: plain http on loopback, these replicas, /sandbox/ to the test's LMS. */
export function nginxConfig(folder: string, lbPort: number, lmsPort: number, replicas: readonly ReplicaAddress[]): string {
  const shipped = readFileSync('deploy/nginx.conf', 'utf8');
  const site = shipped
    .split('\n')
    .filter((line) => !/^\s*(server\s+\S+:\d+|ssl_certificate)/.test(line))
    // The replicas reach the test's Launch API emulator through nginx too: its api_key header has an underscore.
    .map((line) => (/^\s*listen\s/.test(line) ? `  listen 127.0.0.1:${lbPort};\n  underscores_in_headers on;` : line))
    .map((line) => (/^upstream proctor_lti \{/.test(line) ? `${line}\n${replicas.map((replica) => `  server 127.0.0.1:${replica.port} max_fails=1 fail_timeout=10s;`).join('\n')}` : line))
    .map((line) => (/^\s*location \/ \{/.test(line) ? `  location /sandbox/ { proxy_pass http://127.0.0.1:${lmsPort}; proxy_set_header Host $host; proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for; }\n${line}` : line))
    .join('\n');
  assert.notEqual(site, shipped);
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${join(folder, kind)};`).join('\n');
  return `daemon off;\nworker_processes 1;\npid ${join(folder, 'nginx.pid')};\nerror_log stderr warn;\nevents { worker_connections 1024; }\nhttp {\n  access_log off;\n${temp}\n${site}\n}\n`;
}

describe('rolling restart behind nginx', { skip: rollingRestartSkip('nginx', present), timeout: 600_000 }, () => {
  it('loses no launch while two replicas are restarted one at a time with SIGTERM', async (t) => {
    await rollingRestartUnderLoad(t, {
      async startBalancer(lbPort, lmsPort, replicas) {
        const folder = mkdtempSync(join(tmpdir(), 'proctor-lti-nginx-'));
        const file = join(folder, 'nginx.conf');
        writeFileSync(file, nginxConfig(folder, lbPort, lmsPort, replicas));
        const checked = spawnSync('nginx', ['-t', '-c', file, '-p', folder], { encoding: 'utf8' });
        assert.equal(checked.status, 0, `nginx -t: ${checked.stdout}${checked.stderr}`);
        const child = spawn('nginx', ['-c', file, '-p', folder], { stdio: ['ignore', 'ignore', 'pipe'] });
        let output = '';
        child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
        const exited = new Promise((resolve) => child.once('exit', resolve));
        return {
          output: () => output,
          async stop() {
            child.kill('SIGTERM');
            await exited;
            if (output.trim()) t.diagnostic(`nginx: ${output.trim().split('\n').slice(-3).join(' | ')}`);
            rmSync(folder, { recursive: true, force: true });
          },
        };
      },
    });
  });
});
