// SIGTERM as a rolling restart sends it: first the lame duck (`/readyz` 503 at once, everything else still served,
// for SHUTDOWN_DELAY_SECONDS), then the drain. And when the drain's deadline (SHUTDOWN_GRACE_SECONDS) cuts the
// connections still open, the process stops their work and exits: no launch is logged as redirected for a client
// that is gone.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { createInterface } from 'node:readline';
import supertest from 'supertest';
import { parseAutoSubmitForm } from '../../../src/sandbox/demo-lms/index.js';
import { tempDataDir } from '../../helpers/cli.js';
import { entryArgs } from '../../helpers/entry-args.js';
import { freePort } from '../../helpers/ports.js';
import { pathOf } from '../../helpers/urls.js';
import { noticeFormOf } from '../../helpers/lti-flow.js';

interface LogLine {
  msg: string;
  lameDuckMs?: number;
}

interface Tool {
  baseUrl: string;
  child: ChildProcess;
  output: () => string;
  /** The tool's log lines, in the order it wrote them. */
  log: () => LogLine[];
  exit: Promise<number | null>;
}

const started: Array<{ tool: Tool; data: ReturnType<typeof tempDataDir> }> = [];

async function startTool(env: Record<string, string>): Promise<Tool> {
  // A copy of a migrated data directory: the start skips initdb and the migrations.
  const data = tempDataDir('lame-duck');
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, entryArgs('src/main.ts'), {
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'development', PORT: String(port), PUBLIC_URL: baseUrl, DATA_DIR: data.dir, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Everything the process wrote, for failure messages; its log (JSON lines on stdout) line by line, apart from
  // stderr, so that the order of its lines is the order it wrote them in.
  let output = '';
  const logLines: string[] = [];
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  createInterface({ input: child.stdout }).on('line', (line) => logLines.push(line));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const tool = { baseUrl, child, output: () => output, log: () => logLines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as LogLine), exit };
  started.push({ tool, data });
  const deadline = Date.now() + 120_000;
  while (!output.includes('proctor-lti started')) {
    assert.equal(child.exitCode, null, `the tool ended during start-up:\n${output}`);
    assert.ok(Date.now() < deadline, `the tool did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return tool;
}

/**
 * A candidate launch up to its id_token form; `post()` sends the id_token POST (and, on the student's first launch
 * of the exam, presses the privacy notice's button: the answer is the session's).
 */
async function authorizedLaunch(baseUrl: string) {
  const agent = supertest.agent(baseUrl);
  const lms = await agent.get('/sandbox/lms/launch?user=student&presentation=window');
  const toAuth = await agent.get(pathOf(lms.headers.location as string));
  const auth = await agent.get(pathOf(toAuth.headers.location as string));
  const form = parseAutoSubmitForm(auth.text);
  assert.ok(form?.fields.id_token, auth.text.slice(0, 200));
  return {
    post: async () => {
      const posted = await agent.post(pathOf(form.action)).type('form').send({ id_token: form.fields.id_token, state: form.fields.state ?? '' }).timeout(30_000);
      const notice = noticeFormOf(posted);
      return notice ? agent.post(notice.action).type('form').send(notice.fields).timeout(30_000) : posted;
    },
  };
}

describe('SIGTERM: lame duck, then drain', { timeout: 180_000 }, () => {
  after(() => {
    for (const { tool, data } of started) {
      if (tool.child.exitCode === null) tool.child.kill('SIGKILL');
      data.remove();
    }
  });

  it('answers /readyz 503 at once and keeps serving everything else, launches included, for the lame-duck period', async () => {
    const tool = await startTool({ SHUTDOWN_DELAY_SECONDS: '4', SHUTDOWN_GRACE_SECONDS: '10' });
    const early = await authorizedLaunch(tool.baseUrl);
    assert.equal((await supertest(tool.baseUrl).get('/readyz')).status, 200);
    tool.child.kill('SIGTERM');
    const signalledAt = Date.now();
    const notReady = async () => (await supertest(tool.baseUrl).get('/readyz')).status === 503;
    while (!(await notReady())) assert.ok(Date.now() - signalledAt < 1000, '/readyz 503 within a second of SIGTERM');

    // Still serving: a launch begun before the signal, a whole new one, and liveness.
    const posted = await early.post();
    assert.equal(posted.status, 302, posted.text.slice(0, 200));
    assert.match(String(posted.headers.location), /\/sandbox\/proctoring\/session\//);
    assert.equal(posted.headers.connection, 'close', 'responses during the lame duck close their connection');
    const fresh = await (await authorizedLaunch(tool.baseUrl)).post();
    assert.equal(fresh.status, 302);
    assert.equal((await supertest(tool.baseUrl).get('/healthz')).status, 200);
    assert.ok(Date.now() - signalledAt < 4000, 'the checks ran inside the lame duck');

    // Then the drain: no new connections, exit 0.
    const code = await tool.exit;
    assert.equal(code, 0, tool.output().slice(-2000));
    const took = Date.now() - signalledAt;
    assert.ok(took >= 4000 && took < 14_000, `stopped after the lame duck and its drain (${took} ms)`);
    const lines = tool.log();
    const order = lines.map((line) => line.msg).filter((msg) => msg.startsWith('shutting down') || msg === 'shut down');
    assert.deepEqual(order, ['shutting down: /readyz answers 503, still serving until load balancers have taken this replica out', 'shutting down: draining requests in flight', 'shut down'], tool.output().slice(-3000));
    assert.equal(lines.find((line) => line.lameDuckMs !== undefined)?.lameDuckMs, 4000);
  });

  it('SIGINT skips the lame duck', async () => {
    const tool = await startTool({ SHUTDOWN_DELAY_SECONDS: '30' });
    const signalledAt = Date.now();
    tool.child.kill('SIGINT');
    assert.equal(await tool.exit, 0);
    assert.ok(Date.now() - signalledAt < 10_000);
    assert.doesNotMatch(tool.output(), /still serving until load balancers/);
  });

  it('past a short grace period, cuts the connections, stops their launches and exits without logging them as redirected', async () => {
    const tool = await startTool({ SHUTDOWN_DELAY_SECONDS: '0', SHUTDOWN_GRACE_SECONDS: '1' });
    // Each Launch API call takes 6 s: longer than the grace period.
    const fault = await supertest(tool.baseUrl).post('/sandbox/proctoring/_emulator/faults').send({ kind: 'latency', ms: 6000 });
    assert.equal(fault.status, 200);
    const launches = await Promise.all([authorizedLaunch(tool.baseUrl), authorizedLaunch(tool.baseUrl)]);
    const answers = launches.map((one) => one.post().then((response) => response.status, (error: unknown) => String((error as { code?: string }).code ?? error)));
    const received = async () => ((await supertest(tool.baseUrl).get('/sandbox/proctoring/_emulator/received')).body as Array<{ endpoint?: string }>).filter((call) => call.endpoint === '/v2/candidate/launch').length;
    const deadline = Date.now() + 30_000;
    while ((await received()) < 2) assert.ok(Date.now() < deadline, 'both launches reach the Launch API');
    tool.child.kill('SIGTERM');
    const signalledAt = Date.now();
    const outcomes = await Promise.all(answers);
    for (const outcome of outcomes) assert.match(String(outcome), /ECONNRESET|socket hang up/, `the cut connection: ${outcome}`);
    assert.equal(await tool.exit, 0, tool.output().slice(-2000));
    const took = Date.now() - signalledAt;
    assert.ok(took < 5000, `exited without waiting for the abandoned Launch API calls (${took} ms)`);
    assert.match(tool.output(), /"forcedConnections":[1-9][^\n]*abandoning their requests/);
    assert.doesNotMatch(tool.output(), /"msg":"launch (redirected|upstream_error)/, 'nothing logged for launches whose clients are gone');
  });
});
