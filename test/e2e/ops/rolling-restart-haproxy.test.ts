// A rolling restart behind HAProxy with nothing but its health checks (deploy/haproxy.cfg as shipped, its
// certificate and addresses replaced): SIGTERM puts a replica in its lame duck, HAProxy's checks take it out,
// and no launch fails.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { rollingRestartSkip, rollingRestartUnderLoad, type ReplicaAddress } from '../../helpers/rolling-restart.js';

const present = spawnSync('haproxy', ['-v']).status === 0;

/** deploy/haproxy.cfg for this machine: plain http on loopback, these replicas, /sandbox/ to the test's LMS. */
export function haproxyConfig(lbPort: number, lmsPort: number, replicas: readonly ReplicaAddress[]): string {
  const shipped = readFileSync('deploy/haproxy.cfg', 'utf8');
  const lines = shipped.split('\n').filter((line) => !/^\s*server\s/.test(line));
  const config = lines
    .map((line) => (/^\s*bind\s/.test(line) ? `  bind 127.0.0.1:${lbPort}` : line))
    .map((line) => line.replace('X-Forwarded-Proto https', 'X-Forwarded-Proto http'))
    .map((line) => (/^\s*default_backend tools/.test(line) ? `  use_backend lms if { path_beg /sandbox/ }\n${line}` : line))
    .join('\n');
  assert.notEqual(config, shipped);
  return `${config.trimEnd()}\n${replicas.map((replica) => `  server ${replica.name} 127.0.0.1:${replica.port}`).join('\n')}\n\nbackend lms\n  server lms 127.0.0.1:${lmsPort}\n`;
}

describe('rolling restart behind HAProxy', { skip: rollingRestartSkip('haproxy', present), timeout: 600_000 }, () => {
  it('loses no launch while two replicas are restarted one at a time with SIGTERM', async (t) => {
    await rollingRestartUnderLoad(t, {
      async startBalancer(lbPort, lmsPort, replicas) {
        const folder = mkdtempSync(join(tmpdir(), 'proctor-lti-haproxy-'));
        const file = join(folder, 'haproxy.cfg');
        writeFileSync(file, haproxyConfig(lbPort, lmsPort, replicas));
        const checked = spawnSync('haproxy', ['-c', '-f', file], { encoding: 'utf8' });
        assert.equal(checked.status, 0, `haproxy -c: ${checked.stdout}${checked.stderr}`);
        const child = spawn('haproxy', ['-f', file, '-db'], { stdio: ['ignore', 'ignore', 'pipe'] });
        let output = '';
        child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
        const exited = new Promise((resolve) => child.once('exit', resolve));
        return {
          output: () => output,
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
