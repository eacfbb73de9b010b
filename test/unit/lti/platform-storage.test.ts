import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { runInNewContext } from 'node:vm';
import { isStorageTarget, platformOriginOf, storageKeys, storageProofMatches, storageProofOf } from '../../../src/lti/platform-storage.js';

const TOOL = 'https://tool.example';
const PLATFORM = 'https://sso.lms.example';

describe('platform storage: the server rules', () => {
  it('addresses the origin of the OIDC authorization endpoint', () => {
    assert.equal(platformOriginOf('https://sso.canvaslms.com/api/lti/authorize_redirect?x=1'), 'https://sso.canvaslms.com');
    assert.equal(platformOriginOf('http://127.0.0.1:8080/sandbox/lms/auth'), 'http://127.0.0.1:8080');
    assert.equal(platformOriginOf('javascript:alert(1)'), undefined);
    assert.equal(platformOriginOf('not a url'), undefined);
  });

  it('accepts frame names and _parent as storage targets, nothing else', () => {
    assert.equal(isStorageTarget('post_message_forwarding'), true);
    assert.equal(isStorageTarget('_parent'), true);
    assert.equal(isStorageTarget('../x'), false);
    assert.equal(isStorageTarget('a'.repeat(65)), false);
    assert.equal(isStorageTarget(undefined), false);
  });

  it('names the keys after the state and nonce', () => {
    assert.deepEqual(storageKeys('s1', 'n1'), { state: 'state_s1', nonce: 'nonce_n1' });
  });

  const body = { lti_storage: 'verified', lti_storage_state: 's1', lti_storage_nonce: 'n1' };

  it('takes what the page read only from a same-origin POST of the tool', () => {
    assert.deepEqual(storageProofOf(body, { secFetchSite: 'same-origin', origin: 'null' }, TOOL), { state: 's1', nonce: 'n1' });
    // A form another site makes the browser post cannot skip the check in the tool's page.
    assert.equal(storageProofOf(body, { secFetchSite: 'cross-site', origin: TOOL }, TOOL), undefined);
    assert.equal(storageProofOf(body, { secFetchSite: 'same-site' }, TOOL), undefined);
    // Browsers without Sec-Fetch-Site: the Origin header decides.
    assert.deepEqual(storageProofOf(body, { origin: TOOL }, TOOL), { state: 's1', nonce: 'n1' });
    assert.equal(storageProofOf(body, { origin: 'https://evil.example' }, TOOL), undefined);
    assert.equal(storageProofOf(body, {}, TOOL), undefined);
    assert.equal(storageProofOf({ ...body, lti_storage: 'unavailable' }, { secFetchSite: 'same-origin' }, TOOL), undefined);
    assert.equal(storageProofOf({ ...body, lti_storage_nonce: '' }, { secFetchSite: 'same-origin' }, TOOL), undefined);
    assert.equal(storageProofOf(undefined, { secFetchSite: 'same-origin' }, TOOL), undefined);
  });

  it('matches the proof against the login row and the token', () => {
    const login = { storageTarget: 'post_message_forwarding' };
    const proof = { state: 's1', nonce: 'n1' };
    assert.equal(storageProofMatches(login, proof, { state: 's1', nonce: 'n1' }), true);
    assert.equal(storageProofMatches({ storageTarget: undefined }, proof, { state: 's1', nonce: 'n1' }), false, 'the login offered no storage');
    assert.equal(storageProofMatches(undefined, proof, { state: 's1', nonce: 'n1' }), false);
    assert.equal(storageProofMatches(login, proof, { state: 's2', nonce: 'n1' }), false, 'another login');
    assert.equal(storageProofMatches(login, proof, { state: 's1', nonce: 'n2' }), false, 'another nonce');
    assert.equal(storageProofMatches(login, proof, { state: 's1', nonce: 7 }), false);
    assert.equal(storageProofMatches(login, undefined, { state: 's1', nonce: 'n1' }), false);
  });
});

/** A window as public/js/lti-storage.js sees it, with the LMS page, its storage frame and the messages sent. */
function fakeWindows() {
  const listeners = new Set<(event: { origin: string; data: unknown }) => void>();
  const sent: { message: Record<string, unknown>; targetOrigin: string; to: string }[] = [];
  const frameOf = (name: string) => ({ postMessage: (message: Record<string, unknown>, targetOrigin: string) => sent.push({ message, targetOrigin, to: name }) });
  const parent = { ...frameOf('_parent'), frames: { post_message_forwarding: frameOf('post_message_forwarding') } as Record<string, unknown> };
  const win = {
    parent,
    crypto: { randomUUID: () => Math.random().toString(16).slice(2) },
    addEventListener: (_type: string, listener: (event: { origin: string; data: unknown }) => void) => listeners.add(listener),
    removeEventListener: (_type: string, listener: (event: { origin: string; data: unknown }) => void) => listeners.delete(listener),
    setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms),
    clearTimeout: (timer: NodeJS.Timeout) => clearTimeout(timer),
  };
  const deliver = (origin: string, data: unknown) => {
    for (const listener of [...listeners]) listener({ origin, data });
  };
  return { win, sent, deliver, listeners };
}

interface StorageLibrary {
  putData(win: unknown, options: object, key: string, value: string): Promise<Record<string, unknown>>;
  getData(win: unknown, options: object, key: string): Promise<string | undefined>;
}

function loadLibrary(): StorageLibrary {
  const sandbox: { window: Record<string, unknown> } = { window: {} };
  runInNewContext(readFileSync(new URL('../../../public/js/lti-storage.js', import.meta.url), 'utf8'), sandbox);
  return sandbox.window.ltiPlatformStorage as StorageLibrary;
}

describe('platform storage: the browser messages (public/js/lti-storage.js)', () => {
  const storage = loadLibrary();
  const options = { target: 'post_message_forwarding', platformOrigin: PLATFORM, timeoutMs: 300 };

  it('sends lti.put_data to the named frame, addressed to the platform origin only', async () => {
    const { win, sent, deliver } = fakeWindows();
    const stored = storage.putData(win, options, 'state_s1', 's1');
    assert.equal(sent.length, 1);
    const { message, targetOrigin, to } = sent[0]!;
    assert.equal(to, 'post_message_forwarding');
    assert.equal(targetOrigin, PLATFORM);
    assert.equal(message.subject, 'lti.put_data');
    assert.equal(message.key, 'state_s1');
    assert.equal(message.value, 's1');
    assert.equal(typeof message.message_id, 'string');
    deliver(PLATFORM, { subject: 'lti.put_data.response', message_id: message.message_id, key: 'state_s1', value: 's1' });
    assert.equal((await stored).key, 'state_s1');
  });

  it('ignores answers from another origin, to another message or of another subject, then times out', async () => {
    const { win, sent, deliver, listeners } = fakeWindows();
    const read = storage.getData(win, options, 'state_s1');
    const id = sent[0]!.message.message_id;
    deliver('https://evil.example', { subject: 'lti.get_data.response', message_id: id, key: 'state_s1', value: 'forged' });
    deliver(TOOL, { subject: 'lti.get_data.response', message_id: id, key: 'state_s1', value: 'forged' });
    deliver(PLATFORM, { subject: 'lti.get_data.response', message_id: 'another', key: 'state_s1', value: 'forged' });
    deliver(PLATFORM, { subject: 'lti.put_data.response', message_id: id, key: 'state_s1', value: 'forged' });
    deliver(PLATFORM, 'lti.get_data.response');
    await assert.rejects(read, /timeout/);
    assert.equal(listeners.size, 0, 'the listener is removed');
  });

  it('reads the value the platform answers, and rejects its errors and wrong keys', async () => {
    const { win, sent, deliver } = fakeWindows();
    const read = storage.getData(win, options, 'nonce_n1');
    deliver(PLATFORM, { subject: 'lti.get_data.response', message_id: sent[0]!.message.message_id, key: 'nonce_n1', value: 'n1' });
    assert.equal(await read, 'n1');

    const failed = storage.getData(win, options, 'nonce_n1');
    deliver(PLATFORM, { subject: 'lti.get_data.response', message_id: sent[1]!.message.message_id, error: { code: 'bad_request', message: 'no' } });
    await assert.rejects(failed, /bad_request/);

    const wrongKey = storage.getData(win, options, 'nonce_n1');
    deliver(PLATFORM, { subject: 'lti.get_data.response', message_id: sent[2]!.message.message_id, key: 'state_s1', value: 'n1' });
    await assert.rejects(wrongKey, /wrong_key/);
  });

  it('uses the parent window for _parent, and gives up at once without a framing page or frame', async () => {
    const { win, sent } = fakeWindows();
    void storage.putData(win, { ...options, target: '_parent' }, 'k', 'v').catch(() => undefined);
    assert.equal(sent[0]!.to, '_parent');
    await assert.rejects(storage.putData(win, { ...options, target: 'no_such_frame' }, 'k', 'v'), /no_target/);
    const top: Record<string, unknown> = { ...win };
    top.parent = top;
    await assert.rejects(storage.putData(top, options, 'k', 'v'), /no_target/);
  });
});

describe("the demo LMS's storage frame (public/demo-lms/storage-frame.js)", () => {
  function storageFrame() {
    let onMessage: ((event: unknown) => void) | undefined;
    const window = { addEventListener: (_type: string, listener: (event: unknown) => void) => (onMessage = listener) };
    const document = { body: { getAttribute: () => TOOL } };
    runInNewContext(readFileSync(new URL('../../../public/demo-lms/storage-frame.js', import.meta.url), 'utf8'), { window, document });
    const answers: { reply: Record<string, unknown>; origin: string }[] = [];
    const send = (origin: string, data: unknown) =>
      // Replies are objects of the script's own realm: compared as plain data.
      onMessage!({ origin, data, source: { postMessage: (reply: Record<string, unknown>, to: string) => answers.push({ reply: JSON.parse(JSON.stringify(reply)) as Record<string, unknown>, origin: to }) } });
    return { send, answers };
  }

  it('stores and returns values for the tool, answering its origin only', () => {
    const { send, answers } = storageFrame();
    send(TOOL, { subject: 'lti.put_data', message_id: 'm1', key: 'state_s1', value: 's1' });
    send(TOOL, { subject: 'lti.get_data', message_id: 'm2', key: 'state_s1' });
    send('https://evil.example', { subject: 'lti.get_data', message_id: 'm3', key: 'state_s1' });
    send(TOOL, { subject: 'lti.capabilities', message_id: 'm4' });
    assert.deepEqual(answers.map((a) => a.origin), [TOOL, TOOL, TOOL], 'another origin gets no answer');
    assert.deepEqual(answers[0]!.reply, { subject: 'lti.put_data.response', message_id: 'm1', key: 'state_s1', value: 's1' });
    assert.deepEqual(answers[1]!.reply, { subject: 'lti.get_data.response', message_id: 'm2', key: 'state_s1', value: 's1' });
    const capabilities = answers[2]!.reply.supported_messages as { subject: string; frame?: string }[];
    assert.deepEqual(capabilities.find((m) => m.subject === 'lti.put_data'), { subject: 'lti.put_data', frame: 'post_message_forwarding' });
    send(TOOL, { subject: 'lti.put_data', message_id: 'm5', key: '', value: 'x' });
    assert.equal((answers[3]!.reply.error as { code: string }).code, 'bad_request');
  });
});
