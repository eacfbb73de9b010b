// The running tool's control endpoint, the CLI's only guard on the embedded database: a request needs the token,
// the one path and method, a body within the limit and of the command shape; commands run one at a time.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { CONTROL_BODY_LIMIT_BYTES, CONTROL_PATH, type CommandRequest, type CommandResult } from '../../../src/control/protocol.js';
import { startControlServer, type ControlServer } from '../../../src/control/server.js';
import { waitFor } from '../../helpers/wait.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

const RESULT: CommandResult = { exitCode: 0, stdout: 'done\n', stderr: '', outputs: {} };
const COMMAND = { argv: ['platform', 'list'], files: {}, actor: { user: 'ada', host: 'laptop' } };

/** One HTTP request to the control server; rejects when the connection ends without an answer. */
function send(server: ControlServer, options: { method?: string; path?: string; authorization?: string | null; body?: string | Buffer; host?: string }): Promise<Answer> {
  const authorization = options.authorization === undefined ? `Bearer ${server.token}` : options.authorization;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent: false,
        host: options.host ?? '127.0.0.1',
        port: server.port,
        method: options.method ?? 'POST',
        path: options.path ?? CONTROL_PATH,
        headers: { ...(authorization === null ? {} : { authorization }), 'content-type': 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('control server: who may use it', () => {
  const received: CommandRequest[] = [];
  let server: ControlServer;
  before(async () => {
    server = await startControlServer(async (command) => {
      received.push(command);
      return RESULT;
    });
  });
  after(() => server.close());

  it('runs a command sent with the token and answers its result, never cached', async () => {
    const answer = await send(server, { body: JSON.stringify(COMMAND) });
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, RESULT);
    assert.equal(answer.headers['content-type'], 'application/json');
    assert.equal(answer.headers['cache-control'], 'no-store');
    assert.deepEqual(received.at(-1), { ...COMMAND, stdin: undefined });
  });

  it('makes a token of 32 random bytes, another for each start', async () => {
    assert.match(server.token, /^[A-Za-z0-9_-]{43}$/);
    const other = await startControlServer(async () => RESULT);
    try {
      assert.notEqual(other.token, server.token);
      assert.notEqual(other.port, server.port);
    } finally {
      await other.close();
    }
  });

  const refused: Array<{ name: string; authorization: string | null }> = [
    { name: 'no authorization', authorization: null },
    { name: 'the token without Bearer', authorization: 'TOKEN' },
    { name: 'another token', authorization: 'Bearer not-the-token' },
    { name: 'the token with a character more', authorization: 'Bearer TOKENx' },
    { name: 'the token in another scheme', authorization: 'Basic TOKEN' },
  ];
  for (const { name, authorization } of refused) {
    it(`refuses ${name}: 401`, async () => {
      const before = received.length;
      const answer = await send(server, { authorization: authorization?.replace('TOKEN', server.token) ?? null, body: JSON.stringify(COMMAND) });
      assert.deepEqual([answer.status, answer.body], [401, { error: 'wrong or missing token' }]);
      assert.equal(received.length, before, 'nothing ran');
    });
  }

  const elsewhere: Array<{ name: string; method: string; path: string }> = [
    { name: 'a GET of the command path', method: 'GET', path: CONTROL_PATH },
    { name: 'a PUT of the command path', method: 'PUT', path: CONTROL_PATH },
    { name: 'a POST elsewhere', method: 'POST', path: '/other' },
    { name: 'a POST of the command path with a query', method: 'POST', path: `${CONTROL_PATH}?x=1` },
  ];
  for (const { name, method, path } of elsewhere) {
    it(`answers ${name} with the token: 404`, async () => {
      const answer = await send(server, { method, path, body: JSON.stringify(COMMAND) });
      assert.deepEqual([answer.status, answer.body], [404, { error: 'not found' }]);
    });
  }

  it('does not answer on another loopback address', async () => {
    await assert.rejects(send(server, { host: '127.0.0.2', body: JSON.stringify(COMMAND) }), /ECONNREFUSED/);
  });

  it('closes at once with a command still running, cutting its connection', async () => {
    let started = false;
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const closing = await startControlServer(async () => {
      started = true;
      await gate;
      return RESULT;
    });
    const answer = send(closing, { body: JSON.stringify(COMMAND) });
    answer.catch(() => {});
    await waitFor('the command to start', () => started);
    try {
      await closing.close();
      await assert.rejects(answer, /socket hang up|ECONNRESET/);
    } finally {
      release();
    }
  });

  it('stops answering once closed', async () => {
    const closing = await startControlServer(async () => RESULT);
    await closing.close();
    await assert.rejects(send(closing, { body: JSON.stringify(COMMAND) }), /ECONNREFUSED/);
  });
});

describe('control server: what a request must hold', () => {
  const received: CommandRequest[] = [];
  let server: ControlServer;
  before(async () => {
    server = await startControlServer(async (command) => {
      received.push(command);
      return RESULT;
    });
  });
  after(() => server.close());

  const malformed: Array<{ name: string; body: string }> = [
    { name: 'no JSON', body: '{"argv": [' },
    { name: 'an empty body', body: '' },
    { name: 'null', body: 'null' },
    { name: 'a string', body: '"platform list"' },
    { name: 'no argv', body: JSON.stringify({ ...COMMAND, argv: undefined }) },
    { name: 'argv as a string', body: JSON.stringify({ ...COMMAND, argv: 'platform list' }) },
    { name: 'argv with a number', body: JSON.stringify({ ...COMMAND, argv: ['platform', 1] }) },
    { name: 'no files', body: JSON.stringify({ ...COMMAND, files: undefined }) },
    { name: 'files as null', body: JSON.stringify({ ...COMMAND, files: null }) },
    { name: 'files as a string', body: JSON.stringify({ ...COMMAND, files: 'a.csv' }) },
    { name: 'a file that is not text', body: JSON.stringify({ ...COMMAND, files: { 'a.csv': 1 } }) },
    { name: 'stdin that is not text', body: JSON.stringify({ ...COMMAND, stdin: 5 }) },
    { name: 'no actor', body: JSON.stringify({ ...COMMAND, actor: undefined }) },
    { name: 'an actor without user', body: JSON.stringify({ ...COMMAND, actor: { host: 'laptop' } }) },
    { name: 'an actor without host', body: JSON.stringify({ ...COMMAND, actor: { user: 'ada' } }) },
    { name: 'an actor with a user that is not text', body: JSON.stringify({ ...COMMAND, actor: { user: 1, host: 'laptop' } }) },
    { name: 'an actor with another field that is not text', body: JSON.stringify({ ...COMMAND, actor: { user: 'ada', host: 'laptop', uid: 0 } }) },
  ];
  for (const { name, body } of malformed) {
    it(`refuses ${name}: 400`, async () => {
      const before = received.length;
      const answer = await send(server, { body });
      assert.deepEqual([answer.status, answer.body], [400, { error: 'not a command request' }]);
      assert.equal(received.length, before, 'nothing ran');
    });
  }

  it('passes argv, files, stdin and the actor on, the actor cut to length', async () => {
    const command = { argv: ['exam', 'import', 'a.json', '-'], files: { 'a.json': 'e30=' }, stdin: 'aGk=', actor: { user: 'u'.repeat(150), host: 'h'.repeat(250) } };
    const answer = await send(server, { body: JSON.stringify(command) });
    assert.equal(answer.status, 200);
    assert.deepEqual(received.at(-1), { ...command, actor: { user: 'u'.repeat(100), host: 'h'.repeat(200) } });
  });

  it('takes a body of exactly the limit, and refuses one byte more: 413', async () => {
    const shell = JSON.stringify({ ...COMMAND, stdin: '' });
    const padding = 'A'.repeat(CONTROL_BODY_LIMIT_BYTES - Buffer.byteLength(shell));
    const atLimit = JSON.stringify({ ...COMMAND, stdin: padding });
    assert.equal(Buffer.byteLength(atLimit), CONTROL_BODY_LIMIT_BYTES);
    const taken = await send(server, { body: atLimit });
    assert.equal(taken.status, 200);
    assert.equal(received.at(-1)?.stdin?.length, padding.length);

    const before = received.length;
    const tooLarge = await send(server, { body: JSON.stringify({ ...COMMAND, stdin: `${padding}A` }) });
    assert.deepEqual([tooLarge.status, tooLarge.body], [413, { error: 'request too large' }]);
    assert.equal(received.length, before, 'nothing ran');
  });
});

describe('control server: running commands', () => {
  it('runs one command at a time, in the order they came', async () => {
    const events: string[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const server = await startControlServer(async (command) => {
      const name = command.argv[0]!;
      events.push(`start ${name}`);
      if (name === 'first') await gate;
      events.push(`end ${name}`);
      if (name === 'first') throw new Error('the first failed');
      return { ...RESULT, stdout: name };
    });
    try {
      const first = send(server, { body: JSON.stringify({ ...COMMAND, argv: ['first'] }) });
      await waitFor('the first command to start', () => events.includes('start first'));
      const second = send(server, { body: JSON.stringify({ ...COMMAND, argv: ['second'] }) });
      const third = send(server, { body: JSON.stringify({ ...COMMAND, argv: ['third'] }) });
      await waitFor('the later commands to wait for the first', () => server.waiting() === 2);
      assert.deepEqual(events, ['start first']);
      release();
      const answers = await Promise.all([first, second, third]);
      assert.equal(server.waiting(), 0);
      assert.deepEqual(events, ['start first', 'end first', 'start second', 'end second', 'start third', 'end third']);
      assert.deepEqual(answers.map((a) => a.status), [500, 200, 200], 'a failed command does not stop the ones after it');
      assert.deepEqual(answers[0]!.body, { error: 'the first failed' });
      assert.deepEqual(answers[2]!.body, { ...RESULT, stdout: 'third' });
    } finally {
      await server.close();
    }
  });

  it('answers 500 with the words of a failure that is not an Error', async () => {
    const server = await startControlServer(() => Promise.reject('plain words'));
    try {
      const answer = await send(server, { body: JSON.stringify(COMMAND) });
      assert.deepEqual([answer.status, answer.body], [500, { error: 'plain words' }]);
    } finally {
      await server.close();
    }
  });

  it('cuts the connection when the answer fails after its head was sent', async () => {
    const unsendable = { ...RESULT, toJSON: () => { throw new Error('cannot be written'); } };
    const server = await startControlServer(async () => unsendable);
    try {
      await assert.rejects(send(server, { body: JSON.stringify(COMMAND) }), /socket hang up|ECONNRESET/);
    } finally {
      await server.close();
    }
  });
});
