import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startEmulator } from '../../helpers/proctoring.js';

const SETTINGS_OFF_BUT_RENAMED = { clipboard: false };

/** The watch checks a body once its answer is written, which may be a moment after the client read it. */
async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in 5 s');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('the conformance watch on the emulator', () => {
  it("fails the emulator's close when the tool's client sent a body the document forbids", async () => {
    const emulator = await startEmulator();
    const answer = await fetch(`${emulator.base}/v2/reviewer/launch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'proctor-lti', api_key: 'ready-made-api-key-0123456789' },
      body: JSON.stringify({ user_id: 'teacher-1', exam_settings: SETTINGS_OFF_BUT_RENAMED }),
    });
    await answer.arrayBuffer();
    await until(() => emulator.conformance.checked() === 1);
    assert.deepEqual(
      emulator.conformance.nonconformities()[0]?.breaches.map((b) => `${b.path} ${b.rule}`),
      ['exam_settings.clipboard unknown_field'],
    );
    await assert.rejects(emulator.close(), /forbids: \/sandbox\/proctoring\/v2\/reviewer\/launch: exam_settings\.clipboard: unknown_field/);
  });

  it('leaves hand-made requests of tests (another user agent) alone', async () => {
    const emulator = await startEmulator();
    const answer = await fetch(`${emulator.base}/v2/live/launch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'test', api_key: 'ready-made-api-key-0123456789' },
      body: JSON.stringify({ user_id: 'not valid!' }),
    });
    await answer.arrayBuffer();
    assert.equal(emulator.conformance.checked(), 0);
    await emulator.close();
  });
});
