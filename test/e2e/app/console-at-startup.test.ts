// Start-up names the admin console's address: in the log line every deployment reads, and in the sandbox's
// console output; never the password.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { tempDataDir } from '../../helpers/cli.js';
import { startToolProcess } from '../../helpers/tool-process.js';

const PASSWORD = 'console-password-at-startup';

describe('start-up names the admin console', { timeout: 300_000 }, () => {
  const data = tempDataDir('console-at-startup');
  after(() => data.remove());

  it('with ADMIN_PASSWORD: its URL in the start-up log line and the sandbox output, and the emulator\'s fault controls', async () => {
    const tool = await startToolProcess({ NODE_ENV: 'development', SANDBOX: '1', DATA_DIR: data.dir, ADMIN_PASSWORD: PASSWORD });
    try {
      const output = tool.output();
      const started = output.split('\n').find((line) => line.includes('"proctor-lti started"'));
      assert.ok(started, output);
      assert.equal(/"adminConsole":"([^"]*)"/.exec(started)?.[1], `${tool.baseUrl}/admin`);
      assert.ok(output.includes(`Admin console: ${tool.baseUrl}/admin`), output);
      assert.ok(output.includes(`${tool.baseUrl}/sandbox/proctoring/_emulator`), 'the emulator controls page is named');
      assert.equal(output.includes(PASSWORD), false, 'never the password');
    } finally {
      await tool.stop();
    }
  });

  it('without ADMIN_PASSWORD: says the console is off and how to turn it on', async () => {
    const tool = await startToolProcess({ NODE_ENV: 'development', SANDBOX: '1', DATA_DIR: data.dir });
    try {
      const output = tool.output();
      const started = output.split('\n').find((line) => line.includes('"proctor-lti started"'));
      assert.ok(started, output);
      assert.equal(/"adminConsole":"([^"]*)"/.exec(started)?.[1], 'off (set ADMIN_PASSWORD)');
      assert.match(output, /Admin console: off — set ADMIN_PASSWORD/);
    } finally {
      await tool.stop();
    }
  });
});
