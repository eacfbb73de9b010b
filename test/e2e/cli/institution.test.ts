import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PNG_1PX } from '../../helpers/hosted.js';
import { runCliHere, tempDataDir } from '../../helpers/cli.js';
import { platformKey } from '../../../src/lti/identifiers.js';

/** `npm run cli -- institution …` on its own embedded database. */
describe('institution CLI: logo and extension allowlist', () => {
  const data = tempDataDir('institution-cli');
  const dataDir = data.dir;
  after(() => data.remove());
  const cli = (...args: string[]) => runCliHere(dataDir, args);
  const platform = ['--issuer', 'https://moodle.example.edu', '--client-id', 'client-1'];
  const key = platformKey('https://moodle.example.edu', 'client-1');
  before(async () => {
    const added = await cli('platform', 'add', ...platform, '--auth-url', 'https://moodle.example.edu/a', '--token-url', 'https://moodle.example.edu/t', '--jwks-url', 'https://moodle.example.edu/j', '--deployment-id', '1');
    assert.equal(added.status, 0, added.stderr);
  });

  it('sets the logo and the allowlist, and shows them with their URLs', async () => {
    const logoFile = join(dataDir, 'logo.png');
    writeFileSync(logoFile, PNG_1PX);
    const logo = await cli('institution', 'logo', ...platform, logoFile);
    assert.equal(logo.status, 0, logo.stderr);
    assert.match(logo.stdout, new RegExp(`image/png.*https://proctor\\.example\\.edu/hosted/logo/${key}`));
    const allow = await cli('institution', 'allowlist', ...platform, 'abcdefghijklmnopabcdefghijklmnop', 'addon@example.org');
    assert.equal(allow.status, 0, allow.stderr);
    const shown = await cli('institution', 'show', ...platform, '--json');
    assert.equal(shown.status, 0, shown.stderr);
    const summary = JSON.parse(shown.stdout) as { settings: { extensionAllowlist: string[] }; logo: { contentType: string }; extensionAllowlistUrl: string };
    assert.deepEqual(summary.settings.extensionAllowlist, ['abcdefghijklmnopabcdefghijklmnop', 'addon@example.org']);
    assert.equal(summary.logo.contentType, 'image/png');
    assert.equal(summary.extensionAllowlistUrl, `https://proctor.example.edu/hosted/extension-allowlist/${key}`);
  });

  it('refuses an image of another type and ids that are not extension ids, with clear messages', async () => {
    const gif = join(dataDir, 'logo.gif');
    writeFileSync(gif, 'GIF89a\x01\x00\x01\x00');
    const logo = await cli('institution', 'logo', ...platform, gif);
    assert.notEqual(logo.status, 0);
    assert.match(logo.stderr, /PNG, JPEG, WebP or SVG/);
    const allow = await cli('institution', 'allowlist', ...platform, 'not-an-extension');
    assert.notEqual(allow.status, 0);
    assert.match(allow.stderr, /not browser-extension ids: "not-an-extension"/);
  });
});
