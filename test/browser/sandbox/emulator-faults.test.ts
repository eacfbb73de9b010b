import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertNoAxeViolations } from '../../helpers/axe.js';
import { withBrowser } from '../../helpers/browser.js';
import { startEmulator, type EmulatorServer } from '../../helpers/proctoring.js';

describe('in a browser: the emulator\'s controls page sets and clears faults without curl', () => {
  let emulator: EmulatorServer;
  before(async () => {
    emulator = await startEmulator();
  });
  after(async () => {
    await emulator?.close();
  });

  it('adds a status fault for the next two requests and a latency fault, lists them, clears them', async (t) => {
    await withBrowser(t, async (context) => {
      const page = await context.newPage();
      await page.goto(`${emulator.base}/_emulator`);
      assert.match(await page.textContent('h1') ?? '', /Faults/);
      assert.match(await page.textContent('#active-faults') ?? '', /No fault is active/);
      await assertNoAxeViolations(page, 'emulator controls');

      await page.selectOption('#kind', 'status');
      await page.fill('#status', '503');
      await page.fill('#times', '2');
      await Promise.all([page.waitForNavigation(), page.click('button:has-text("Add the fault")')]);
      assert.deepEqual(emulator.emulator.faults.list(), [{ kind: 'status', status: 503, times: 2 }]);
      assert.match(await page.textContent('#active-faults') ?? '', /HTTP 503.*next 2 requests/s);

      await page.selectOption('#kind', 'latency');
      await page.fill('#ms', '1500');
      await Promise.all([page.waitForNavigation(), page.click('button:has-text("Add the fault")')]);
      assert.equal(emulator.emulator.faults.list().length, 2);
      await assertNoAxeViolations(page, 'emulator controls with faults');

      await page.selectOption('#kind', 'status');
      await page.fill('#status', '200');
      await Promise.all([page.waitForNavigation(), page.click('button:has-text("Add the fault")')]);
      assert.match(await page.textContent('#fault-error') ?? '', /400.*599/);
      assert.equal(emulator.emulator.faults.list().length, 2, 'a wrong fault is not added');

      await Promise.all([page.waitForNavigation(), page.click('button:has-text("Clear all faults")')]);
      assert.deepEqual(emulator.emulator.faults.list(), []);
      assert.match(await page.textContent('#active-faults') ?? '', /No fault is active/);
    });
  });
});
