// The release a build is: package.json's version, printed by `proctor-lti --version`, written in the start-up
// log line, named by CHANGELOG.md as its newest release and by the production overlay's image tag.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { hostname } from 'node:os';
import { buildInfo, VERSION } from '../../../src/version.js';
import { capturedLog } from '../../helpers/app.js';
import { entryArgs } from '../../helpers/entry-args.js';

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { version: string };

describe('log lines', () => {
  it('name the host and the process that wrote them', () => {
    const log = capturedLog();
    log.logger.info('hello');
    log.logger.child({ reqId: 'r1' }).warn('inside a request');
    for (const entry of log.entries()) {
      assert.equal(entry.hostname, hostname());
      assert.equal(entry.pid, process.pid);
    }
  });
});

describe('release version', () => {
  it('is package.json’s version, in the lockfile too', () => {
    assert.match(manifest.version, /^\d+\.\d+\.\d+/);
    assert.equal(VERSION, manifest.version);
    assert.equal(lock.version, manifest.version);
    assert.deepEqual(buildInfo(), { version: manifest.version, node: process.version });
  });

  it('proctor-lti --version prints it without needing any configuration', () => {
    for (const flag of ['--version', '-V']) {
      const run = spawnSync(process.execPath, [...entryArgs('src/cli/index.ts'), flag], { env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production' }, encoding: 'utf8', timeout: 60_000 });
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stdout, `${manifest.version}\n`);
    }
  });

  it('CHANGELOG.md follows Keep a Changelog and its newest release is this version, with upgrade notes', () => {
    const changelog = readFileSync('CHANGELOG.md', 'utf8');
    assert.match(changelog, /keepachangelog\.com/);
    assert.match(changelog, /^## \[Unreleased\]$/m);
    const releases = [...changelog.matchAll(/^## \[(\d+\.\d+\.\d+[^\]]*)\] - (\d{4}-\d{2}-\d{2})$/gm)];
    assert.ok(releases.length > 0, 'at least one release heading "## [x.y.z] - YYYY-MM-DD"');
    assert.equal(releases[0]![1], manifest.version, 'the newest release in CHANGELOG.md is package.json’s version');
    const newest = changelog.slice(releases[0]!.index, releases[1]?.index);
    assert.match(newest, /^### Upgrade notes$/m);
    for (const [, version] of releases) assert.match(changelog, new RegExp(`^\\[${version!.replace(/\./g, '\\.')}\\]: https://`, 'm'), `link for ${version}`);
  });

  it('the production overlay deploys this version', () => {
    const overlay = parse(readFileSync('deploy/kubernetes/overlays/production/kustomization.yaml', 'utf8')) as { images: Array<{ newTag: string }> };
    assert.equal(overlay.images[0]?.newTag, manifest.version);
  });
});
